import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * Verified employees on manager reviews, and one-review tokens (docs/decisions/0030-blind-signed-verification-
 * tokens.md, docs/decisions/0031-one-review-tokens.md):
 * - `manager_reviews.verified_domain`: the badge a published manager review shows, "Verified: works at example.com",
 *   when its author spent a verification token of one of the manager's companies' domains. Written by the batch
 *   that publishes the review, like `company_reviews.verified_domain`.
 * - `review_token_keys`: one partially blind RSA key per quarter, for one-review tokens (the manager is the public
 *   metadata, so one key serves every manager); its private half sealed under a key derived from the server secret
 *   and erased when the quarter ends, its public half listed publicly. No account, no manager, no time.
 * Spent one-review tokens go to `spent_tokens` (0014) like verification tokens; their receipts to `review_receipts`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("manager_reviews").addColumn("verified_domain", "text").execute();
  await db.schema
    .createTable("review_token_keys")
    .addColumn("period", "text", (col) => col.primaryKey())
    .addColumn("key_id", "text", (col) => col.notNull().unique())
    .addColumn("public_n", "text", (col) => col.notNull())
    .addColumn("public_e", "text", (col) => col.notNull())
    .addColumn("private_sealed", isPostgres(db) ? "bytea" : "blob")
    .modifyEnd(isPostgres(db) ? sql`` : sql`without rowid`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("review_token_keys").execute();
  await db.schema.alterTable("manager_reviews").dropColumn("verified_domain").execute();
}
