import { type Kysely, sql } from "kysely";

/**
 * Access and refresh tokens for JSON API clients. A token family is one better-auth session: deleting the session
 * (sign-out, password change, reuse of a spent refresh token) deletes its tokens. Only SHA-256 hashes are stored.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("api_tokens")
    .addColumn("token_hash", "text", (col) => col.primaryKey())
    .addColumn("session_id", "text", (col) => col.notNull().references("sessions.id").onDelete("cascade"))
    .addColumn("kind", "text", (col) => col.notNull().check(sql`kind in ('access', 'refresh')`))
    .addColumn("expires_at", "bigint", (col) => col.notNull())
    .addColumn("used", "integer", (col) =>
      col
        .notNull()
        .defaultTo(0)
        .check(sql`used in (0, 1)`),
    )
    .execute();
  await db.schema.createIndex("api_tokens_session").on("api_tokens").column("session_id").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("api_tokens").execute();
}
