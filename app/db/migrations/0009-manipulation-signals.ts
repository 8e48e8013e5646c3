import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * Manipulation signals (docs/moderation.md, decision 0015). Frozen: it spells out its own columns and codes.
 *
 * - `subject_alerts`: a signal that fired for a company or manager (a volume spike, a rating shift, near-duplicate
 *   texts), with the figures that made it fire and the day. It names a subject, never a review or an account.
 * - `alert_decisions`: append-only; a moderator's release of an alert, by pseudonym, with a statement and the day. An
 *   alert without one is open: its subject's new reviews wait in the sealed queue.
 * - `signal_scans`: the days the scheduled scan ran, so that two processes run each day's scan once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const id = (col: any) => (isPostgres(db) ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey());
  const isoDate = (name: string) => sql`${sql.ref(name)} like '____-__-__'`;
  await db.schema
    .createTable("subject_alerts")
    .addColumn("id", "integer", id)
    .addColumn("subject", "text", (col) => col.notNull().check(sql`subject in ('company', 'manager')`))
    .addColumn("subject_id", "integer", (col) => col.notNull())
    .addColumn("signal", "text", (col) =>
      col.notNull().check(sql`signal in ('volume-spike', 'rating-shift', 'near-duplicates')`),
    )
    .addColumn("detail", "text", (col) => col.notNull().check(sql`length(detail) <= 500`))
    .addColumn("raised_on", "text", (col) => col.notNull().check(isoDate("raised_on")))
    .execute();
  await db.schema
    .createIndex("subject_alerts_subject")
    .on("subject_alerts")
    .columns(["subject", "subject_id"])
    .execute();

  await db.schema
    .createTable("alert_decisions")
    .addColumn("id", "integer", id)
    .addColumn("alert_id", "integer", (col) => col.notNull().unique())
    .addColumn("statement", "text", (col) => col.notNull().check(sql`length(statement) between 1 and 2000`))
    .addColumn("moderator", "text", (col) => col.notNull())
    .addColumn("decided_on", "text", (col) => col.notNull().check(isoDate("decided_on")))
    .execute();

  await db.schema
    .createTable("signal_scans")
    .addColumn("day", "text", (col) => col.primaryKey().check(isoDate("day")))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["signal_scans", "alert_decisions", "subject_alerts"]) {
    await db.schema.dropTable(table).execute();
  }
}
