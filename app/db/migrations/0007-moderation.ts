import { type CreateTableBuilder, type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * Moderation in the open (docs/moderation.md). Frozen: it spells out its own columns and codes.
 *
 * - `moderators`: accounts granted a role from the command line, each shown by a pseudonym, never by e-mail.
 * - `review_reports`: a reader's report of a review. It names the review and the reason, never the review's author;
 *   the reporter's contact address, when given, is erased once the decision notice is sent.
 * - `moderation_decisions`: append-only; every keep, remove and restore, by whom (pseudonym), why and when (a day).
 * - `removed_reviews`: the current state those decisions add up to (which reviews are removed now), kept in the same
 *   transaction as each decision so pages and aggregates need no replay.
 */

const reasons = [
  "not-first-hand",
  "private-person",
  "harassment",
  "crime-as-fact",
  "confidential",
  "fake",
  "spam",
  "duplicate",
  "legal-order",
];

function withId<T extends string>(db: Kysely<any>, table: CreateTableBuilder<T, never>) {
  return table.addColumn("id", "integer", (col) =>
    isPostgres(db) ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey(),
  );
}

function oneOf(name: string, values: readonly string[]) {
  return sql`${sql.ref(name)} in (${sql.join(values.map((value) => sql.lit(value)))})`;
}

function isoDate(name: string) {
  return sql`${sql.ref(name)} like '____-__-__'`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("moderators")
    .addColumn("user_id", "text", (col) => col.primaryKey())
    .addColumn("role", "text", (col) => col.notNull().check(oneOf("role", ["moderator", "admin"])))
    .addColumn("pseudonym", "text", (col) => col.notNull().unique())
    .execute();

  await withId(db, db.schema.createTable("review_reports"))
    .addColumn("review_id", "text", (col) => col.notNull())
    .addColumn("reason", "text", (col) => col.notNull().check(oneOf("reason", reasons)))
    .addColumn("explanation", "text", (col) => col.notNull().check(sql`length(explanation) <= 2000`))
    .addColumn("contact_email", "text")
    .addColumn("received_on", "text", (col) => col.notNull().check(isoDate("received_on")))
    .addColumn("decision_id", "integer")
    .execute();
  await db.schema
    .createIndex("review_reports_open")
    .on("review_reports")
    .columns(["decision_id", "received_on", "id"])
    .execute();

  await withId(db, db.schema.createTable("moderation_decisions"))
    .addColumn("review_id", "text", (col) => col.notNull())
    .addColumn("subject", "text", (col) => col.notNull().check(oneOf("subject", ["company", "manager"])))
    .addColumn("subject_id", "integer", (col) => col.notNull())
    .addColumn("action", "text", (col) => col.notNull().check(oneOf("action", ["keep", "remove", "restore"])))
    .addColumn("reason", "text", (col) => col.check(oneOf("reason", reasons)))
    .addColumn("statement", "text", (col) => col.notNull().check(sql`length(statement) between 1 and 2000`))
    .addColumn("moderator", "text", (col) => col.notNull())
    .addColumn("decided_on", "text", (col) => col.notNull().check(isoDate("decided_on")))
    .addCheckConstraint("removal_has_reason", sql`action <> 'remove' or reason is not null`)
    .execute();
  await db.schema.createIndex("moderation_decisions_review").on("moderation_decisions").column("review_id").execute();

  const removed = db.schema
    .createTable("removed_reviews")
    .addColumn("review_id", "text", (col) => col.primaryKey())
    .addColumn("decision_id", "integer", (col) => col.notNull());
  await (isPostgres(db) ? removed : removed.modifyEnd(sql`without rowid`)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["removed_reviews", "moderation_decisions", "review_reports", "moderators"]) {
    await db.schema.dropTable(table).execute();
  }
}
