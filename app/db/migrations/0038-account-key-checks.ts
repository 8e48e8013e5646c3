import type { Kysely } from "kysely";

/**
 * Account keys (docs/decisions/0046-reviews-wait-under-a-key-only-the-author-holds.md):
 * - `vote_keys.key_check`: HMAC(account key, "account-key-check"), so the server can refuse a key that is not the
 *   signed-in account's (one vote per account) without holding anything that recomputes a receipt or an author tag.
 *   Filled at each account's next sign-in, when the password opens the key.
 * - `managers.receipt_ref`: what an account's receipt for a manager added from now on is keyed on (the person as
 *   added: name skeleton and LinkedIn profile), known before the manager has an id; older managers keep their id.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("vote_keys").addColumn("key_check", "text").execute();
  await db.schema.alterTable("managers").addColumn("receipt_ref", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("managers").dropColumn("receipt_ref").execute();
  await db.schema.alterTable("vote_keys").dropColumn("key_check").execute();
}
