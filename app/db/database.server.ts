import { env } from "#app/lib/env.server.ts";
import { logger } from "#app/lib/logger.server.ts";
import { type DatabaseHandle, openDatabase } from "./connection.server.ts";
import { migrateToLatest } from "./migrate.server.ts";

// Kept on globalThis so the dev server's module reloads reuse one connection instead of leaking pools.
const holder = globalThis as typeof globalThis & { __candorDatabase?: DatabaseHandle };

/** Opens the configured database and applies pending migrations. Called once at start-up. */
export async function startDatabase(): Promise<DatabaseHandle> {
  if (holder.__candorDatabase) return holder.__candorDatabase;
  const { DATABASE_URL, DATABASE_POOL_SIZE } = env();
  const handle = openDatabase(DATABASE_URL, { poolSize: DATABASE_POOL_SIZE });
  const { results = [] } = await migrateToLatest(handle.db);
  for (const result of results) logger.info({ migration: result.migrationName, status: result.status }, "migration");
  holder.__candorDatabase = handle;
  return handle;
}

/** The process-wide database, for loaders, actions and domain code. */
export function database(): DatabaseHandle {
  const handle = holder.__candorDatabase;
  if (!handle) throw new Error("The database is not started: call startDatabase() first.");
  return handle;
}

export async function stopDatabase(): Promise<void> {
  const handle = holder.__candorDatabase;
  holder.__candorDatabase = undefined;
  await handle?.close();
}
