import { type Kysely, sql } from "kysely";
import { runInBackground } from "#app/lib/background.server.ts";
import { logger } from "#app/lib/logger.server.ts";
import { truncateWal } from "./connection.server.ts";
import { isPostgres } from "./dialect.ts";
import type { Database } from "./schema.ts";

/**
 * Deleting a row does not erase it. SQLite's secure_delete zeroes it in the file's pages and emptying the WAL takes
 * it out of the WAL (truncateWal). PostgreSQL keeps it as a dead tuple in the table's heap file and in its indexes'
 * pages (VACUUM marks the space free but leaves the bytes), and in `pg_wal` until the segments that recorded it are
 * removed. `eraseDeleted` takes it out of all three on PostgreSQL
 * (docs/decisions/0056-erasing-deleted-rows-on-postgresql.md):
 * 1. `VACUUM FULL` of each table that held it: the table, its TOAST table and its indexes are copied, live rows
 *    only, into new files; the old files are emptied when the transaction commits (and unlinked at the next
 *    checkpoint);
 * 2. `pg_switch_wal()` closes the segment that recorded the deletion (and the rows' earlier versions), and a
 *    `CHECKPOINT` then removes every segment before the new one (in the background, right after the answer). Removed, not recycled, only with `wal_recycle = off`
 *    and nothing else keeping segments (`wal_keep_size = 0`, no replication slot behind, no archiving): the settings
 *    docs/deploy.md asks for. Both calls need the role to hold `pg_checkpoint` and EXECUTE on `pg_switch_wal`; without
 *    them the rows stay in `pg_wal` until the server's own checkpoints remove their segment, and this says so in the
 *    log.
 * It waits for the tables' locks like any VACUUM FULL and holds each table alone while copying it: readers of that
 * table wait meanwhile (milliseconds for the account tables; for the review tables, the time to copy them).
 */
export async function eraseDeleted(db: Kysely<Database>, tables: readonly ErasableTable[]): Promise<void> {
  if (!isPostgres(db)) {
    await truncateWal(db);
    return;
  }
  for (const table of tables) await sql`vacuum full ${sql.table(table)}`.execute(db);
  // A CHECKPOINT writes every page changed since the last one, which on a busy server takes a while: the answer does
  // not wait for it, shutdown does. Deletions meanwhile share the one waiting to start.
  if (walRemovalWaiting) return;
  walRemovalWaiting = true;
  runInBackground("removing the pg_wal segments that recorded erased rows", async () => {
    walRemovalWaiting = false;
    await removeWrittenWal(db);
  });
}

let walRemovalWaiting = false;

/** Closes the current pg_wal segment and checkpoints, so every segment before it is removed; true when it was. */
export async function removeWrittenWal(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ recycle: string }>`select current_setting('wal_recycle') as recycle`.execute(db);
  // A recycled segment is renamed for reuse with its old records inside: only removal erases them.
  if (rows[0]?.recycle !== "off") {
    warnOnce("wal_recycle", "erased rows stay in recycled pg_wal segments: set wal_recycle = off (docs/deploy.md)");
  }
  try {
    await sql`select pg_switch_wal()`.execute(db);
    await sql`checkpoint`.execute(db);
  } catch (error) {
    if ((error as { code?: string }).code !== "42501") throw error;
    warnOnce(
      "privileges",
      "erased rows stay in pg_wal until PostgreSQL's own checkpoints remove their segment: grant this role " +
        "pg_checkpoint and EXECUTE on pg_switch_wal() (docs/deploy.md)",
    );
    return false;
  }
  return rows[0]?.recycle === "off";
}

const warned = new Set<string>();

function warnOnce(topic: string, message: string): void {
  if (warned.has(topic)) return;
  warned.add(topic);
  logger.warn(message);
}

/** The tables an account's rows live in: better-auth's, its vote key, its API tokens, moderator grants, its limits. */
export const accountTables = [
  "users",
  "accounts",
  "sessions",
  "verifications",
  "two_factors",
  "vote_keys",
  "api_tokens",
  "moderators",
  "rate_limits",
] as const;

/** The tables a withdrawn review's rows live in, besides the review table of its kind. */
export const reviewSideTables = ["review_keys", "review_reports", "review_appeals", "removed_reviews"] as const;

export type ErasableTable =
  (typeof accountTables)[number] | (typeof reviewSideTables)[number] | "company_reviews" | "manager_reviews";
