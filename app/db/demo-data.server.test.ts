import type { Kysely } from "kysely";
import { beforeEach, expect, it } from "vitest";
import { companyCriteria, managerCriteria, managerYesNo } from "#app/lib/ratings.ts";
import { type DemoSummary, generateDemoData, placesByCountry } from "./demo-data.server.ts";
import type { Database } from "./schema.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { countRows } from "#tests/support/test-fixtures.ts";

type Aggregates = Record<string, number>;

/** Each company's aggregates, counted afresh from its reviews. */
async function countedCompanyAggregates(db: Kysely<Database>): Promise<Map<number, Aggregates>> {
  const rows = await db
    .selectFrom("company_reviews")
    .select((eb) => [
      "company_id",
      eb.fn.countAll<number>().as("review_count"),
      ...companyCriteria.map((criterion) => eb.fn.sum<number>(criterion).as(`sum_${criterion}`)),
      eb.fn.sum<number>("again").as("again_yes"),
      eb.fn.sum<number>("recommend").as("recommend_yes"),
    ])
    .groupBy("company_id")
    .execute();
  return new Map(rows.map(({ company_id, ...aggregates }) => [company_id, numbers(aggregates)]));
}

async function countedManagerAggregates(db: Kysely<Database>): Promise<Map<number, Aggregates>> {
  const rows = await db
    .selectFrom("manager_reviews")
    .select((eb) => [
      "manager_id",
      eb.fn.countAll<number>().as("review_count"),
      ...managerCriteria.map((criterion) => eb.fn.sum<number>(criterion).as(`sum_${criterion}`)),
      ...managerYesNo.map((question) => eb.fn.sum<number>(question).as(`${question}_yes`)),
    ])
    .groupBy("manager_id")
    .execute();
  return new Map(rows.map(({ manager_id, ...aggregates }) => [manager_id, numbers(aggregates)]));
}

function numbers(row: object): Aggregates {
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Number(value)]));
}

/** The stored aggregate columns of a row. */
function stored(row: Record<string, unknown>, columns: string[]): Aggregates {
  return Object.fromEntries(columns.map((column) => [column, Number(row[column])]));
}

function zeros(columns: string[]): Aggregates {
  return Object.fromEntries(columns.map((column) => [column, 0]));
}

const companyColumns = ["review_count", ...companyCriteria.map((c) => `sum_${c}`), "again_yes", "recommend_yes"];
const managerColumns = [
  "review_count",
  ...managerCriteria.map((c) => `sum_${c}`),
  ...managerYesNo.map((q) => `${q}_yes`),
];

describeEachEngine("demo data", (database) => {
  let summary: DemoSummary;
  beforeEach(async () => {
    summary = await generateDemoData(database().db, { companies: 30 });
  });

  it("writes the companies, managers and reviews it reports", async () => {
    const { db } = database();

    expect(summary.companies).toBe(30);
    expect(summary.companyReviews).toBeGreaterThan(0);
    expect(summary.managerReviews).toBeGreaterThan(0);
    expect({
      companies: await countRows(db, "companies"),
      managers: await countRows(db, "managers"),
      companyReviews: await countRows(db, "company_reviews"),
      managerReviews: await countRows(db, "manager_reviews"),
    }).toEqual(summary);
  });

  it("stores each company's review count, sums and yes counts as its reviews add up", async () => {
    const { db } = database();
    const counted = await countedCompanyAggregates(db);
    const companies = await db.selectFrom("companies").selectAll().execute();

    expect(counted.size).toBeGreaterThan(0);
    for (const company of companies) {
      const expected = counted.get(company.id) ?? zeros(companyColumns);
      expect(stored(company, companyColumns), company.name).toEqual(expected);
    }
  });

  it("stores each manager's review count, sums and yes counts as its reviews add up", async () => {
    const { db } = database();
    const counted = await countedManagerAggregates(db);
    const managers = await db.selectFrom("managers").selectAll().execute();

    expect(managers.length).toBeGreaterThan(0);
    expect(counted.size).toBeGreaterThan(0);
    for (const manager of managers) {
      const expected = counted.get(manager.id) ?? zeros(managerColumns);
      expect(stored(manager, managerColumns), manager.folded_name).toEqual(expected);
    }
  });

  it("takes a company's on-call flag from its newest review", async () => {
    const { db } = database();
    const reviews = await db
      .selectFrom("company_reviews")
      .select(["company_id", "created_on", "has_oncall"])
      .orderBy("created_on", "desc")
      .execute();
    const companies = await db.selectFrom("companies").select(["id", "latest_has_oncall"]).execute();

    let compared = 0;
    for (const company of companies) {
      const own = reviews.filter((review) => review.company_id === company.id);
      // With several reviews on the newest day, either of them may count as the latest.
      if (own.length === 0 || own[1]?.created_on === own[0]?.created_on) continue;
      expect(company.latest_has_oncall, `company ${company.id}`).toBe(own[0]?.has_oncall);
      compared++;
    }
    expect(compared).toBeGreaterThan(5);
  });

  it("puts every company and manager in a region and city of their own country", async () => {
    const { db } = database();
    const rows = [
      ...(await db.selectFrom("companies").select(["country", "state", "city"]).execute()),
      ...(await db.selectFrom("managers").select(["country", "state", "city"]).execute()),
    ];
    expect(rows.length).toBeGreaterThan(30);
    for (const { country, state, city } of rows) {
      const places = (placesByCountry[country] ?? []).map(([region, town]) => `${region} / ${town}`);
      expect(places, `${city}, ${state}, ${country}`).toContain(`${state} / ${city}`);
    }
  });

  it("marks every company and manager as demo data", async () => {
    const { db } = database();
    const companies = await db.selectFrom("companies").select("is_demo").execute();
    const managers = await db.selectFrom("managers").select("is_demo").execute();

    expect(companies).toHaveLength(30);
    expect([...companies, ...managers].every((row) => row.is_demo === 1)).toBe(true);
  });

  it("links only to reserved .example domains", async () => {
    const { db } = database();
    const companies = await db.selectFrom("companies").select(["website", "glassdoor_url"]).execute();
    const managers = await db.selectFrom("managers").select("linkedin_url").execute();
    const urls = [
      ...companies.flatMap((company) => [company.website, company.glassdoor_url]),
      ...managers.map((manager) => manager.linkedin_url),
    ];

    expect(urls.length).toBeGreaterThan(60);
    for (const url of urls) expect(new URL(url).hostname, url).toMatch(/\.example$/);
  });
});

describeEachEngine("demo data generated twice", (database) => {
  it("adds rows with fresh ids, and new companies and managers still get ids of their own", async () => {
    const { db } = database();
    const first = await generateDemoData(db, { companies: 10, seed: 1 });
    const firstIds = (await db.selectFrom("companies").select("id").execute()).map((row) => row.id);

    const second = await generateDemoData(db, { companies: 10, seed: 1 });
    const companies = await db.selectFrom("companies").select("id").execute();
    const managers = await db.selectFrom("managers").select("id").execute();

    expect(second).toEqual(first);
    expect(companies).toHaveLength(20);
    expect(managers).toHaveLength(first.managers * 2);
    const newIds = companies.map((row) => row.id).filter((id) => !firstIds.includes(id));
    expect(newIds).toHaveLength(10);
    expect(Math.min(...newIds)).toBeGreaterThan(Math.max(...firstIds));

    // On PostgreSQL the identity sequence must have moved past the explicit ids.
    const company = await db
      .insertInto("companies")
      .values({
        name: "Added Later",
        folded_name: "added later",
        name_skeleton: "added later",
        country: "US",
        state: "Ohio",
        city: "Columbus",
        website: "https://added-later.example",
        website_key: "added-later.example",
        glassdoor_url: "https://reviews.example/added-later",
        industry: "Retail",
        created_on: "2026-01-01",
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    expect(company.id).toBeGreaterThan(Math.max(...newIds));
    const manager = await db
      .insertInto("managers")
      .values({
        first_name: "Added",
        last_name: "Later",
        folded_name: "added later",
        name_skeleton: "added later",
        country: "US",
        state: "Ohio",
        city: "Columbus",
        title: "Store Manager",
        linkedin_url: "https://linkedin.example/in/added-later",
        created_on: "2026-01-01",
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    expect(manager.id).toBeGreaterThan(Math.max(...managers.map((row) => row.id)));
  });
});
