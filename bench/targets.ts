// What the benchmark asks for (drawn from the dataset itself) and how it checks the reviews it wrote.
import SQLite from "better-sqlite3";
import pg from "pg";
import { engineOf, openDatabase } from "#app/db/connection.server.ts";
import { syncIdSequence } from "#app/db/dialect.ts";
import { migrateToLatest } from "#app/db/migrate.server.ts";
import { checkAggregates, readDatabase } from "#tests/support/server.ts";
import { newMarker } from "../scripts/reliability/support.ts";
import { seededRandom } from "#tests/support/seeded-random.ts";

export type Target = {
  searches: Array<{ country: string; term: string }>;
  /** Names and countries of 20,000 random companies, from which new search terms are cut. */
  names: Array<{ country: string; name: string }>;
  companyIds: number[];
  managerIds: number[];
  reviewCompanyIds: number[];
};

/**
 * Search terms are 3–6 letter pieces of real company names of the dataset, each with its company's country;
 * company pages start with the most-reviewed companies (asked for most often), then random ones.
 */
export function targetsOf(file: string): Target {
  const sqlite = new SQLite(file, { readonly: true });
  try {
    const next = seededRandom(20261122); // every run asks for the same things
    const companyCount = sqlite.prepare<[], { n: number }>("select max(id) as n from companies").get()!.n;
    const managerCount = sqlite.prepare<[], { n: number }>("select max(id) as n from managers").get()!.n;
    const company = sqlite.prepare<[number], { folded_name: string; country: string }>(
      "select folded_name, country from companies where id = ?",
    );
    const searches: Target["searches"] = [];
    while (searches.length < 1000) {
      const row = company.get(1 + Math.floor(next() * companyCount));
      if (!row) continue;
      const length = 3 + Math.floor(next() * 4);
      const start = Math.floor(next() * Math.max(1, row.folded_name.length - length));
      const term = row.folded_name.slice(start, start + length).trim();
      if (term.length >= 3) searches.push({ country: row.country, term });
    }
    const busiest = sqlite
      .prepare<[], { id: number }>("select id from companies order by review_count desc limit 10")
      .all()
      .map((row) => row.id);
    const randomIds = (max: number, count: number) => Array.from({ length: count }, () => 1 + Math.floor(next() * max));
    const names: Target["names"] = [];
    while (names.length < 20_000) {
      const row = company.get(1 + Math.floor(next() * companyCount));
      if (row) names.push({ country: row.country, name: row.folded_name });
    }
    return {
      searches,
      names,
      companyIds: [...busiest, ...randomIds(companyCount, 490)],
      managerIds: randomIds(managerCount, 500),
      reviewCompanyIds: randomIds(companyCount, 1000),
    };
  } finally {
    sqlite.close();
  }
}

/**
 * The start of every marker of one run: "benchmarker" and 8 letters of its own, so that reviews a kept PostgreSQL
 * schema holds from earlier runs are not counted as this run's.
 */
export const markerPrefix = `benchmarker${newMarker().slice("crashmarker".length, "crashmarker".length + 8)}`;

/**
 * How often each benchmark marker appears in the reviews of these companies, and how many of the companies have
 * aggregates (count, sums, yes counts) that differ from a fresh aggregation of their rows.
 */
export async function storedReviews(
  databaseUrl: string,
  ids: number[],
): Promise<{ markers: Map<string, number>; mismatches: number }> {
  const unique = [...new Set(ids)];
  const markerSql = `select review_text from company_reviews where company_id in (${unique.join(",")})
    and review_text like '${markerPrefix}%'`;
  let texts: string[];
  if (engineOf(databaseUrl) === "sqlite") {
    const sqlite = new SQLite(databaseUrl, { readonly: true });
    try {
      texts = sqlite
        .prepare<[], { review_text: string }>(markerSql)
        .all()
        .map((row) => row.review_text);
    } finally {
      sqlite.close();
    }
  } else {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      texts = (await client.query<{ review_text: string }>(markerSql)).rows.map((row) => row.review_text);
    } finally {
      await client.end();
    }
  }
  const { mismatches } = await checkAggregates(
    { engine: engineOf(databaseUrl), url: databaseUrl },
    { companies: unique },
  );
  const markers = new Map<string, number>();
  for (const text of texts) {
    const marker = text.split(" ", 1)[0]!;
    markers.set(marker, (markers.get(marker) ?? 0) + 1);
  }
  return { markers, mismatches: mismatches.length };
}

/** The helpful votes of each published review of these companies (at most `limit` reviews), by review id. */
export async function helpfulCounts(databaseUrl: string, ids: number[], limit = 500): Promise<Map<string, number>> {
  const unique = [...new Set(ids)];
  const rows = await readDatabase(
    { engine: engineOf(databaseUrl), url: databaseUrl },
    `select id, helpful_votes from company_reviews where company_id in (${unique.join(",")}) order by id limit ${limit}`,
  );
  return new Map(rows.map((row) => [String(row.id), Number(row.helpful_votes)]));
}

const copiedTables = [
  "companies",
  "company_reviews",
  "managers",
  "manager_companies",
  "manager_reviews",
  "rating_counts",
  "tag_counts",
  "company_months",
  "manager_months",
] as const;

/** The address of database `name` on the server of `adminUrl`. */
function databaseUrlOf(adminUrl: string, name: string): URL {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  url.search = "?application_name=candor-bench";
  return url;
}

/** Whether database `name` exists and holds a finished copy (its `bench_complete` table). */
async function completeDatabase(admin: pg.Client, adminUrl: string, name: string): Promise<boolean> {
  const found = await admin.query("select 1 from pg_database where datname = $1", [name]);
  if (!found.rowCount) return false;
  const client = new pg.Client({ connectionString: databaseUrlOf(adminUrl, name).href });
  await client.connect();
  try {
    const table = await client.query("select 1 from information_schema.tables where table_name = 'bench_complete'");
    return Boolean(table.rowCount);
  } finally {
    await client.end();
  }
}

/**
 * The SQLite dataset copied into the PostgreSQL database `candor_bench_<size>` on the server of `adminUrl`, made once
 * and kept as the template of each run's copy (`copyPostgres`), as the SQLite file is: a run never writes into it.
 * Secondary indexes are built after the copy. Answers the template's name.
 */
export async function loadPostgres(file: string, adminUrl: string, size: number): Promise<string> {
  const name = `candor_bench_${size}`;
  const schema = "public";
  const url = databaseUrlOf(adminUrl, name);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const sqlite = new SQLite(file, { readonly: true });
    const expected = sqlite.prepare<[], { n: number }>("select count(*) as n from companies").get()!.n;
    if (await completeDatabase(admin, adminUrl, name)) {
      console.log(`  reusing database ${name}`);
      sqlite.close();
      const handle = openDatabase(url.href);
      await migrateToLatest(handle.db);
      await handle.close();
      return name;
    }
    await admin.query(`drop database if exists ${name}`);
    await admin.query(`create database ${name}`);
    const handle = openDatabase(url.href);
    await migrateToLatest(handle.db);
    await handle.close();

    const client = new pg.Client({ connectionString: url.href });
    await client.connect();
    // Indexes that back no constraint (primary keys and unique constraints stay, the rest are built afterwards).
    const indexes = await client.query<{ indexname: string; indexdef: string }>(
      `select i.relname as indexname, pg_get_indexdef(i.oid) as indexdef
         from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
         join pg_namespace n on n.oid = t.relnamespace
        where n.nspname = $1 and t.relname = any($2)
          and not exists (select 1 from pg_constraint c where c.conindid = i.oid)`,
      [schema, copiedTables],
    );
    for (const index of indexes.rows) await client.query(`drop index ${schema}.${index.indexname}`);
    for (const table of copiedTables) {
      const total = sqlite.prepare<[], { n: number }>(`select count(*) as n from ${table}`).get()!.n;
      const rows = sqlite.prepare(`select * from ${table}`).iterate() as IterableIterator<Record<string, unknown>>;
      let columns: string[] | undefined;
      let chunk: unknown[][] = [];
      let done = 0;
      const flush = async () => {
        if (!columns || chunk.length === 0) return;
        // unnest of one array per column: one statement per chunk, whatever the number of rows.
        const types = await columnTypes(client, schema, table, columns);
        const arrays = columns.map((_, index) => chunk.map((row) => row[index]));
        await client.query(
          `insert into ${table} (${columns.join(", ")}) select * from unnest(${columns
            .map((column, index) => `$${index + 1}::${types[column]}[]`)
            .join(", ")})`,
          arrays,
        );
        done += chunk.length;
        chunk = [];
        process.stdout.write(`\r  ${table}: ${done.toLocaleString("en")} of ${total.toLocaleString("en")} rows`);
      };
      await client.query("begin");
      for (const row of rows) {
        columns ??= Object.keys(row);
        chunk.push(columns.map((column) => row[column]));
        if (chunk.length === 20_000) await flush();
      }
      await flush();
      await client.query("commit");
      process.stdout.write("\n");
    }
    sqlite.close();
    console.log(`  building ${indexes.rows.length} indexes…`);
    for (const index of indexes.rows) await client.query(index.indexdef);
    await client.query("analyze");
    await client.query("create table bench_complete (companies integer)");
    await client.query("insert into bench_complete values ($1)", [expected]);
    await client.end();
    const synced = openDatabase(url.href);
    await syncIdSequence(synced.db, "companies");
    await syncIdSequence(synced.db, "managers");
    await synced.close();
    return name;
  } finally {
    await admin.end();
  }
}

/** Whether a process with this id is running (signal 0 only asks; EPERM means it runs as another user). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * A throwaway copy of the template database `template` for one run (the benchmark writes reviews, accounts and the
 * publication queue's keys into it, which a later run with another secret and key folder could not use), made by
 * PostgreSQL as a file copy. Answers its address and what drops it. The copies of runs that ended without dropping
 * theirs (an error, a kill) are dropped first: each is named after its run's process, which is gone.
 */
export async function copyPostgres(
  adminUrl: string,
  template: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${template}_run_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ datname: string }>(
      "select datname from pg_database where starts_with(datname, $1)",
      [`${template}_run_`],
    );
    for (const { datname } of rows) {
      const pid = Number(datname.slice(`${template}_run_`.length));
      if (Number.isInteger(pid) && pid !== process.pid && !isRunning(pid)) {
        await admin.query(`drop database if exists ${datname} with (force)`);
      }
    }
    await admin.query(`drop database if exists ${name}`);
    await admin.query(`create database ${name} template ${template}`);
  } finally {
    await admin.end();
  }
  return {
    url: databaseUrlOf(adminUrl, name).href,
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

const typeCache = new Map<string, Record<string, string>>();

async function columnTypes(client: pg.Client, schema: string, table: string, columns: string[]) {
  const cached = typeCache.get(table);
  if (cached) return cached;
  const { rows } = await client.query<{ column_name: string; data_type: string }>(
    `select column_name, data_type from information_schema.columns where table_schema = $1 and table_name = $2`,
    [schema, table],
  );
  const types = Object.fromEntries(rows.map((row) => [row.column_name, row.data_type]));
  for (const column of columns) if (!types[column]) throw new Error(`no column ${table}.${column} in PostgreSQL`);
  typeCache.set(table, types);
  return types;
}

/**
 * Search terms never asked before in this run, as people type them: pieces of real names, a few common (3–4 letters,
 * 30%), rare (5–6 letters, 40%), two-letter (15%), and terms that match nothing (15%), each in its company's country.
 * Each (country, term) is given once, whatever its case; `seen` is shared by every scenario that claims new terms,
 * and starts with `asked`, the fixed terms other scenarios ask (and the page cache keeps).
 */
export function newSearchTerms(
  names: Target["names"],
  seen: Set<string>,
  asked: Target["searches"] = [],
): () => { country: string; term: string } {
  const keyOf = ({ country, term }: { country: string; term: string }) => `${country}:${term.toLowerCase()}`;
  for (const search of asked) seen.add(keyOf(search));
  const countries = [...new Set(names.map((entry) => entry.country))];
  const random = (below: number) => Math.floor(Math.random() * below);
  const piece = (name: string, length: number) => {
    const start = random(Math.max(1, name.length - length + 1));
    return name.slice(start, start + length);
  };
  function candidate(): { country: string; term: string } {
    const roll = Math.random();
    if (roll < 0.15) {
      const letters = "qxzjvkw";
      const term = Array.from({ length: 5 }, () => letters[random(letters.length)]).join("");
      return { country: countries[random(countries.length)]!, term };
    }
    const { country, name } = names[random(names.length)]!;
    const length = roll < 0.3 ? 2 : roll < 0.6 ? 3 + random(2) : 5 + random(2);
    return { country, term: piece(name, length) };
  }
  return () => {
    for (;;) {
      const next = candidate();
      const key = keyOf(next);
      if (next.term.trim().length < 2 || next.term !== next.term.trim() || seen.has(key)) continue;
      seen.add(key);
      return next;
    }
  };
}
