import { type Kysely, sql } from "kysely";

/**
 * One open appeal per removed review (docs/moderation.md): a review key could file appeals again and again, each a
 * row in the moderators' queue. A unique index over the review's undecided appeals now refuses a second one while the
 * first waits, atomically (two at once cannot both pass a read). Appeals already waiting twice or more for one review
 * keep their first; the later copies are deleted, as the index will never let them in again. Decided appeals stay.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db
    .deleteFrom("review_appeals")
    .where("decision_id", "is", null)
    .where((eb) =>
      eb(
        "id",
        "not in",
        eb
          .selectFrom("review_appeals")
          .select((inner) => inner.fn.min("id").as("first"))
          .where("decision_id", "is", null)
          .groupBy("review_id"),
      ),
    )
    .execute();
  await db.schema
    .createIndex("review_appeals_one_open")
    .on("review_appeals")
    .column("review_id")
    .unique()
    .where(sql.ref("decision_id"), "is", null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("review_appeals_one_open").execute();
}
