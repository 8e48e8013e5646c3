import type { Kysely } from "kysely";

/**
 * A queued review that a publication could not write (docs/decisions/0044-spends-refused-at-submission.md) stays in
 * `pending_reviews`, sealed like the others and re-sealed under each new key, with `set_aside` saying why (a
 * constraint, a payload that cannot be opened or written). Publications leave it out, so one such row never stops
 * the others; `npm run admin -- set-aside` lists the reasons, and `set-aside retry` clears them. The reason names a
 * class of failure, never a value from the review; it carries no time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("pending_reviews").addColumn("set_aside", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("pending_reviews").dropColumn("set_aside").execute();
}
