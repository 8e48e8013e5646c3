import { expect, it } from "vitest";
import * as trendsAndPercentiles from "#app/db/migrations/0016-trends-and-percentiles.ts";
import { companyCriteria } from "#app/lib/ratings.ts";
import { checkAggregates } from "#tests/support/server.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { company, companyReview, published, someone } from "#tests/support/test-contributions.ts";
import {
  insertCompany,
  insertCompanyReview,
  insertManager,
  insertManagerReview,
} from "#tests/support/test-fixtures.ts";
import { findCompany } from "./companies.server.ts";
import { addCompany, recordCompanyReview } from "./contributions.server.ts";
import { findManager } from "./managers.server.ts";
import { decide, withdrawReview } from "./moderation.server.ts";
import { trendMinimumReviews } from "./trends.server.ts";

const removal = { action: "remove", reason: "spam", statement: "Advertising." } as const;
const restore = { action: "restore", reason: null, statement: "Appeal upheld." } as const;

/** Every company criterion at `value`, as review row fields. */
const rowAt = (value: number) => Object.fromEntries(companyCriteria.map((key) => [key, value]));

describeEachEngine("monthly buckets and trends", (database, engine) => {
  it("publication, removal, restore and withdrawal move a review in and out of its month's bucket", async () => {
    const { db, url } = database();
    const at = (value: number) => companyReview(Object.fromEntries(companyCriteria.map((key) => [key, String(value)])));
    const id = published(await addCompany(db, someone, company(), at(4)));
    const keys = [];
    for (const value of [2, 5, 3, 4]) keys.push((await recordCompanyReview(db, someone, id, at(value))).reviewKey);
    const bucket = () =>
      db.selectFrom("company_months").select(["month", "review_count", "sum_culture"]).where("subject_id", "=", id);

    const [month] = await bucket().execute();
    expect(month).toMatchObject({ review_count: 5, sum_culture: 18 });
    expect(month?.month).toMatch(/^\d{4}-\d{2}$/);
    // Five reviews of one month: the trend shows that month with its means.
    expect((await findCompany(db, id))?.trend).toEqual({
      minimumReviews: 5,
      months: [
        {
          month: month!.month,
          reviewCount: 5,
          overall: 3.6,
          criteria: Object.fromEntries(companyCriteria.map((key) => [key, 3.6])),
        },
      ],
    });
    expect((await checkAggregates({ engine, url })).mismatches).toEqual([]);

    const twoId = (
      await db
        .selectFrom("company_reviews")
        .select("id")
        .where("company_id", "=", id)
        .where("culture", "=", 2)
        .executeTakeFirstOrThrow()
    ).id;
    await decide(db, twoId, removal, "Moderator T");
    expect(await bucket().executeTakeFirst()).toMatchObject({ review_count: 4, sum_culture: 16 });
    // Four reviews: below the minimum, the month leaves the trend.
    expect((await findCompany(db, id))?.trend.months).toEqual([]);
    expect((await checkAggregates({ engine, url })).mismatches).toEqual([]);

    await decide(db, twoId, restore, "Moderator T");
    expect(await bucket().executeTakeFirst()).toMatchObject({ review_count: 5, sum_culture: 18 });
    expect((await checkAggregates({ engine, url })).mismatches).toEqual([]);

    await withdrawReview(db, keys[1]!);
    expect(await bucket().executeTakeFirst()).toMatchObject({ review_count: 4, sum_culture: 13 });
    expect((await checkAggregates({ engine, url })).mismatches).toEqual([]);
  });

  it("a trend shows only months with at least five reviews, oldest first, overall and per criterion", async () => {
    const { db } = database();
    expect(trendMinimumReviews()).toBe(5);
    const id = await insertCompany(db, { name: "Trend Corp" });
    for (let i = 0; i < 5; i++) await insertCompanyReview(db, id, { ...rowAt(2), created_on: "2026-01-10" });
    for (let i = 0; i < 4; i++) await insertCompanyReview(db, id, { ...rowAt(5), created_on: "2026-02-10" });
    for (let i = 0; i < 6; i++) {
      await insertCompanyReview(db, id, { ...rowAt(4), culture: i < 3 ? 5 : 3, created_on: "2026-03-02" });
    }
    const trend = (await findCompany(db, id))?.trend;
    expect(trend?.months.map(({ month, reviewCount, overall }) => ({ month, reviewCount, overall }))).toEqual([
      { month: "2026-01", reviewCount: 5, overall: 2 },
      { month: "2026-03", reviewCount: 6, overall: 4 },
    ]);
    expect(trend?.months[1]?.criteria).toMatchObject({ culture: 4, growth: 4 });
  });

  it("a manager's trend comes from its own monthly buckets, per criterion", async () => {
    const { db } = database();
    const companyId = await insertCompany(db, { name: "Team Corp" });
    const managerId = await insertManager(db, { first_name: "Tess", last_name: "Trend" }, [companyId]);
    for (let i = 0; i < 5; i++) await insertManagerReview(db, managerId, { vision: 5, created_on: "2026-04-01" });
    const trend = (await findManager(db, managerId))?.trend;
    expect(trend?.months).toHaveLength(1);
    expect(trend?.months[0]).toMatchObject({ month: "2026-04", reviewCount: 5, criteria: { vision: 5, trust: 3 } });
  });

  it("the checker finds a drifted bucket, and the migration fills the buckets from the reviews that stand", async () => {
    const { db, url } = database();
    const id = await insertCompany(db, { name: "Backfill Months" });
    await insertCompanyReview(db, id, { culture: 5, created_on: "2025-11-30" });
    await insertCompanyReview(db, id, { culture: 1, created_on: "2025-12-01" });
    const removedId = await insertCompanyReview(db, id, { culture: 2, created_on: "2025-12-05" });
    await decide(db, removedId, removal, "Moderator T");
    const managerId = await insertManager(db, { first_name: "Back", last_name: "Fill" }, [id]);
    await insertManagerReview(db, managerId, { trust: 4, created_on: "2025-10-10" });
    expect((await checkAggregates({ engine, url })).mismatches).toEqual([]);

    await db.updateTable("company_months").set({ sum_culture: 9 }).where("month", "=", "2025-12").execute();
    expect((await checkAggregates({ engine, url })).mismatches).toEqual([
      { table: "companies", id, columns: ["month 2025-12 sum_culture"] },
    ]);

    await trendsAndPercentiles.down(db);
    await trendsAndPercentiles.up(db);
    expect((await checkAggregates({ engine, url })).mismatches).toEqual([]);
    expect(
      await db
        .selectFrom("company_months")
        .select(["month", "review_count", "sum_culture"])
        .where("subject_id", "=", id)
        .orderBy("month")
        .execute(),
    ).toEqual([
      { month: "2025-11", review_count: 1, sum_culture: 5 },
      { month: "2025-12", review_count: 1, sum_culture: 1 },
    ]);
  });
});
