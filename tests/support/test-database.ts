import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import { afterAll, afterEach, beforeEach, describe, inject } from "vitest";
import { type DatabaseHandle, type Engine, openDatabase } from "#app/db/connection.server.ts";
import { migrateToLatest } from "#app/db/migrate.server.ts";
import type { Database } from "#app/db/schema.ts";
import { env } from "#app/lib/env.server.ts";
import { sweepQueueKeys } from "#app/lib/queue-keys.server.ts";
import { testPostgresUrl } from "./postgres-url.ts";

/**
 * Integration-test databases: the same suite runs on a temporary SQLite file and on a schema of the PostgreSQL test
 * database (TEST_DATABASE_URL). Nothing skips: when PostgreSQL is unreachable, the PostgreSQL variant fails.
 *
 * Migrating costs far more than the tests themselves, so each test starts from a migrated database made cheaply:
 * on SQLite a copy of the file that vitest-global-setup.ts migrated once; on PostgreSQL the schema its suite
 * migrated at its first test, emptied (and its id sequences restarted) before each later one.
 */

export const testEngines: readonly Engine[] = ["sqlite", "postgres"];

declare module "vitest" {
  export interface ProvidedContext {
    /** A SQLite file migrated to the latest schema, for tests to copy (never to open). */
    sqliteTemplate: string;
  }
}

export type TestDatabase = DatabaseHandle & {
  /** The URL that opens this same database again (another pool, another process). */
  url: string;
  /** The PostgreSQL schema, or undefined on SQLite. */
  schema: string | undefined;
  /** Closes the handle and deletes the file or drops the schema. */
  drop: () => Promise<void>;
};

/** `url` with every connection's search_path set to `schema`, through the libpq `options` parameter. */
function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  const options = [parsed.searchParams.get("options"), `-c search_path=${schema}`].filter(Boolean).join(" ");
  parsed.searchParams.set("options", options);
  return parsed.toString();
}

async function onAdminConnection<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testPostgresUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function adminQuery(text: string): Promise<void> {
  await onAdminConnection((client) => client.query(text));
}

/**
 * Kysely's migrator lists the tables of every schema in the database, and PostgreSQL fails that query when another
 * schema is dropped meanwhile. Suites run in parallel processes, so a migration holds this advisory lock shared and
 * a drop holds it alone; each connection's end releases it. A test that migrates a schema itself holds it too: the
 * query's pg_get_serial_sequence fails with "relation does not exist" (42P01) on a table dropped meanwhile.
 */
const schemaDropLock = 7_326_411;

export function whileNoSchemaIsDropped<T>(work: () => Promise<T>): Promise<T> {
  return onAdminConnection(async (client) => {
    await client.query("select pg_advisory_lock_shared($1)", [schemaDropLock]);
    return work();
  });
}

async function dropSchema(schema: string): Promise<void> {
  await onAdminConnection(async (client) => {
    await client.query("select pg_advisory_lock($1)", [schemaDropLock]);
    await client.query(`drop schema if exists ${schema} cascade`);
  });
}

/** Destroys the queue key files of this database (named by its queue id), if it has a queue yet. */
async function destroyQueueKeys(db: DatabaseHandle["db"]): Promise<void> {
  const state = await db
    .selectFrom("queue_state")
    .select("queue_id")
    .executeTakeFirst()
    .catch(() => undefined);
  if (state) sweepQueueKeys(env().QUEUE_KEY_DIR, state.queue_id, new Set());
}

/**
 * A copied or emptied database must not share its queue id with another: key files are named after it, and the
 * test files run in parallel over one key directory.
 */
const freshQueueState = () =>
  `update queue_state set queue_id = '${randomBytes(12).toString("base64url")}', key_id = null`;

async function createPostgresDatabase(): Promise<TestDatabase> {
  // Lower-case letters, digits and underscores only, so the name needs no quoting.
  const schema = `test_${process.pid}_${randomBytes(6).toString("hex")}`;
  await adminQuery(`create schema ${schema}`);
  const url = withSearchPath(testPostgresUrl(), schema);
  const handle = openDatabase(url, { poolSize: 4 });
  return {
    ...handle,
    url,
    schema,
    drop: async () => {
      await destroyQueueKeys(handle.db);
      await handle.close();
      await dropSchema(schema);
    },
  };
}

function createSqliteDatabase(template?: string): TestDatabase {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "candor-test-"));
  const url = path.join(directory, "candor.sqlite");
  if (template) {
    fs.copyFileSync(template, url);
    const file = new SQLite(url);
    file.exec(freshQueueState());
    file.close();
  }
  const handle = openDatabase(url);
  return {
    ...handle,
    url,
    schema: undefined,
    drop: async () => {
      await destroyQueueKeys(handle.db);
      await handle.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * A fresh database on `engine`, migrated to the latest schema unless `migrate` is false (on SQLite a copy of the
 * migrated template file; on PostgreSQL a new schema that really is migrated).
 */
export async function createTestDatabase(engine: Engine, options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  if (engine === "sqlite")
    return createSqliteDatabase(options.migrate === false ? undefined : inject("sqliteTemplate"));
  const database = await createPostgresDatabase();
  if (options.migrate === false) return database;
  try {
    await whileNoSchemaIsDropped(() => migrateToLatest(database.db));
  } catch (error) {
    await database.drop();
    throw error;
  }
  return database;
}

/**
 * The statements that empty every table of the current schema (but the migrator's) and restart its id sequences,
 * as TRUNCATE ... RESTART IDENTITY would. DELETE, children before the tables they reference, because TRUNCATE
 * replaces every table's and index's files: on these nearly empty tables it measured ten times slower.
 */
async function emptyingStatements(db: Kysely<Database>): Promise<string> {
  const tables = (
    await sql<{ name: string }>`select tablename as name from pg_tables
      where schemaname = current_schema() and tablename not like 'kysely_migration%'
        and tablename <> 'queue_state'`.execute(db)
  ).rows.map((row) => row.name);
  const references = (
    await sql<{ child: string; parent: string }>`select c.relname as child, p.relname as parent
      from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
      where k.contype = 'f' and k.connamespace = current_schema()::regnamespace`.execute(db)
  ).rows.filter((row) => row.child !== row.parent);
  const sequences = (
    await sql<{
      name: string;
    }>`select sequencename as name from pg_sequences where schemaname = current_schema()`.execute(db)
  ).rows.map((row) => row.name);
  // A table goes once no table left to empty references it.
  const ordered: string[] = [];
  let left = tables;
  while (left.length > 0) {
    const ready = left.filter((table) => !references.some((row) => row.parent === table && left.includes(row.child)));
    if (ready.length === 0) throw new Error(`Foreign keys form a cycle among ${left.join(", ")}.`);
    ordered.push(...ready);
    left = left.filter((table) => !ready.includes(table));
  }
  return [
    ...ordered.map((table) => `delete from "${table}";`),
    ...sequences.map((sequence) => `alter sequence "${sequence}" restart;`),
  ].join(" ");
}

/**
 * One migrated PostgreSQL schema for a whole suite: the first `next()` creates and migrates it, every later one
 * empties its tables and restarts their id sequences, and each returns a handle of its own (a test may close it).
 */
function reusedPostgresDatabase() {
  let schemaDatabase: TestDatabase | undefined;
  let emptying = "";
  return {
    async next(): Promise<TestDatabase> {
      if (!schemaDatabase) {
        schemaDatabase = await createTestDatabase("postgres");
        emptying = await emptyingStatements(schemaDatabase.db);
        await schemaDatabase.close();
      } else {
        const schema = schemaDatabase.schema;
        const queueId = await onAdminConnection(async (client) => {
          const { rows } = await client.query<{ queue_id: string }>(`select queue_id from ${schema}.queue_state`);
          await client.query(`set search_path = ${schema}; ${emptying} ${freshQueueState()};`);
          return rows[0]?.queue_id;
        });
        if (queueId) sweepQueueKeys(env().QUEUE_KEY_DIR, queueId, new Set());
      }
      const handle = openDatabase(schemaDatabase.url, { poolSize: 4 });
      return { ...schemaDatabase, ...handle, drop: handle.close };
    },
    async drop(): Promise<void> {
      if (schemaDatabase) await dropSchema(schemaDatabase.schema!);
      schemaDatabase = undefined;
    },
  };
}

/**
 * Declares `suite` once per engine, as `title (sqlite)` and `title (postgres)`. Every test starts from its own
 * empty database, `database()`. Opening it happens in beforeEach, so when an engine is unreachable each of its
 * tests fails (a failing beforeAll would only mark them skipped).
 */
export function describeEachEngine(
  title: string,
  suite: (database: () => TestDatabase, engine: Engine) => void,
  options: { migrate?: boolean } = {},
): void {
  describe.each(testEngines)(`${title} (%s)`, (engine) => {
    const reused = engine === "postgres" && options.migrate !== false ? reusedPostgresDatabase() : undefined;
    let current: TestDatabase | undefined;
    beforeEach(async () => {
      current = reused ? await reused.next() : await createTestDatabase(engine, options);
    });
    afterEach(async () => {
      // A reused schema stays for the suite's next test: only this test's handle closes.
      await (reused ? current?.close() : current?.drop());
      current = undefined;
    });
    afterAll(() => reused?.drop());
    suite(() => {
      if (!current) throw new Error(`The ${engine} test database is not open.`);
      return current;
    }, engine);
  });
}

/** The tables of the database (on PostgreSQL, of the current schema), sorted by name. */
export async function tableNames(db: Kysely<Database>, engine: Engine): Promise<string[]> {
  const query =
    engine === "sqlite"
      ? sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`
      : sql<{ name: string }>`select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = current_schema() and c.relkind = 'r'`;
  return (await query.execute(db)).rows.map((row) => row.name).sort();
}

/** The columns of `table`, in the order the table declares them. */
export async function columnNames(db: Kysely<Database>, engine: Engine, table: string): Promise<string[]> {
  const query =
    engine === "sqlite"
      ? sql<{ name: string }>`select name from pragma_table_info(${table})`
      : sql<{ name: string }>`select a.attname as name from pg_attribute a
          join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = current_schema() and c.relname = ${table} and a.attnum > 0 and not a.attisdropped
          order by a.attnum`;
  return (await query.execute(db)).rows.map((row) => row.name);
}
