import { expect, it } from "vitest";
import * as ratingDistributions from "#app/db/migrations/0010-rating-distributions.ts";
import { companyCriteria } from "#app/lib/ratings.ts";
import { checkAggregates } from "#tests/support/server.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import {
  author,
  company,
  companyReview,
  managerReview,
  published,
  someone,
} from "#tests/support/test-contributions.ts";
import {
  insertCompany,
  insertCompanyReview,
  insertManager,
  insertManagerReview,
} from "#tests/support/test-fixtures.ts";
import { findCompany } from "./companies.server.ts";
import { addCompany, recordCompanyReview, recordManagerReview } from "./contributions.server.ts";
import { findManager } from "./managers.server.ts";
import { decide, withdrawReview } from "./moderation.server.ts";

const removal = { action: "remove", reason: "spam", statement: "Advertising." } as const;
const restore = { action: "restore", reason: null, statement: "Appeal upheld." } as const;

/** Ratings of every company criterion at `value`, with `fields` on top. */
const allAt = (value: number, fields: Record<string, unknown> = {}) =>
  companyReview({
    ...Object.fromEntries(companyCriteria.map((key) => [key, String(value)])),
    ...fields,
  });

describeEachEngine("stored distributions and the headline", (database, engine) => {
  it("publication keeps the mean, interval, shares, histograms and tag counts exact; moderation moves them back and forth", async () => {
    const { db, url } = database();
    // Overall scores 4, 2, 5, 4 (rating totals 52, 29, 65, 52 over 13 criteria).
    const id = published(await addCompany(db, someone, company(), allAt(4, { again: "Yes", recommend: "No" })));
    const low = await recordCompanyReview(
      db,
      someone,
      id,
      allAt(2, { culture: "5", again: "No", recommend: "Yes", tags: ["Hybrid"] }),
    );
    const top = await recordCompanyReview(db, someone, id, allAt(5, { again: "Yes", recommend: "Yes" }));
    await recordCompanyReview(db, someone, id, allAt(4, { again: "Yes", recommend: "No" }));

    const full = await findCompany(db, id);
    expect(full).toMatchObject({
      reviewCount: 4,
      score: 3,
      // 198 / 52 = 3.81; Student's t with 3 degrees of freedom: 3.81 ± 3.182 × 0.576, clipped at 5.
      mean: 3.8,
      interval: { low: 2, high: 5 },
      yesPercent: { again: 75, recommend: 50 },
      topTags: [
        { tag: "Hybrid", count: 4 },
        { tag: "Fair Pay", count: 3 },
      ],
    });
    expect(full?.distribution.overall).toEqual([0, 1, 0, 2, 1]);
    expect(full?.distribution.criteria.culture).toEqual([0, 0, 0, 2, 2]);
    expect(full?.distribution.criteria.reputation).toEqual([0, 1, 0, 2, 1]);
    expect((await checkAggregates({ engine, url })).mismatches).toEqual([]);

    const lowId = (
      await db
        .selectFrom("company_reviews")
        .select("id")
        .where("culture", "=", 5)
        .where("reputation", "=", 2)
        .executeTakeFirstOrThrow()
    ).id;
    await decide(db, lowId, removal, "Moderator T");
    const removed = await findCompany(db, id);
    expect(removed).toMatchObject({
      reviewCount: 3,
      yesPercent: { again: 100, recommend: 33 },
      topTags: [
        { tag: "Fair Pay", count: 3 },
        { tag: "Hybrid", count: 3 },
      ],
    });
    expect(removed?.distribution.overall).toEqual([0, 0, 0, 2, 1]);
    expect((await checkAggregates({ engine, url })).mismatches).toEqual([]);

    await decide(db, lowId, restore, "Moderator T");
    expect(await findCompany(db, id)).toEqual(full);

    await withdrawReview(db, top.reviewKey);
    const withdrawn = await findCompany(db, id);
    expect(withdrawn?.distribution.overall).toEqual([0, 1, 0, 2, 0]);
    expect((await checkAggregates({ engine, url })).mismatches).toEqual([]);
    expect(low.reviewKey).not.toBe(top.reviewKey);
  });

  it("a manager's approvals are the shares of yes to each question, and the distributions follow a removal", async () => {
    const { db, url } = database();
    const companyId = await insertCompany(db, { name: "Approval Corp" });
    const managerId = await insertManager(db, { first_name: "Ada", last_name: "Approve" }, [companyId]);
    await recordManagerReview(
      db,
      author("user-a"),
      managerId,
      managerReview({ invested: "Yes", tags: ["Supportive"] }),
    );
    await recordManagerReview(db, author("user-b"), managerId, managerReview({ invested: "No", vision: "1" }));
    const manager = await findManager(db, managerId);
    expect(manager).toMatchObject({
      reviewCount: 2,
      yesPercent: { recommended: 100, invested: 50, communication: 0, gives_credit: 100, again: 0 },
      topTags: [{ tag: "Supportive", count: 2 }],
    });
    expect(manager?.distribution.criteria.vision).toEqual([1, 0, 0, 1, 0]);
    expect((await checkAggregates({ engine, url })).mismatches).toEqual([]);

    const reviewId = (
      await db.selectFrom("manager_reviews").select("id").where("vision", "=", 1).executeTakeFirstOrThrow()
    ).id;
    await decide(db, reviewId, removal, "Moderator T");
    expect((await findManager(db, managerId))?.distribution.criteria.vision).toEqual([0, 0, 0, 1, 0]);
    expect((await checkAggregates({ engine, url })).mismatches).toEqual([]);
  });

  it("the checker finds a distribution that drifted from the reviews", async () => {
    const { db, url } = database();
    const companyId = await insertCompany(db, { name: "Drift Corp" });
    await insertCompanyReview(db, companyId, { culture: 5 });
    expect((await checkAggregates({ engine, url })).mismatches).toEqual([]);
    await db
      .updateTable("rating_counts")
      .set({ count: 2 })
      .where("subject_id", "=", companyId)
      .where("criterion", "=", "culture")
      .execute();
    await db.updateTable("tag_counts").set({ count: 0 }).where("subject_id", "=", companyId).execute();
    await db.updateTable("companies").set({ sum_total_squares: 1 }).where("id", "=", companyId).execute();
    expect((await checkAggregates({ engine, url })).mismatches).toEqual([
      { table: "companies", id: companyId, columns: ["sum_total_squares"] },
      { table: "companies", id: companyId, columns: ["rating culture=5", "tag Fair Pay"] },
    ]);
  });

  it("the migration fills the distributions from the reviews that stand", async () => {
    const { db, url } = database();
    const companyId = await insertCompany(db, { name: "Backfill Corp" });
    await insertCompanyReview(db, companyId, { culture: 1, tags: JSON.stringify(["Hybrid", "Fair Pay"]) });
    const removedId = await insertCompanyReview(db, companyId, { growth: 5 });
    const managerId = await insertManager(db, { first_name: "Back", last_name: "Fill" }, [companyId]);
    await insertManagerReview(db, managerId, { trust: 5 });
    await decide(db, removedId, removal, "Moderator T");
    const before = await findCompany(db, companyId);

    await ratingDistributions.down(db);
    await ratingDistributions.up(db);

    expect((await checkAggregates({ engine, url })).mismatches).toEqual([]);
    expect(await findCompany(db, companyId)).toEqual(before);
    expect((await findManager(db, managerId))?.distribution.criteria.trust).toEqual([0, 0, 0, 0, 1]);
  });
});
