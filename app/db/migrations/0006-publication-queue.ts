import { randomBytes } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * The publication queue (docs/decisions/0013-publication-in-sealed-batches.md). A submitted review waits here as one
 * sealed, fixed-size row until a batch publishes it: a random id, the id of the key that sealed it (kept in a file,
 * not here) and the ciphertext. No time, no kind, no subject, no author. `pending_receipts` refuses a second review of
 * one manager by one account while the first still waits. `queue_state` names this database's queue (for its key
 * files) and the key that seals new rows. On SQLite the queue tables are WITHOUT ROWID: no insertion order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const binary = isPostgres(db) ? "bytea" : "blob";
  const withoutRowId = isPostgres(db) ? sql`` : sql`without rowid`;
  await db.schema
    .createTable("pending_reviews")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("key_id", "text", (col) => col.notNull())
    .addColumn("sealed", binary, (col) => col.notNull())
    .modifyEnd(withoutRowId)
    .execute();
  await db.schema
    .createTable("pending_receipts")
    .addColumn("key", "text", (col) => col.primaryKey())
    .modifyEnd(withoutRowId)
    .execute();
  await db.schema
    .createTable("queue_state")
    .addColumn("id", "integer", (col) => col.primaryKey().check(sql`id = 1`))
    .addColumn("queue_id", "text", (col) => col.notNull())
    .addColumn("key_id", "text")
    .execute();
  await db
    .insertInto("queue_state")
    .values({ id: 1, queue_id: randomBytes(12).toString("base64url"), key_id: null })
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["queue_state", "pending_receipts", "pending_reviews"])
    await db.schema.dropTable(table).execute();
}
