import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * Helpful votes (docs/decisions/0016-helpful-votes-with-a-key-only-the-account-holds.md):
 * - `vote_keys`: each account's vote key, only as AES-256-GCM ciphertext under argon2id(password, salt); the server
 *   cannot open it without the password. Goes with the account.
 * - `vote_receipts`: HMAC(vote key, review id) of each vote: no account, no review id, no time. WITHOUT ROWID on
 *   SQLite, so rows lie in the order of their random values, not in the order they were written.
 * - `helpful_votes` on each review row, kept in the vote's transaction, with an index per review table for the
 *   "most helpful" order.
 * - `vote_totals`: one row; `orphaned` counts the votes of withdrawn reviews, whose receipts stay (nothing can find
 *   them), so that the receipts and the counts always add up.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const withoutRowId = isPostgres(db) ? sql`` : sql`without rowid`;
  const binary = isPostgres(db) ? "bytea" : "blob";
  await db.schema
    .createTable("vote_keys")
    .addColumn("user_id", "text", (col) => col.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("salt", binary, (col) => col.notNull())
    .addColumn("wrapped", binary, (col) => col.notNull())
    .modifyEnd(withoutRowId)
    .execute();
  await db.schema
    .createTable("vote_receipts")
    .addColumn("receipt", "text", (col) => col.primaryKey())
    .modifyEnd(withoutRowId)
    .execute();
  await db.schema
    .createTable("vote_totals")
    .addColumn("id", "integer", (col) => col.primaryKey())
    .addColumn("orphaned", "bigint", (col) => col.notNull().defaultTo(0))
    .execute();
  await db.insertInto("vote_totals").values({ id: 1, orphaned: 0 }).execute();
  for (const [reviews, key] of [
    ["company_reviews", "company_id"],
    ["manager_reviews", "manager_id"],
  ] as const) {
    await db.schema
      .alterTable(reviews)
      .addColumn("helpful_votes", "integer", (col) => col.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createIndex(`${reviews}_by_helpful`)
      .on(reviews)
      .columns([key, "helpful_votes", "created_on", "id"])
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const reviews of ["company_reviews", "manager_reviews"]) {
    await db.schema.dropIndex(`${reviews}_by_helpful`).execute();
    await db.schema.alterTable(reviews).dropColumn("helpful_votes").execute();
  }
  for (const table of ["vote_totals", "vote_receipts", "vote_keys"]) await db.schema.dropTable(table).execute();
}
