import { sql } from "kysely";
import { beforeEach, expect, it } from "vitest";
import { containsFolded } from "#app/db/dialect.ts";
import { generateDemoData } from "#app/db/demo-data.server.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { insertCompany } from "#tests/support/test-fixtures.ts";
import { fold } from "#app/lib/fold.ts";
import { searchByName, type SearchPlanLimits } from "./name-search.server.ts";

type Row = { id: number; folded_name: string };
const columns = ["id", "folded_name"] as const;

// Tiny limits make a few hundred demo companies take every plan: the nearby scan, the trigram index, the plain query.
const planLimits: SearchPlanLimits[] = [
  { nearbyNames: 4000, candidateLimit: 5000 },
  { nearbyNames: 5, candidateLimit: 5000 },
  { nearbyNames: 5, candidateLimit: 3 },
  { nearbyNames: 1, candidateLimit: 0 },
];

describeEachEngine("name search plans", (database) => {
  beforeEach(async () => {
    await generateDemoData(database().db, { companies: 300, seed: 7 });
  });

  /** What the search must return: the plain query, read without any index trick. */
  async function expected(table: "companies" | "managers", country: string, term: string, after?: [string, number]) {
    let select = database()
      .db.selectFrom(table)
      .select(["id", "folded_name"])
      .where("country", "=", country)
      .where(containsFolded(term))
      .orderBy("folded_name")
      .orderBy("id")
      .limit(8);
    if (after) select = select.where((eb) => eb(eb.refTuple("folded_name", "id"), ">", eb.tuple(...after)));
    return select.execute();
  }

  it("returns the same rows, pages and order whichever plan runs", async () => {
    const { db } = database();
    const samples = await db.selectFrom("companies").select(["folded_name", "country"]).limit(40).execute();
    const terms = [
      ...samples.map((row, index) => ({
        country: row.country,
        term: row.folded_name.slice(index % 5, (index % 5) + 3 + (index % 4)),
      })),
      { country: "US", term: "a" },
      { country: "US", term: "an" },
      { country: "US", term: "and" },
      { country: "US", term: "zzzq" },
      { country: "GB", term: '"quoted' },
      { country: "US", term: "100%" },
      { country: "US", term: "a_b" },
    ];
    let compared = 0;
    for (const { country, term } of terms) {
      const folded = fold(term);
      const firstPage = await expected("companies", country, folded);
      const after = firstPage.at(-1)
        ? ([firstPage.at(-1)!.folded_name, firstPage.at(-1)!.id] as [string, number])
        : undefined;
      for (const limits of planLimits) {
        for (const position of [undefined, after]) {
          const rows = await searchByName<Row>(
            db,
            "companies",
            columns,
            { country, term: folded, after: position, limit: 8 },
            limits,
          );
          expect(rows.map((row) => row.id)).toEqual(
            (await expected("companies", country, folded, position)).map((row) => row.id),
          );
          compared += 1;
        }
      }
    }
    const managers = await db.selectFrom("managers").select(["folded_name", "country"]).limit(10).execute();
    for (const manager of managers) {
      const term = manager.folded_name.slice(1, 5);
      for (const limits of planLimits) {
        const rows = await searchByName<Row>(
          db,
          "managers",
          columns,
          { country: manager.country, term, after: undefined, limit: 8 },
          limits,
        );
        expect(rows.map((row) => row.id)).toEqual(
          (await expected("managers", manager.country, term)).map((row) => row.id),
        );
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(400);
  });

  it("finds a company added after the index was built (the index follows inserts)", async () => {
    const { db } = database();
    const id = await insertCompany(db, { name: "Qwyxzor Widgets", country: "US" });
    const rows = await searchByName<Row>(
      db,
      "companies",
      columns,
      { country: "US", term: "qwyxzor", after: undefined, limit: 8 },
      { nearbyNames: 1, candidateLimit: 5000 },
    );
    expect(rows.map((row) => row.id)).toEqual([id]);
  });

  it("has its trigram index: FTS5 in step with the names on SQLite, pg_trgm on PostgreSQL", async () => {
    const { db, engine } = database();
    if (engine === "postgres") {
      const { rows } = await sql<{ indexes: number }>`select count(*) as indexes from pg_indexes
        where schemaname = current_schema() and indexname like '%_folded_trigram'`.execute(db);
      expect(Number(rows[0]?.indexes)).toBe(2);
      return;
    }
    await insertCompany(db, { name: "Late Arrival Ltd", country: "US" });
    for (const table of ["companies_search", "managers_search"]) {
      // Raises an error when the index and its content table disagree.
      await sql`insert into ${sql.table(table)} (${sql.ref(table)}, rank) values ('integrity-check', 1)`.execute(db);
    }
  });
});
