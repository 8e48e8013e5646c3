import { type Kysely, type SelectQueryBuilder, sql } from "kysely";
import { containsFolded, isPostgres } from "#app/db/dialect.ts";
import type { Database } from "#app/db/schema.ts";

export type SearchPlanLimits = {
  /** How many names of the country, from the keyset position on, the first plan reads. */
  nearbyNames: number;
  /** Above this many trigram matches in all countries, a term is too common for the second plan. */
  candidateLimit: number;
};
const defaultLimits: SearchPlanLimits = { nearbyNames: 4000, candidateLimit: 5000 };

type Query = { country: string; term: string; after: [string, number] | undefined; limit: number };

/**
 * The rows of one country whose folded name contains the folded `term`, in (folded_name, id) order after the
 * keyset position `after`, at most `limit` (decision 0011). Every plan returns exactly these rows; they differ in
 * what they read:
 * 1. the country's next 4,000 names from the (country, folded_name, id) index: enough for common terms;
 * 2. on SQLite, the rows the FTS5 trigram index names, when the term has at most 5,000 matches in all countries;
 * 3. otherwise the plain query (on PostgreSQL, the planner reads the pg_trgm index when it pays).
 */
export async function searchByName<Row>(
  db: Kysely<Database>,
  table: "companies" | "managers",
  columns: readonly string[],
  query: Query,
  { nearbyNames, candidateLimit }: SearchPlanLimits = defaultLimits,
): Promise<Row[]> {
  const anyDb = db as unknown as Kysely<any>;
  const { country, term, after, limit } = query;
  const positioned = <Q extends SelectQueryBuilder<any, any, any>>(select: Q, alias: string): Q => {
    const narrowed = select.where(`${alias}.country`, "=", country) as Q;
    if (!after) return narrowed;
    return narrowed.where((eb) => eb(eb.refTuple(`${alias}.folded_name`, `${alias}.id`), ">", eb.tuple(...after))) as Q;
  };
  const selected = columns.map((column) => `t.${column}`);

  const nearby = positioned(anyDb.selectFrom(`${table} as n`).select(["n.id", "n.folded_name"]), "n")
    .orderBy("n.folded_name")
    .orderBy("n.id")
    .limit(nearbyNames)
    .as("nearby");
  const first = await anyDb
    .selectFrom(nearby)
    .innerJoin(`${table} as t`, "t.id", "nearby.id")
    .select(selected)
    .where(containsFolded(term, "nearby.folded_name"))
    .orderBy("nearby.folded_name")
    .orderBy("nearby.id")
    .limit(limit)
    .execute();
  if (first.length === limit) return first as Row[];

  if (!isPostgres(db) && [...term].length >= 3) {
    const index = sql.table(`${table}_search`);
    const phrase = `"${term.replaceAll('"', '""')}"`;
    const { rows } = await sql<{ matches: number }>`select count(*) as matches from (
      select 1 from ${index} where ${index} match ${phrase} limit ${candidateLimit + 1})`.execute(db);
    if (Number(rows[0]?.matches) <= candidateLimit) {
      // From the trigram matches to their rows: the country is checked on each, its index not used (the `+`).
      const matched = await anyDb
        .selectFrom(sql`(select rowid as id from ${index} where ${index} match ${phrase})`.as("m"))
        .innerJoin(`${table} as t`, "t.id", "m.id")
        .select(selected)
        .where(sql<boolean>`+t.country = ${country}`)
        .where(containsFolded(term, "t.folded_name"))
        .$if(after !== undefined, (select) =>
          select.where((eb) => eb(eb.refTuple("t.folded_name", "t.id"), ">", eb.tuple(...after!))),
        )
        .orderBy("t.folded_name")
        .orderBy("t.id")
        .limit(limit)
        .execute();
      return matched as Row[];
    }
  }

  const rows = await positioned(anyDb.selectFrom(`${table} as t`).select(selected), "t")
    .where(containsFolded(term, "t.folded_name"))
    .orderBy("t.folded_name")
    .orderBy("t.id")
    .limit(limit)
    .execute();
  return rows as Row[];
}
