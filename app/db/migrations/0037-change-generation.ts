import type { Kysely } from "kysely";

/**
 * How a SQLite server hears of a change committed by another process, such as `npm run reviews:publish`
 * (docs/decisions/0045-a-sqlite-server-hears-of-other-processes.md): the command counts `generation` up and writes
 * the change's scope (subject ids, public once published) in this one row; the server notices that the file changed
 * (PRAGMA data_version) and reads the row. No time, no author, no review. PostgreSQL servers hear through their
 * change channel and never read it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("change_generation")
    .addColumn("id", "integer", (col) => col.primaryKey())
    .addColumn("generation", "bigint", (col) => col.notNull())
    .addColumn("scope", "text", (col) => col.notNull())
    .execute();
  await db.insertInto("change_generation").values({ id: 1, generation: 0, scope: "*" }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("change_generation").execute();
}
