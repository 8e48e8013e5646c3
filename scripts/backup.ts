// `npm run db:backup -- FILE` and `npm run db:restore -- FILE` (docs/deploy.md, backups).
// Backup: SQLite through its online backup API (a consistent copy while the server runs), PostgreSQL with pg_dump's
// custom format (the schema DATABASE_URL selects; rate-limit counters left out). The queue's key files are never
// backed up: reviews waiting at backup time cannot be read from any backup.
// Restore: into a new, empty DATABASE_URL (a path that does not exist yet, or a fresh PostgreSQL database), then
// pending migrations run and the restored database gets a publication queue of its own (a new queue id and key), so
// that a copy started beside the live site never touches the live queue's keys. Queued reviews whose key is in
// QUEUE_KEY_DIR are sealed again under the copy's key; those whose key is gone could never be opened and are dropped.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import SQLite from "better-sqlite3";
import pg from "pg";
import { engineOf, openDatabase } from "#app/db/connection.server.ts";
import { migrateToLatest } from "#app/db/migrate.server.ts";
import { newQueueIdentity, publicationSettings } from "#app/domain/publication.server.ts";
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

async function withClient<T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The schema DATABASE_URL selects (its search_path), for pg_dump. */
async function currentSchema(): Promise<string> {
  const { rows } = await withClient(url, (client) =>
    client.query<{ schema: string }>("select current_schema() as schema"),
  );
  return rows[0]!.schema;
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
    await withClient(target.url, (db) => db.query("create extension if not exists pg_trgm schema public"));
    // A new database has a schema `public` already (owned by its owner): a dump of `public` must not create it
    // again, or pg_restore stops at once. The dump's list of contents leaves out the schemas the target has.
    const existing = new Set(
      (
        await withClient(target.url, (db) => db.query<{ name: string }>("select nspname as name from pg_namespace"))
      ).rows.map((row) => row.name),
    );
    const contents = execFileSync("pg_restore", ["--list", file], { encoding: "utf8" })
      .split("\n")
      .filter((line) => {
        const schema = /^\d+; \d+ \d+ (?:SCHEMA - |COMMENT - SCHEMA )(\S+) /.exec(line)?.[1];
        return schema === undefined || !existing.has(schema);
      });
    const listDir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-restore-"));
    try {
      fs.writeFileSync(path.join(listDir, "contents"), contents.join("\n"));
      execFileSync(
        "pg_restore",
        [
          "--no-owner",
          "--exit-on-error",
          `--use-list=${path.join(listDir, "contents")}`,
          `--dbname=${target.url}`,
          file,
        ],
        { env: target.env, stdio: "inherit" },
      );
    } finally {
      fs.rmSync(listDir, { recursive: true, force: true });
    }
  }
  const handle = openDatabase(url);
  try {
    await migrateToLatest(handle.db);
    const { kept, dropped } = await newQueueIdentity(handle.db, publicationSettings());
    console.log(
      `Restored ${file} into the ${engine} database, with a publication queue of its own.` +
        (kept > 0 ? ` ${kept} queued reviews were sealed again under its new key.` : "") +
        (dropped > 0 ? ` ${dropped} queued reviews were dropped: their key is not in QUEUE_KEY_DIR.` : ""),
    );
  } finally {
    await handle.close();
  }
}
