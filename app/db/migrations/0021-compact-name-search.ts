import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * The FTS5 trigram indexes of migration 0004 merged into one segment each (decision 0033). The triggers add every
 * name as a segment of its own, and FTS5 merges them only in steps, so an index filled row by row holds 9 segments at
 * 10,000 companies and 15 at 100,000, and every search opens each of them for each trigram it asks for: at 10,000
 * companies a term without matches cost 3 to 6 times more before this merge. Names added later go to small segments
 * of their own, merged as before. Nothing to do on PostgreSQL, whose GIN index has no such segments.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  for (const table of ["companies_search", "managers_search"]) {
    await sql`insert into ${sql.table(table)} (${sql.ref(table)}) values ('optimize')`.execute(db);
  }
}

/** Nothing to undo: the merged index holds the same names. */
export async function down(): Promise<void> {}
