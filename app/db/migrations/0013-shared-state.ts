import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * What several server processes share besides the data (docs/deploy.md):
 * - `scheduled_jobs`: when each scheduled job (the publication of queued reviews) is next due. A process runs a job
 *   only in the transaction that moves its `next_run_ms` forward, so one run happens per turn whichever process or
 *   machine gets there first, and a process that dies mid-run leaves the turn to the next one (its transaction is
 *   rolled back). No author, no review: a name and the planned time of the next run.
 * - `rate_limits` (PostgreSQL only): rate-limiter-flexible's counters, in its own layout (key, points, expire in
 *   ms). UNLOGGED: counters never enter the write-ahead log, its archives or a replica, and they survive a restart
 *   of the server or a clean restart of PostgreSQL (a crash of PostgreSQL empties them). SQLite, one process, keeps
 *   its counters in memory.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("scheduled_jobs")
    .addColumn("name", "text", (col) => col.primaryKey())
    .addColumn("next_run_ms", "bigint", (col) => col.notNull())
    .execute();
  if (isPostgres(db)) {
    await sql`create unlogged table rate_limits (key varchar(255) primary key, points integer not null default 0, expire bigint)`.execute(
      db,
    );
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await db.schema.dropTable("rate_limits").execute();
  await db.schema.dropTable("scheduled_jobs").execute();
}
