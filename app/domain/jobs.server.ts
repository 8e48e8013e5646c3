import type { Kysely, Transaction } from "kysely";
import type { Database } from "#app/db/schema.ts";

/**
 * Turns of scheduled jobs (the publication of queued reviews), shared by every process and machine on one database
 * (`scheduled_jobs`, migration 0013). A job's row holds when it is next due. Whoever runs a turn first moves that
 * time forward in the same transaction as the job's own work: the others then find it not due (on PostgreSQL the
 * row lock makes a second claimer wait for the first to commit, then see the new time), and a process that dies
 * mid-job leaves its transaction rolled back, the turn unclaimed, for the next process to take. The peer ranking
 * claims its turn in a transaction of its own, since its work is many short ones (decision 0017): a process that dies
 * mid-run leaves the turn taken and the unfinished group first for the next turn.
 */

export type Turn = { job: string; nextInMs: number };

/**
 * True when `job` is due. A job never seen before is first planned `firstInMs` from now (not run at once: a
 * schedule that starts with every start of a process would keep its rhythm).
 */
export async function isDue(db: Kysely<Database>, job: string, firstInMs: number): Promise<boolean> {
  const row = await db.selectFrom("scheduled_jobs").select("next_run_ms").where("name", "=", job).executeTakeFirst();
  if (row) return Number(row.next_run_ms) <= Date.now();
  await db
    .insertInto("scheduled_jobs")
    .values({ name: job, next_run_ms: Date.now() + firstInMs })
    .onConflict((conflict) => conflict.column("name").doNothing())
    .execute();
  return false;
}

/** Within the transaction that runs the job: takes the turn when it is still due. */
export async function claimTurn(trx: Transaction<Database>, { job, nextInMs }: Turn): Promise<boolean> {
  const now = Date.now();
  const claimed = await trx
    .updateTable("scheduled_jobs")
    .set({ next_run_ms: now + nextInMs })
    .where("name", "=", job)
    .where("next_run_ms", "<=", now)
    .returning("name")
    .executeTakeFirst();
  return claimed !== undefined;
}
