import { sql } from "kysely";
import { beforeEach, expect, it } from "vitest";
import { containsFolded } from "#app/db/dialect.ts";
import { generateDemoData } from "#app/db/demo-data.server.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { countRows, insertCompany } from "#tests/support/test-fixtures.ts";
import { fold } from "#app/lib/fold.ts";
import * as compactNameSearch from "#app/db/migrations/0021-compact-name-search.ts";
import * as nameSearchByCountry from "#app/db/migrations/0025-name-search-by-country.ts";
import { type SearchBounds, type SearchPosition, searchBounds, searchByName } from "./name-search.server.ts";

type Row = { id: number; folded_name: string };
const columns = ["id", "folded_name"] as const;

// Tiny bounds make a few hundred demo companies need several windows and walks; the default ones read one window.
const tinyBounds: SearchBounds = { candidates: 5, names: 7, emptyReads: 1 };

describeEachEngine("name search", (database) => {
  beforeEach(async () => {
    await generateDemoData(database().db, { companies: 300, seed: 7 });
  });

  /** Every match of the term in the country, read without any index: what the pages together must hold. */
  async function everyMatch(table: "companies" | "managers", country: string, term: string) {
    return database()
      .db.selectFrom(table)
      .select(["id", "folded_name"])
      .where("country", "=", country)
      .where(containsFolded(term))
      .execute();
  }

  /** Follows the pages of one search to the end (at most 200 pages). */
  async function pagesOf(table: "companies" | "managers", country: string, term: string, bounds: SearchBounds) {
    const pages: Array<{ rows: Row[]; next: SearchPosition | null }> = [];
    let after: SearchPosition | undefined;
    do {
      const page = await searchByName<Row>(database().db, table, columns, { country, term, after, limit: 8 }, bounds);
      pages.push(page);
      after = page.next ?? undefined;
    } while (after && pages.length < 200);
    return pages;
  }

  const byName = (a: Row, b: Row) =>
    a.folded_name === b.folded_name ? a.id - b.id : a.folded_name < b.folded_name ? -1 : 1;

  async function sampleTerms() {
    const samples = await database().db.selectFrom("companies").select(["folded_name", "country"]).limit(40).execute();
    return [
      ...samples.map((row, index) => ({
        country: row.country,
        term: row.folded_name.slice(index % 5, (index % 5) + 2 + (index % 5)),
      })),
      { country: "US", term: "a" },
      { country: "US", term: "an" },
      { country: "US", term: "and" },
      { country: "US", term: "zzzq" },
      { country: "GB", term: '"quoted' },
      { country: "US", term: "100%" },
      { country: "US", term: "a_b" },
    ].map(({ country, term }) => ({ country, term: fold(term) }));
  }

  it("pages through every match exactly once, names that start with the term first and by name", async () => {
    let compared = 0;
    for (const { country, term } of await sampleTerms()) {
      const expected = await everyMatch("companies", country, term);
      for (const bounds of [searchBounds, tinyBounds]) {
        const pages = await pagesOf("companies", country, term, bounds);
        const rows = pages.flatMap((page) => page.rows);
        expect(rows.map((row) => row.id).sort((a, b) => a - b)).toEqual(
          expected.map((row) => row.id).sort((a, b) => a - b),
        );
        const starting = rows.filter((row) => row.folded_name.startsWith(term));
        expect(rows.slice(0, starting.length)).toEqual([...starting].sort(byName));
        // Each page lists the names that hold the term elsewhere by name.
        for (const page of pages) {
          const elsewhere = page.rows.filter((row) => !row.folded_name.startsWith(term));
          expect(elsewhere).toEqual([...elsewhere].sort(byName));
        }
        compared += 1;
      }
    }
    const managers = await database().db.selectFrom("managers").select(["folded_name", "country"]).limit(10).execute();
    for (const manager of managers) {
      const term = manager.folded_name.slice(1, 5);
      const rows = (await pagesOf("managers", manager.country, term, tinyBounds)).flatMap((page) => page.rows);
      expect(rows.map((row) => row.id).sort((a, b) => a - b)).toEqual(
        (await everyMatch("managers", manager.country, term)).map((row) => row.id).sort((a, b) => a - b),
      );
      compared += 1;
    }
    expect(compared).toBeGreaterThan(100);
  });

  it("lists a term's matches by name, those that start with it first, when one window holds its candidates", async () => {
    const { db } = database();
    for (const name of ["Zorb Quillfeather", "Quillfeather Beta", "Aaron Quillfeather", "Quillfeather Alpha"]) {
      await insertCompany(db, { name, country: "US" });
    }
    await insertCompany(db, { name: "Quillfeather Abroad", country: "FR" });
    const { rows, next } = await searchByName<Row>(db, "companies", columns, {
      country: "US",
      term: "quillfeather",
      after: undefined,
      limit: 8,
    });
    expect(rows.map((row) => row.folded_name)).toEqual([
      "quillfeather alpha",
      "quillfeather beta",
      "aaron quillfeather",
      "zorb quillfeather",
    ]);
    expect(next).toBeNull();
  });

  it("reads at most one window of candidates per page, so a page may be short with more to follow", async () => {
    const { db } = database();
    // Ten names holding the term elsewhere, none starting with it: with windows of 3 candidates, no page holds more
    // than 3 of them, and the pages still end with all ten.
    const ids: number[] = [];
    for (let index = 0; index < 10; index += 1) {
      ids.push(await insertCompany(db, { name: `Firm ${index} Wexbridge`, country: "US" }));
    }
    const bounds = { candidates: 3, names: 4, emptyReads: 1 };
    const pages = await pagesOf("companies", "US", "wexbridge", bounds);
    expect(pages.map((page) => page.rows.length)).toEqual([3, 3, 3, 1]);
    expect(pages.flatMap((page) => page.rows.map((row) => row.id)).sort((a, b) => a - b)).toEqual(ids);
    // Two letters: at most `names` names of the country are read per page, after the names that start with them.
    const twoLetters = await pagesOf("companies", "US", "ex", bounds);
    const elsewhere = twoLetters.map((page) => page.rows.filter((row) => !row.folded_name.startsWith("ex")).length);
    expect(Math.max(...elsewhere)).toBeLessThanOrEqual(4);
    expect(elsewhere.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(10);
  });

  it("finds a company added after the index was built (the index follows inserts)", async () => {
    const { db } = database();
    const id = await insertCompany(db, { name: "Qwyxzor Widgets", country: "US" });
    const { rows } = await searchByName<Row>(db, "companies", columns, {
      country: "US",
      term: "wyxzor",
      after: undefined,
      limit: 8,
    });
    expect(rows.map((row) => row.id)).toEqual([id]);
  });

  it("counts names abroad in its windows on SQLite, the country's names only on PostgreSQL", async () => {
    const { db, engine } = database();
    // Six names abroad come first in id order.
    for (let index = 0; index < 6; index += 1)
      await insertCompany(db, { name: `Firm ${index} Yorvane`, country: "FR" });
    const ids = [
      await insertCompany(db, { name: "Firm A Yorvane", country: "US" }),
      await insertCompany(db, { name: "Firm B Yorvane", country: "US" }),
    ];
    const query = { country: "US", term: "yorvane", after: undefined, limit: 8 };
    const page = (emptyReads: number) =>
      searchByName<Row>(db, "companies", columns, query, { candidates: 3, names: 4, emptyReads });
    const full = await page(3);
    expect(full.next).toBeNull();
    expect(full.rows.map((row) => row.id)).toEqual(ids);
    if (engine === "sqlite") {
      // Two windows of three names abroad: a page that reads one window only shows none.
      expect(await page(1)).toEqual({
        rows: [],
        next: { group: "elsewhere", window: expect.any(Number), key: undefined },
      });
    } else {
      expect((await page(1)).rows.map((row) => row.id)).toEqual(ids);
    }
  });

  it("reads on past windows without a match before it answers an empty page, a bounded number of them", async () => {
    const { db } = database();
    // Six names that start with the term come first in id order: candidates of the windows, but listed before them.
    for (let index = 0; index < 6; index += 1)
      await insertCompany(db, { name: `Yorvane Firm ${index}`, country: "US" });
    const ids = [
      await insertCompany(db, { name: "Firm A Yorvane", country: "US" }),
      await insertCompany(db, { name: "Firm B Yorvane", country: "US" }),
    ];
    // The page after the names that start with the term.
    const query = {
      country: "US",
      term: "yorvane",
      after: { group: "elsewhere", window: 0, key: undefined } as const,
      limit: 8,
    };

    const readingOn = await searchByName<Row>(db, "companies", columns, query, {
      candidates: 3,
      names: 4,
      emptyReads: 3,
    });
    expect(readingOn.rows.map((row) => row.id)).toEqual(ids);
    expect(readingOn.next).toBeNull();

    const stopping = await searchByName<Row>(db, "companies", columns, query, {
      candidates: 3,
      names: 4,
      emptyReads: 1,
    });
    expect(stopping.rows).toEqual([]);
    expect(stopping.next).toEqual({ group: "elsewhere", window: expect.any(Number), key: undefined });
  });

  it("merges each FTS5 trigram index into one segment, which still finds every name (migration 0021)", async () => {
    const { db, engine } = database();
    if (engine === "postgres") return;
    const segments = async () =>
      Number(
        (
          await sql<{ segments: number }>`select count(distinct segid) as segments from companies_search_idx`.execute(
            db,
          )
        ).rows[0]?.segments,
      );
    // Each name added on its own is a segment of its own.
    for (const name of ["Late One", "Late Two", "Late Three"]) await insertCompany(db, { name, country: "US" });
    expect(await segments()).toBeGreaterThan(1);
    await compactNameSearch.up(db);
    expect(await segments()).toBe(1);
    const names = await db.selectFrom("companies").select(["id", "folded_name", "country"]).limit(20).execute();
    for (const name of names) {
      const found = await pagesOf("companies", name.country, name.folded_name.slice(-6), searchBounds);
      expect(found.flatMap((page) => page.rows.map((row) => row.id))).toContain(name.id);
    }
    await sql`insert into companies_search (companies_search, rank) values ('integrity-check', 1)`.execute(db);
  });

  it("makes the index again from the names already stored, and back (migration 0025)", async () => {
    const { db, engine } = database();
    if (engine === "postgres") return;
    const rowids = async () =>
      (await sql<{ rowid: number }>`select rowid from companies_search order by rowid`.execute(db)).rows.map((row) =>
        Number(row.rowid),
      );
    const companies = await db.selectFrom("companies").select(["id", "country"]).execute();
    await nameSearchByCountry.down(db);
    expect(await rowids()).toEqual(companies.map((row) => row.id).sort((a, b) => a - b));
    await nameSearchByCountry.up(db);
    // Each name's rowid is its id times 4096 plus its country's number, one number per country.
    const countryOf = new Map(companies.map((row) => [row.id, row.country]));
    const numbers = new Map<string, number>();
    const index = await sql<{ rowid: number; country: string }>`select rowid, country from companies_search`.execute(
      db,
    );
    expect(index.rows.length).toBe(companies.length);
    for (const { rowid, country } of index.rows) {
      const number = Number(rowid) % 4096;
      expect(countryOf.get((Number(rowid) - number) / 4096)).toBe(country);
      expect(numbers.get(country) ?? number).toBe(number);
      numbers.set(country, number);
    }
    expect(numbers.size).toBeGreaterThan(5);
    expect(new Set(numbers.values()).size).toBe(numbers.size);
    const names = await db.selectFrom("companies").select(["id", "folded_name", "country"]).limit(20).execute();
    for (const name of names) {
      const found = await pagesOf("companies", name.country, name.folded_name.slice(-6), searchBounds);
      expect(found.flatMap((page) => page.rows.map((row) => row.id))).toContain(name.id);
    }
    await sql`insert into companies_search (companies_search, rank) values ('integrity-check', 1)`.execute(db);
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
    // A company renamed and moved, another deleted: the index follows (its rowids hold the country). The term is
    // inside the names, so that only the index finds them.
    const moved = await insertCompany(db, { name: "Firm Quorbel Partners", country: "US" });
    const gone = await insertCompany(db, { name: "Firm Quorbel Holdings", country: "US" });
    await db
      .updateTable("companies")
      .set({ name: "Firm Quorbel Advisers", folded_name: fold("Firm Quorbel Advisers"), country: "FR" })
      .where("id", "=", moved)
      .execute();
    await db.deleteFrom("companies").where("id", "=", gone).execute();
    const found = async (country: string, term: string) =>
      (await pagesOf("companies", country, term, searchBounds)).flatMap((page) => page.rows.map((row) => row.id));
    expect(await found("US", "quorbel")).toEqual([]);
    expect(await found("FR", "quorbel")).toEqual([moved]);
    expect(await found("FR", "advisers")).toContain(moved);
    expect(await found("FR", "partners")).not.toContain(moved);
    // One entry per name: nothing left of the old name or of the deleted company.
    const { rows } = await sql<{ count: number }>`select count(*) as count from companies_search`.execute(db);
    expect(Number(rows[0]?.count)).toBe(await countRows(db, "companies"));
    for (const table of ["companies_search", "managers_search"]) {
      // Raises an error when the index and its content table disagree.
      await sql`insert into ${sql.table(table)} (${sql.ref(table)}, rank) values ('integrity-check', 1)`.execute(db);
    }
  });
});
