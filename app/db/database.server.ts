import { env } from "#app/lib/env.server.ts";
import { logger } from "#app/lib/logger.server.ts";
import { type DatabaseHandle, openDatabase } from "./connection.server.ts";
import { migrateToLatest } from "./migrate.server.ts";
import { isDatabaseUnavailable } from "./unavailable.server.ts";

// Kept on globalThis so the dev server's module reloads reuse one connection instead of leaking pools.
const holder = globalThis as typeof globalThis & { __candorDatabase?: DatabaseHandle };

/**
 * Runs `work` until the database answers: a server that starts while its database is down (or still starting) waits
 * for it, logging each retry, instead of exiting and crash-looping. Any other error ends the start-up at once.
 */
async function untilReachable<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      const waitMs = Math.min(attempt, 5) * 1000;
      logger.warn({ err: error, attempt, waitMs }, "the database is unavailable at start-up; retrying");
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

/** Opens the configured database and applies pending migrations. Called once at start-up. */
export async function startDatabase(): Promise<DatabaseHandle> {
  if (holder.__candorDatabase) return holder.__candorDatabase;
  const { DATABASE_URL, DATABASE_READ_URL, DATABASE_POOL_SIZE } = env();
  const handle = openDatabase(DATABASE_URL, {
    poolSize: DATABASE_POOL_SIZE,
    readUrl: DATABASE_READ_URL,
    backgroundCheckpoints: true,
  });
  const { results = [] } = await untilReachable(() => migrateToLatest(handle.db));
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
