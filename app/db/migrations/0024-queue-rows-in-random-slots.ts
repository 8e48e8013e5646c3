import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * Queued rows get a random `slot` (docs/decisions/0037-queue-rows-in-random-slots.md). On SQLite it becomes the
 * table's integer primary key: rows lie in the order of their random slots, as they lay in the order of their random
 * ids before, and finding where a new row goes compares numbers. In the WITHOUT ROWID table the key was the whole
 * record, so every comparison on the way down read the 32 KB sealed row it compared against from its overflow pages.
 * On PostgreSQL, whose tables keep no order of their keys, the column is only filled.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table pending_reviews add column slot bigint`.execute(db);
    await sql`update pending_reviews set slot = floor(random() * 9007199254740992)::bigint`.execute(db);
    await sql`alter table pending_reviews alter column slot set not null`.execute(db);
    return;
  }
  await sql`create table pending_reviews_slotted (
    id text not null unique,
    key_id text not null,
    sealed blob not null,
    slot integer primary key
  )`.execute(db);
  // Rows waiting now keep their ids and get random slots (SQLite's random(); 53 bits, as the server draws them).
  await sql`insert into pending_reviews_slotted (id, key_id, sealed, slot)
    select id, key_id, sealed, abs(random()) % 9007199254740992 from pending_reviews`.execute(db);
  await sql`drop table pending_reviews`.execute(db);
  await sql`alter table pending_reviews_slotted rename to pending_reviews`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`alter table pending_reviews drop column slot`.execute(db);
    return;
  }
  await sql`create table pending_reviews_keyed (id text primary key, key_id text not null, sealed blob not null)
    without rowid`.execute(db);
  await sql`insert into pending_reviews_keyed (id, key_id, sealed) select id, key_id, sealed from pending_reviews`.execute(
    db,
  );
  await sql`drop table pending_reviews`.execute(db);
  await sql`alter table pending_reviews_keyed rename to pending_reviews`.execute(db);
}
