import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * The FTS5 trigram indexes of migration 0004 made again with each name's country in its rowid (decision 0033): the
 * rowid of a name in the index is its id times 4096 plus its country's number, so the index still lists names in the
 * order of their ids, and a search tells the names of its country from the others by their rowids alone, reading the
 * index's copy of name and country for its country's names only. The country's number is its two characters' code
 * points modulo 64, six bits each (A–Z are 1–26); codes of other characters may share a number, which only lets a
 * few more names through, as the search still tests each candidate's country. The vocabulary table of migration 0004
 * goes, unused since the search stopped counting trigrams. Nothing to do on PostgreSQL, whose trigram index is asked
 * for the country's names only.
 */
const tables = ["companies", "managers"] as const;

const rowid = (row: "new" | "old" | "t") =>
  sql.raw(
    `${row}.id * 4096 + (unicode(substr(${row}.country, 1, 1)) & 63) * 64 + (unicode(substr(${row}.country, 2, 1)) & 63)`,
  );

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  for (const table of tables) await rebuild(db, table, rowid);
}

/** Back to the indexes of migration 0004, merged as migration 0021 left them. */
export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  for (const table of tables) {
    await rebuild(db, table, (row) => sql.raw(`${row}.id`));
    const index = sql.id(`${table}_search`);
    await sql`create virtual table ${sql.id(`${table}_search_trigrams`)} using fts5vocab(${index}, 'row')`.execute(db);
  }
}

async function rebuild(
  db: Kysely<any>,
  table: (typeof tables)[number],
  rowidOf: (row: "new" | "old" | "t") => ReturnType<typeof sql.raw>,
): Promise<void> {
  const index = sql.id(`${table}_search`);
  const source = sql.table(table);
  for (const event of ["insert", "delete", "update"]) {
    await sql`drop trigger if exists ${sql.id(`${table}_search_${event}`)}`.execute(db);
  }
  await sql`drop table if exists ${sql.id(`${table}_search_trigrams`)}`.execute(db);
  await sql`drop table if exists ${index}`.execute(db);
  await sql`create virtual table ${index} using fts5(folded_name, country unindexed, tokenize='trigram')`.execute(db);
  await sql`create trigger ${sql.id(`${table}_search_insert`)} after insert on ${source} begin
    insert into ${index} (rowid, folded_name, country) values (${rowidOf("new")}, new.folded_name, new.country);
  end`.execute(db);
  await sql`create trigger ${sql.id(`${table}_search_delete`)} after delete on ${source} begin
    delete from ${index} where rowid = ${rowidOf("old")};
  end`.execute(db);
  await sql`create trigger ${sql.id(`${table}_search_update`)} after update of folded_name, country on ${source} begin
    delete from ${index} where rowid = ${rowidOf("old")};
    insert into ${index} (rowid, folded_name, country) values (${rowidOf("new")}, new.folded_name, new.country);
  end`.execute(db);
  // In id order, which is rowid order, so the index is written in order; then merged into one segment (migration 0021).
  await sql`insert into ${index} (rowid, folded_name, country)
    select ${rowidOf("t")}, t.folded_name, t.country from ${source} as t order by t.id`.execute(db);
  await sql`insert into ${index} (${sql.ref(`${table}_search`)}) values ('optimize')`.execute(db);
}
