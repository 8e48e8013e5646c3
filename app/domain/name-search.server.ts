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
 * 2. on SQLite, for terms of 3 characters or more: the names of the FTS5 trigram index that hold two of the
 *    term's rarest trigrams (from different words when it has several), when the rarest is in at most 5,000
 *    names of all countries;
 * 3. otherwise the plain query (on PostgreSQL, the planner reads the pg_trgm index when it pays).
 */
type Trigram = { text: string; word: number };

/**
 * Up to 8 trigrams of a term (by code point) that do not overlap, from its start to its end, each with the word it
 * lies in (-1 when it spans a space or a sign): the pieces whose name counts the search looks up.
 */
function sampleTrigrams(term: string): Trigram[] {
  const chars = [...term];
  if (chars.length < 3) return [];
  const wordOf: number[] = [];
  let word = 0;
  for (const [index, char] of chars.entries()) {
    const inWord = /[\p{L}\p{N}]/u.test(char);
    if (!inWord && index > 0 && wordOf[index - 1] !== -1) word += 1;
    wordOf.push(inWord ? word : -1);
  }
  const starts: number[] = [];
  for (let start = 0; start + 3 <= chars.length; start += 3) starts.push(start);
  if (starts.at(-1)! + 3 < chars.length) starts.push(chars.length - 3);
  const step = Math.max(1, starts.length / 8);
  const picked = new Set<number>();
  for (let index = 0; index < starts.length; index += step) picked.add(starts[Math.floor(index)]!);
  picked.add(starts.at(-1)!);
  const trigrams = new Map<string, Trigram>();
  for (const start of picked) {
    const words = new Set(wordOf.slice(start, start + 3));
    const text = chars.slice(start, start + 3).join("");
    trigrams.set(text, { text, word: words.size === 1 ? wordOf[start]! : -1 });
  }
  return [...trigrams.values()];
}

export async function searchByName<Row>(
  db: Kysely<Database>,
  table: "companies" | "managers",
  columns: readonly string[],
  query: Query,
  { nearbyNames, candidateLimit }: SearchPlanLimits = defaultLimits,
): Promise<Row[]> {
  const anyDb = db as unknown as Kysely<any>;
  const { country, term, after, limit } = query;
  // The country's names after the keyset position, in (folded_name, id) order: the frame of every plan.
  const inNameOrder = <Q extends SelectQueryBuilder<any, any, any>>(select: Q, alias: string, id = "id"): Q => {
    let framed = select.where(`${alias}.country`, "=", country) as Q;
    if (after) {
      framed = framed.where((eb) =>
        eb(eb.refTuple(`${alias}.folded_name`, `${alias}.${id}`), ">", eb.tuple(...after)),
      ) as Q;
    }
    return framed.orderBy(`${alias}.folded_name`).orderBy(`${alias}.${id}`) as Q;
  };
  const selected = columns.map((column) => `t.${column}`);

  const nearby = inNameOrder(anyDb.selectFrom(`${table} as n`).select(["n.id", "n.folded_name"]), "n")
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

  const trigrams = sampleTrigrams(term);
  if (!isPostgres(db) && trigrams.length > 0) {
    // How many names hold each sampled trigram (fts5vocab answers `term = ?` from its index, `in (…)` by a scan).
    const counted: Array<Trigram & { doc: number }> = [];
    for (const trigram of trigrams) {
      const row = await anyDb
        .selectFrom(`${table}_search_trigrams`)
        .select("doc")
        .where("term", "=", trigram.text)
        .executeTakeFirst();
      // A trigram missing from the vocabulary counts as in no name: the query below then ends at once, and still
      // finds the right rows should the tokenizer have folded it differently.
      counted.push({ ...trigram, doc: Number(row?.doc ?? 0) });
    }
    // The rarest trigram, and the rarest other one, from another word when there is one: names holding both are
    // few, and few names are read.
    const [rarestOne, ...others] = counted.sort((a, b) => a.doc - b.doc);
    const partner = others.find((other) => rarestOne!.word === -1 || other.word !== rarestOne!.word) ?? others[0];
    const rarest = partner ? [rarestOne!, partner] : [rarestOne!];
    if (rarestOne!.doc <= candidateLimit) {
      const match = rarest.map(({ text }) => `"${text.replaceAll('"', '""')}"`).join(" AND ");
      // The page's rows are picked from the index's own copy of name and country; only they are read in full.
      const page = inNameOrder(
        anyDb
          .selectFrom(`${table}_search as m`)
          .select(["m.rowid as id", "m.folded_name"])
          // FTS5's hidden column named after the table takes the query.
          .where(sql<boolean>`${sql.ref(`m.${table}_search`)} match ${match}`)
          .where(containsFolded(term, "m.folded_name")),
        "m",
        "rowid",
      )
        .limit(limit)
        .as("page");
      const rows = await anyDb
        .selectFrom(page)
        .innerJoin(`${table} as t`, "t.id", "page.id")
        .select(selected)
        .orderBy("page.folded_name")
        .orderBy("page.id")
        .execute();
      return rows as Row[];
    }
  }

  const rows = await inNameOrder(
    anyDb.selectFrom(`${table} as t`).select(selected).where(containsFolded(term, "t.folded_name")),
    "t",
  )
    .limit(limit)
    .execute();
  return rows as Row[];
}
