import { type Kysely, PostgresAdapter, sql } from "kysely";
import { escapeLike } from "#app/lib/fold.ts";

/** The few places where SQLite and PostgreSQL differ; everything else is plain Kysely. */
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** SQL length of a JSON array stored as text. */
export function jsonArrayLength(db: Kysely<any>, column: string) {
  return isPostgres(db) ? sql`json_array_length(${sql.ref(column)}::json)` : sql`json_array_length(${sql.ref(column)})`;
}

/** `folded_name` contains the (already folded) term, wildcards in the term taken literally; same SQL on both engines. */
export function containsFolded(term: string, column = "folded_name") {
  return sql<boolean>`${sql.ref(column)} like ${`%${escapeLike(term)}%`} escape '\\'`;
}

/** After rows were inserted with explicit ids, move PostgreSQL's identity past them (SQLite needs nothing). */
export async function syncIdSequence(db: Kysely<any>, table: "companies" | "managers"): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce((select max(id) from ${sql.table(table)}), 0) + 1, false)`.execute(
    db,
  );
}

/**
 * `column` contains `term`, wildcards taken literally, ignoring case: ILIKE on PostgreSQL (Unicode case), LIKE on
 * SQLite (ASCII case only, so "É" finds "é" on PostgreSQL alone).
 */
export function containsText(db: Kysely<any>, column: string, term: string) {
  const pattern = `%${escapeLike(term)}%`;
  return isPostgres(db)
    ? sql<boolean>`${sql.ref(column)} ilike ${pattern} escape '\\'`
    : sql<boolean>`${sql.ref(column)} like ${pattern} escape '\\'`;
}
