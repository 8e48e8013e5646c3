// Benchmark datasets: SQLite files of N demo companies, made once and kept under ./data/bench/.
import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import cliProgress from "cli-progress";
import { openDatabase, searchUpkeep } from "#app/db/connection.server.ts";
import { type DemoBatch, demoFaker, makeDemoBatch } from "#app/db/demo-data.server.ts";
import { migrateToLatest } from "#app/db/migrate.server.ts";
import { root } from "../scripts/reliability/support.ts";

export const datasetDir = path.join(root, "data/bench");
const seed = 20261122;
const batchSize = 2_000;

export type DatasetInfo = {
  companies: number;
  managers: number;
  companyReviews: number;
  managerReviews: number;
  seconds: number;
};

function datasetFile(companies: number): string {
  return path.join(datasetDir, `companies-${companies}.sqlite`);
}

/**
 * The name-search indexes in one segment each, as the server's checkpoint thread keeps them (decision 0043); nothing
 * to do for an index already merged.
 */
function mergeSearchIndexes(sqlite: SQLite.Database): void {
  for (const table of searchUpkeep.tables) sqlite.exec(`insert into ${table} (${table}) values ('optimize')`);
}

/**
 * Applies pending migrations (a dataset made before a new migration gets it here, once), and merges the name-search
 * indexes of a dataset made before they were.
 */
async function migrate(file: string): Promise<void> {
  const handle = openDatabase(file);
  try {
    await migrateToLatest(handle.db);
  } finally {
    await handle.close();
  }
  const sqlite = new SQLite(file);
  try {
    mergeSearchIndexes(sqlite);
  } finally {
    sqlite.close();
  }
}

/**
 * The dataset of `companies` demo companies (about 10 company reviews each, a few with thousands; 0–3 managers
 * each), made with the same generator as `npm run db:seed` but written with prepared statements in one
 * transaction, secondary indexes built afterwards. Returns the file and what it holds.
 */
export async function ensureDataset(companies: number): Promise<{ file: string; info: DatasetInfo }> {
  const file = datasetFile(companies);
  const infoFile = `${file}.json`;
  if (fs.existsSync(file) && fs.existsSync(infoFile)) {
    await migrate(file);
    return { file, info: JSON.parse(fs.readFileSync(infoFile, "utf8")) as DatasetInfo };
  }
  fs.mkdirSync(datasetDir, { recursive: true });
  const partial = `${file}.partial`;
  for (const leftover of [partial, `${partial}-wal`, `${partial}-shm`]) fs.rmSync(leftover, { force: true });
  await migrate(partial);

  const started = performance.now();
  const sqlite = new SQLite(partial);
  // No WAL for the load (every page would be written twice); better-sqlite3 refuses OFF, MEMORY is the next best.
  sqlite.pragma("journal_mode = DELETE");
  sqlite.pragma("journal_mode = MEMORY");
  sqlite.pragma("synchronous = OFF");
  sqlite.pragma("locking_mode = EXCLUSIVE");
  sqlite.pragma("cache_size = -4000000");
  // Secondary indexes are dropped for the load and built once at the end: much faster than row by row.
  const indexes = sqlite
    .prepare<[], { name: string; sql: string }>(
      "select name, sql from sqlite_master where type = 'index' and sql is not null and tbl_name in " +
        "('companies', 'company_reviews', 'managers', 'manager_companies', 'manager_reviews')",
    )
    .all();
  for (const index of indexes) sqlite.exec(`drop index ${index.name}`);

  const statements = new Map<keyof DemoBatch, SQLite.Statement>();
  const tables: Record<keyof DemoBatch, string> = {
    companies: "companies",
    companyReviews: "company_reviews",
    managers: "managers",
    links: "manager_companies",
    managerReviews: "manager_reviews",
    ratingCounts: "rating_counts",
    companyMonths: "company_months",
    managerMonths: "manager_months",
    tagCounts: "tag_counts",
  };
  const insertAll = sqlite.transaction((batch: DemoBatch) => {
    for (const key of Object.keys(tables) as Array<keyof DemoBatch>) {
      const rows = batch[key] as Array<Record<string, unknown>>;
      if (rows.length === 0) continue;
      let statement = statements.get(key);
      if (!statement) {
        const columns = Object.keys(rows[0]!);
        statement = sqlite.prepare(
          `insert into ${tables[key]} (${columns.join(", ")}) values (${columns.map((c) => `@${c}`).join(", ")})`,
        );
        statements.set(key, statement);
      }
      for (const row of rows) statement.run(row);
    }
  });

  const faker = await demoFaker(seed);
  const ids = { company: 1, manager: 1 };
  const info: DatasetInfo = { companies: 0, managers: 0, companyReviews: 0, managerReviews: 0, seconds: 0 };
  const bar = new cliProgress.SingleBar(
    {
      format: `  dataset ${companies.toLocaleString("en")} |{bar}| {percentage}% · {value}/{total} companies · {eta_formatted} left`,
      etaBuffer: 50,
      // Without a terminal (CI logs, a pipe), a line every 10 s instead of a bar.
      noTTYOutput: true,
      notTTYSchedule: 10_000,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(companies, 0);
  for (let done = 0; done < companies; done += batchSize) {
    const batch = makeDemoBatch(faker, Math.min(batchSize, companies - done), ids);
    insertAll(batch);
    info.companies += batch.companies.length;
    info.managers += batch.managers.length;
    info.companyReviews += batch.companyReviews.length;
    info.managerReviews += batch.managerReviews.length;
    bar.update(info.companies);
  }
  bar.stop();
  console.log(`  building ${indexes.length} indexes…`);
  for (const index of indexes) sqlite.exec(index.sql);
  mergeSearchIndexes(sqlite);
  sqlite.exec("analyze");
  sqlite.pragma("locking_mode = NORMAL");
  sqlite.pragma("journal_mode = WAL");
  sqlite.close();
  info.seconds = Math.round((performance.now() - started) / 1000);
  fs.renameSync(partial, file);
  fs.writeFileSync(infoFile, `${JSON.stringify(info, null, 2)}\n`);
  return { file, info };
}

/**
 * A throwaway copy of a dataset for one server run (the benchmark writes reviews into it), read through once so the
 * operating system's cache holds it as it holds the file of a server that has run for a while: copied, the 1M file
 * (16.7 GB) was only partly in the cache of a 24 GB machine, and its server waited on the disk for new search terms
 * (docs/performance.md, "New terms at 1M").
 */
export function copyDataset(file: string, into: string): string {
  const copy = path.join(into, path.basename(file));
  fs.copyFileSync(file, copy);
  const handle = fs.openSync(copy, "r");
  try {
    const buffer = Buffer.allocUnsafe(8 << 20);
    while (fs.readSync(handle, buffer, 0, buffer.length, null) > 0);
  } finally {
    fs.closeSync(handle);
  }
  return copy;
}
