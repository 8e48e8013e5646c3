import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * Verified employees (docs/decisions/0030-blind-signed-verification-tokens.md). None of these tables holds an account
 * id, an e-mail address or a time finer than a quarter, and none refers to another:
 * - `verification_keys`: one RSA key per (registrable domain, quarter), its private half sealed under a key derived
 *   from the server secret and erased when the quarter ends; the public halves are listed publicly.
 * - `verification_codes`: a mailed code waiting to be typed: a keyed hash of the address, never the address; deleted
 *   when used, when too many wrong codes were typed, or once expired.
 * - `verified_addresses`: one keyed hash per address that obtained tokens this quarter (one verification per address,
 *   and the count behind the 10-people threshold); deleted when the quarter ends.
 * - `spent_tokens`: the hash of each token spent on a published review, written by the publication batch.
 * - `company_reviews.verified_domain`: the badge a published review shows.
 * On SQLite the hash-keyed tables are WITHOUT ROWID, so no hidden column numbers rows in writing order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const binary = isPostgres(db) ? "bytea" : "blob";
  const withoutRowId = isPostgres(db) ? sql`` : sql`without rowid`;
  await db.schema
    .createTable("verification_keys")
    .addColumn("domain", "text", (col) => col.notNull())
    .addColumn("quarter", "text", (col) => col.notNull())
    .addColumn("key_id", "text", (col) => col.notNull().unique())
    .addColumn("public_n", "text", (col) => col.notNull())
    .addColumn("public_e", "text", (col) => col.notNull())
    .addColumn("private_sealed", binary)
    .addPrimaryKeyConstraint("verification_keys_pk", ["domain", "quarter"])
    .modifyEnd(withoutRowId)
    .execute();
  await db.schema
    .createTable("verification_codes")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("address_hash", "text", (col) => col.notNull())
    .addColumn("domain", "text", (col) => col.notNull())
    .addColumn("quarter", "text", (col) => col.notNull())
    .addColumn("code_hash", "text", (col) => col.notNull())
    .addColumn("expires_at", "bigint", (col) => col.notNull())
    .addColumn("attempts", "integer", (col) => col.notNull().defaultTo(0))
    .modifyEnd(withoutRowId)
    .execute();
  await db.schema
    .createTable("verified_addresses")
    .addColumn("address_hash", "text", (col) => col.primaryKey())
    .addColumn("domain", "text", (col) => col.notNull())
    .addColumn("quarter", "text", (col) => col.notNull())
    .modifyEnd(withoutRowId)
    .execute();
  await db.schema
    .createIndex("verified_addresses_domain")
    .on("verified_addresses")
    .columns(["domain", "quarter"])
    .execute();
  await db.schema
    .createTable("spent_tokens")
    .addColumn("token_hash", "text", (col) => col.primaryKey())
    .modifyEnd(withoutRowId)
    .execute();
  await db.schema.alterTable("company_reviews").addColumn("verified_domain", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("company_reviews").dropColumn("verified_domain").execute();
  for (const table of ["spent_tokens", "verified_addresses", "verification_codes", "verification_keys"])
    await db.schema.dropTable(table).execute();
}
