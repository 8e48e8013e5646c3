import { type Kysely, sql } from "kysely";
import { expect, it } from "vitest";
import type { Database } from "#app/db/schema.ts";
import { isPostgres } from "#app/db/dialect.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import {
  insertCompany,
  insertCompanyReview,
  insertManager,
  insertManagerReview,
} from "#tests/support/test-fixtures.ts";
import { companyCriteria, managerCriteria } from "#app/lib/ratings.ts";
import { companyLists, searchCompanies } from "./companies.server.ts";
import { managerLists } from "./managers.server.ts";
import { searchListLength } from "./subjects.server.ts";

const allCompany = (value: number) => Object.fromEntries(companyCriteria.map((key) => [key, value]));
const allManager = (value: number) => Object.fromEntries(managerCriteria.map((key) => [key, value]));

async function companyWith(db: Kysely<Database>, name: string, ratings: number[], country = "DE"): Promise<number> {
  const id = await insertCompany(db, { name, country, industry: "Manufacturing" });
  for (const value of ratings) await insertCompanyReview(db, id, allCompany(value));
  return id;
}

describeEachEngine("the lists of a search before a term is typed", (database) => {
  it("lists a country's companies with reviews, the most reviewed first, at most five", async () => {
    const { db } = database();
    const ids = [];
    for (let count = 1; count <= 6; count++) ids.push(await companyWith(db, `Busy ${count}`, Array(count).fill(3)));
    await companyWith(db, "Unreviewed", []);
    await companyWith(db, "Elsewhere", Array(9).fill(4), "FR");

    const { mostReviewed } = await companyLists(db, "DE");
    expect(mostReviewed.map((company) => company.name)).toEqual(["Busy 6", "Busy 5", "Busy 4", "Busy 3", "Busy 2"]);
    expect(mostReviewed).toHaveLength(searchListLength);
    expect(mostReviewed[0]).toMatchObject({ reviewCount: 6, mean: 3, industry: "Manufacturing", city: "Munich" });
  });

  it("ranks by the mean drawn towards 3, so one 5-star review does not top many good ones", async () => {
    const { db } = database();
    await companyWith(db, "One Star Five", [5]);
    await companyWith(db, "Many Fours", Array(20).fill(4));
    await companyWith(db, "Few Fours", [4, 4]);
    await companyWith(db, "Poor", [1, 2, 1]);

    const { bestRated } = await companyLists(db, "DE");
    expect(bestRated.map((company) => [company.name, company.mean])).toEqual([
      ["Many Fours", 4],
      ["One Star Five", 5],
      ["Few Fours", 4],
      ["Poor", 1.3],
    ]);
  });

  it("gives search results the same card: mean with one decimal, reviews and industry", async () => {
    const { db } = database();
    const id = await companyWith(db, "Card Corp", [4, 5]);
    await companyWith(db, "Card Later", []);
    const page = await searchCompanies(db, { country: "DE", term: "card" });
    expect(page.items).toEqual([
      { id, name: "Card Corp", city: "Munich", industry: "Manufacturing", reviewCount: 2, mean: 4.5, isDemo: false },
      expect.objectContaining({ name: "Card Later", reviewCount: 0, mean: null }),
    ]);
  });

  it("lists managers with reviews with their title and mean, and none of another country", async () => {
    const { db } = database();
    const reviewed = await insertManager(db, { first_name: "Rita", last_name: "Reviewed", title: "Head of Sales" });
    await insertManagerReview(db, reviewed, allManager(4));
    await insertManagerReview(db, reviewed, allManager(5));
    await insertManager(db, { first_name: "Nora", last_name: "None" });
    const abroad = await insertManager(db, { first_name: "Fay", last_name: "France", country: "FR" });
    await insertManagerReview(db, abroad, allManager(5));

    const lists = await managerLists(db, "DE");
    expect(lists.mostReviewed).toEqual([
      expect.objectContaining({ id: reviewed, title: "Head of Sales", reviewCount: 2, mean: 4.5 }),
    ]);
    expect(lists.bestRated.map((manager) => manager.id)).toEqual([reviewed]);
  });

  it("reads each list from its index, never by scanning the table", async () => {
    const { db } = database();
    await companyWith(db, "Planned", [4]);
    for (const [table, index] of [
      ["companies", "companies_most_reviewed"],
      ["companies", "companies_best_rated"],
      ["managers", "managers_most_reviewed"],
      ["managers", "managers_best_rated"],
    ] as const) {
      const order = index.endsWith("most_reviewed") ? "review_count" : "rating_rank";
      const range = index.endsWith("most_reviewed") ? sql`review_count >= 1` : sql`rating_rank > 0`;
      const query = sql`select id from ${sql.table(table)} where country = 'DE' and ${range}
        order by ${sql.ref(order)} desc, id desc limit 5`;
      const plan = await db.transaction().execute(async (trx) => {
        // A table of a few rows is cheaper to scan: the planner is told not to, as it would not at a million rows.
        if (isPostgres(trx)) await sql`set local enable_seqscan = off`.execute(trx);
        const explain = isPostgres(trx) ? sql`explain ${query}` : sql`explain query plan ${query}`;
        return JSON.stringify((await explain.execute(trx)).rows);
      });
      expect(plan).toContain(index);
      expect(plan).not.toMatch(/Seq Scan|SCAN [a-z_]+(?! USING)|TEMP B-TREE/);
    }
  });
});
