import type { Kysely } from "kysely";
import { type Migration, type MigrationResultSet, Migrator } from "kysely/migration";
import * as initial from "./migrations/0001-initial.ts";

/** Listed in code, not read from a folder, so the bundled server carries them. Names sort in order. */
const migrations: Record<string, Migration> = {
  "0001-initial": initial,
};

/**
 * Applies every pending migration. Kysely's migrator takes a lock (an advisory lock on PostgreSQL), so several
 * processes starting together apply each migration exactly once.
 */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}
