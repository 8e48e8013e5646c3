// `npm run db:backup -- FILE` and `npm run db:restore -- FILE` (docs/deploy.md, backups).
// Backup: SQLite through its online backup API (a consistent copy while the server runs), PostgreSQL with pg_dump's
// custom format (the schema DATABASE_URL selects; rate-limit counters left out). The queue's key files are never
// backed up: reviews waiting at backup time cannot be read from any backup.
// Restore: into a new, empty DATABASE_URL (a path that does not exist yet, or a fresh PostgreSQL database), then
// pending migrations run and a queue whose key is not in QUEUE_KEY_DIR is emptied (it could never be opened).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import SQLite from "better-sqlite3";
import pg from "pg";
import { engineOf, openDatabase } from "#app/db/connection.server.ts";
import { migrateToLatest } from "#app/db/migrate.server.ts";
import { forgetUnreadableQueue, publicationSettings } from "#app/domain/publication.server.ts";
import { env } from "#app/lib/env.server.ts";

const usage = `Usage: npm run db:backup -- FILE     copies the database of DATABASE_URL into FILE
       npm run db:restore -- FILE    restores FILE into DATABASE_URL, which must be new and empty`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { help: { type: "boolean", short: "h" }, restore: { type: "boolean", default: false } },
});
const file = positionals[0];
if (values.help || !file) {
  console.log(usage);
  process.exit(values.help ? 0 : 2);
}
const url = env().DATABASE_URL;
const engine = engineOf(url);

/** The schema DATABASE_URL selects (its search_path), for pg_dump. */
async function currentSchema(): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ schema: string }>("select current_schema() as schema")).rows[0]!.schema;
  } finally {
    await client.end();
  }
}

/** pg_dump and pg_restore take a libpq URL: the search_path travels in PGOPTIONS instead of the URL. */
function libpqTarget(): { url: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const options = parsed.searchParams.get("options");
  parsed.search = "";
  return { url: parsed.href, env: { ...process.env, ...(options ? { PGOPTIONS: options } : {}) } };
}

if (!values.restore) {
  if (engine === "sqlite") {
    const source = new SQLite(url.replace(/^file:/, ""), { readonly: true, fileMustExist: true });
    await source.backup(file);
    source.close();
  } else {
    const schema = await currentSchema();
    const target = libpqTarget();
    execFileSync(
      "pg_dump",
      ["--format=custom", "--no-owner", "--no-unlogged-table-data", `--schema=${schema}`, `--file=${file}`, target.url],
      { env: target.env, stdio: "inherit" },
    );
  }
  console.log(`Backed up the ${engine} database to ${file} (${fs.statSync(file).size} bytes).`);
} else {
  if (engine === "sqlite") {
    const destination = url.replace(/^file:/, "");
    if (fs.existsSync(destination)) throw new Error(`${destination} exists: restore into a new path.`);
    fs.mkdirSync(path.dirname(path.resolve(destination)), { recursive: true });
    fs.copyFileSync(file, destination);
  } else {
    const target = libpqTarget();
    // A dump of one schema leaves out the extensions; the name search's trigram indexes need pg_trgm, in public
    // (migration 0004), before they are restored.
    const client = new pg.Client({ connectionString: target.url });
    await client.connect();
    await client.query("create extension if not exists pg_trgm schema public").finally(() => client.end());
    execFileSync("pg_restore", ["--no-owner", "--exit-on-error", `--dbname=${target.url}`, file], {
      env: target.env,
      stdio: "inherit",
    });
  }
  const handle = openDatabase(url);
  try {
    await migrateToLatest(handle.db);
    const dropped = await forgetUnreadableQueue(handle.db, publicationSettings());
    console.log(
      `Restored ${file} into the ${engine} database.` +
        (dropped > 0 ? ` ${dropped} queued reviews were dropped: their key is not in QUEUE_KEY_DIR.` : ""),
    );
  } finally {
    await handle.close();
  }
}
