import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * Review keys and appeals (docs/moderation.md). Frozen: it spells out its own columns.
 *
 * - `review_keys`: the SHA-256 of each review's one-time key, shown once to its author at submission, which travels
 *   inside the sealed queue row and is written at publication. It names a review, never an account. On SQLite the
 *   table is WITHOUT ROWID: rows lie in the order of their random hashes, not in the order they were written.
 * - `review_appeals`: an author's appeal against a removal, made with the key; closed by the decision on it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const keys = db.schema
    .createTable("review_keys")
    .addColumn("key_hash", "text", (col) => col.primaryKey())
    .addColumn("review_id", "text", (col) => col.notNull().unique());
  await (isPostgres(db) ? keys : keys.modifyEnd(sql`without rowid`)).execute();

  await db.schema
    .createTable("review_appeals")
    .addColumn("id", "integer", (col) =>
      isPostgres(db) ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey(),
    )
    .addColumn("review_id", "text", (col) => col.notNull())
    .addColumn("statement", "text", (col) => col.notNull().check(sql`length(statement) between 1 and 2000`))
    .addColumn("received_on", "text", (col) => col.notNull().check(sql`received_on like '____-__-__'`))
    .addColumn("decision_id", "integer")
    .execute();
  await db.schema.createIndex("review_appeals_open").on("review_appeals").columns(["decision_id", "id"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("review_appeals").execute();
  await db.schema.dropTable("review_keys").execute();
}
