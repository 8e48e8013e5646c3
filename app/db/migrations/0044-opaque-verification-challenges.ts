import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * A mailed code waiting to be typed, as a row nobody can read without the challenge the browser keeps
 * (docs/decisions/0054-verification-writes-nothing-about-the-account.md): `id` is the SHA-256 of that challenge,
 * `sealed` holds the work domain, the address's keyed hash and the code's hash under a key derived from the challenge
 * alone, and `expires_at` is rounded up to the whole minute. The codes waiting when this runs (ten minutes' worth)
 * are dropped with the old layout, which kept the domain in clear.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const binary = isPostgres(db) ? "bytea" : "blob";
  const withoutRowId = isPostgres(db) ? sql`` : sql`without rowid`;
  await db.schema.dropTable("verification_codes").execute();
  await db.schema
    .createTable("verification_codes")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("sealed", binary, (col) => col.notNull())
    .addColumn("quarter", "text", (col) => col.notNull())
    .addColumn("expires_at", "bigint", (col) => col.notNull())
    .addColumn("attempts", "integer", (col) => col.notNull().defaultTo(0))
    .modifyEnd(withoutRowId)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const withoutRowId = isPostgres(db) ? sql`` : sql`without rowid`;
  await db.schema.dropTable("verification_codes").execute();
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
}
