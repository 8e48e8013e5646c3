import { type Kysely, sql } from "kysely";
import { type Migration, type MigrationResultSet, Migrator } from "kysely/migration";
import { isPostgres } from "./dialect.ts";
import * as initial from "./migrations/0001-initial.ts";
import * as accounts from "./migrations/0002-accounts.ts";
import * as apiTokens from "./migrations/0003-api-tokens.ts";

/** Listed in code, not read from a folder, so the bundled server carries them. Names sort in order. */
const migrations: Record<string, Migration> = {
  "0001-initial": initial,
  "0002-accounts": accounts,
  "0003-api-tokens": apiTokens,
};

/**
 * Applies every pending migration. Kysely's migrator takes a lock (an advisory lock on PostgreSQL), so several
 * processes starting together apply each migration exactly once.
 */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableSchema: await currentSchema(db),
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}

/**
 * Kysely, given no schema, takes a kysely_migration table in any schema as its own; pinned to the schema that
 * search_path selects, one PostgreSQL database can hold several Candor schemas (tests, staging).
 */
async function currentSchema(db: Kysely<any>): Promise<string | undefined> {
  if (!isPostgres(db)) return undefined;
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema ?? undefined;
}
