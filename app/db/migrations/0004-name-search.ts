import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * Trigram indexes on the folded names of companies and managers, so a search for a rare piece of a name does not
 * read every name of a big country (decision 0011). SQLite: an FTS5 table with the trigram tokenizer over
 * `folded_name` (with the country alongside, unindexed) and its vocabulary, kept in step by triggers. PostgreSQL:
 * a pg_trgm GIN index, when the extension can be created.
 */
const tables = ["companies", "managers"] as const;

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    const schema = await trigramSchema(db);
    if (!schema) return;
    for (const table of tables) {
      await sql`create index ${sql.id(`${table}_folded_trigram`)} on ${sql.table(table)} using gin (folded_name ${sql.id(schema)}.gin_trgm_ops)`.execute(
        db,
      );
    }
    return;
  }
  for (const table of tables) {
    const index = sql.id(`${table}_search`);
    const source = sql.table(table);
    // The index keeps its own copy of the name and the country: a search reads its matches from this small table
    // and only the 20 rows of the page from the table itself.
    await sql`create virtual table ${index} using fts5(folded_name, country unindexed, tokenize='trigram')`.execute(db);
    // How many names hold each trigram, so a search can ask for its rarest trigrams only.
    await sql`create virtual table ${sql.id(`${table}_search_trigrams`)} using fts5vocab(${index}, 'row')`.execute(db);
    await sql`create trigger ${sql.id(`${table}_search_insert`)} after insert on ${source} begin
      insert into ${index} (rowid, folded_name, country) values (new.id, new.folded_name, new.country);
    end`.execute(db);
    await sql`create trigger ${sql.id(`${table}_search_delete`)} after delete on ${source} begin
      delete from ${index} where rowid = old.id;
    end`.execute(db);
    await sql`create trigger ${sql.id(`${table}_search_update`)} after update of folded_name, country on ${source} begin
      delete from ${index} where rowid = old.id;
      insert into ${index} (rowid, folded_name, country) values (new.id, new.folded_name, new.country);
    end`.execute(db);
    await sql`insert into ${index} (rowid, folded_name, country) select id, folded_name, country from ${source}`.execute(
      db,
    );
  }
}

/**
 * The schema holding pg_trgm, created when missing. Without the right to create it, the search still works (the
 * planner scans the name index instead), so the migration goes on without the trigram index.
 */
async function trigramSchema(db: Kysely<any>): Promise<string | undefined> {
  // In public when it can be: an extension in a Candor schema would go when that schema is dropped.
  for (const create of [
    sql`create extension if not exists pg_trgm schema public`,
    sql`create extension if not exists pg_trgm`,
  ]) {
    await sql`savepoint trigram`.execute(db);
    try {
      await create.execute(db);
      await sql`release savepoint trigram`.execute(db);
      break;
    } catch {
      await sql`rollback to savepoint trigram`.execute(db);
    }
  }
  const { rows } = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
    where e.extname = 'pg_trgm'`.execute(db);
  return rows[0]?.schema;
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of tables) {
    if (isPostgres(db)) {
      await sql`drop index if exists ${sql.id(`${table}_folded_trigram`)}`.execute(db);
      continue;
    }
    for (const event of ["insert", "delete", "update"]) {
      await sql`drop trigger if exists ${sql.id(`${table}_search_${event}`)}`.execute(db);
    }
    await sql`drop table if exists ${sql.id(`${table}_search_trigrams`)}`.execute(db);
    await sql`drop table if exists ${sql.id(`${table}_search`)}`.execute(db);
  }
}
