import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, beforeEach, describe } from "vitest";
import { type DatabaseHandle, type Engine, openDatabase } from "./connection.server.ts";
import { env } from "#app/lib/env.server.ts";
import { sweepQueueKeys } from "#app/lib/queue-keys.server.ts";
import { migrateToLatest } from "./migrate.server.ts";

/**
 * Integration-test databases: the same suite runs on a temporary SQLite file and on a fresh schema of the
 * PostgreSQL test database. Nothing skips: when PostgreSQL is unreachable, the PostgreSQL variant fails.
 */

export const testEngines: readonly Engine[] = ["sqlite", "postgres"];

export function testPostgresUrl(): string {
  return process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
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
 * a drop holds it alone; each connection's end releases it.
 */
const schemaDropLock = 7_326_411;

function whileNoSchemaIsDropped<T>(work: () => Promise<T>): Promise<T> {
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

function createSqliteDatabase(): TestDatabase {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "candor-test-"));
  const url = path.join(directory, "candor.sqlite");
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

/** A fresh database on `engine`, migrated to the latest schema unless `migrate` is false. */
export async function createTestDatabase(engine: Engine, options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const database = engine === "postgres" ? await createPostgresDatabase() : createSqliteDatabase();
  if (options.migrate === false) return database;
  try {
    const migrate = () => migrateToLatest(database.db);
    await (engine === "postgres" ? whileNoSchemaIsDropped(migrate) : migrate());
  } catch (error) {
    await database.drop();
    throw error;
  }
  return database;
}

/**
 * Declares `suite` once per engine, as `title (sqlite)` and `title (postgres)`. Every test starts from its own
 * fresh database, `database()`. Opening it happens in beforeEach, so when an engine is unreachable each of its
 * tests fails (a failing beforeAll would only mark them skipped).
 */
export function describeEachEngine(
  title: string,
  suite: (database: () => TestDatabase, engine: Engine) => void,
  options: { migrate?: boolean } = {},
): void {
  describe.each(testEngines)(`${title} (%s)`, (engine) => {
    let current: TestDatabase | undefined;
    beforeEach(async () => {
      current = await createTestDatabase(engine, options);
    });
    afterEach(async () => {
      await current?.drop();
      current = undefined;
    });
    suite(() => {
      if (!current) throw new Error(`The ${engine} test database is not open.`);
      return current;
    }, engine);
  });
}
