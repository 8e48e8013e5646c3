import { type Kysely, type SelectQueryBuilder, sql } from "kysely";
import { containsFolded, isPostgres } from "#app/db/dialect.ts";
import type { Database } from "#app/db/schema.ts";

/** What one search request reads at most, beyond its page (decision 0033). */
export type SearchBounds = {
  /** Candidates of one window: names that may hold a term of 3 characters or more, in the order of their ids. */
  candidates: number;
  /** Names of the country read in name order for a term of 1 or 2 characters. */
  names: number;
  /** How many windows (or walks) a page that found nothing yet reads at most before it answers empty. */
  emptyReads: number;
};
export const searchBounds: SearchBounds = { candidates: 200, names: 2000, emptyReads: 5 };

/**
 * Where a page of a search ends: in the names that start with the term (`start`, after `key`), or in the names that
 * hold it elsewhere (`elsewhere`): in the window of candidates whose ids follow `window` (0: the first), after
 * `key` when the page ended inside that window. Terms under 3 characters have no windows: their `window` is 0 and
 * `key` the last name read.
 */
export type SearchPosition =
  | { group: "start"; key: readonly [string, number] }
  | { group: "elsewhere"; window: number; key: readonly [string, number] | undefined };

type Query = { country: string; term: string; after: SearchPosition | undefined; limit: number };
type Key = readonly [string, number];

/**
 * The first string after every string that starts with `prefix`, by code point (SQLite's BINARY order, and
 * PostgreSQL's under a C collation): its last character moved one up. Undefined when there is none.
 */
function pastPrefix(prefix: string): string | undefined {
  const chars = [...prefix];
  while (chars.length > 0) {
    const last = chars.pop()!.codePointAt(0)!;
    if (last >= 0x10ffff) continue;
    // A lone surrogate is no character: the next one after U+D7FF is U+E000.
    const next = last + 1 >= 0xd800 && last + 1 <= 0xdfff ? 0xe000 : last + 1;
    return chars.join("") + String.fromCodePoint(next);
  }
  return undefined;
}

/** Up to 8 trigrams of a term (by code point) that do not overlap, from its start to its end. */
function sampleTrigrams(term: string): string[] {
  const chars = [...term];
  const starts: number[] = [];
  for (let start = 0; start + 3 <= chars.length; start += 3) starts.push(start);
  if (starts.at(-1)! + 3 < chars.length) starts.push(chars.length - 3);
  const step = Math.max(1, starts.length / 8);
  const picked = new Set<number>();
  for (let index = 0; index < starts.length; index += step) picked.add(starts[Math.floor(index)]!);
  picked.add(starts.at(-1)!);
  return [...new Set([...picked].map((start) => chars.slice(start, start + 3).join("")))];
}

/**
 * One page of the subjects of a country whose folded name contains the folded `term` (decision 0033): at most
 * `limit` rows and the position after them, or null when no match follows.
 *
 * 1. The names that start with the term, by (folded_name, id): a range of the (country, folded_name, id) index.
 * 2. Then the names that hold it elsewhere:
 *    - for terms of 3 characters or more, in windows of at most `candidates` names that may hold it, taken in the
 *      order of their ids (on SQLite from the FTS5 trigram index: names of every country holding all the sampled
 *      trigrams, of which only the country's are read; on PostgreSQL the country's names containing the term, which
 *      the planner reads from the pg_trgm index or the primary key), each window's matches by name. A term with no
 *      more candidates than a window holds has one window: all its matches by name. A page reads one window: when it
 *      holds less than the page still needs, the page is shorter and the next one reads the next window (a page that
 *      found nothing at all reads on, `emptyReads` windows at most);
 *    - for shorter terms, which no trigram can narrow, the country's next `names` names in name order, each tested;
 *      a page that found less than it needs in them ends at the last name read.
 *
 * The `LIKE` test (on SQLite's windows, the same containment test on the index's copy of the name) decides every
 * match in every plan; the indexes only narrow what is read.
 */
export async function searchByName<Row>(
  db: Kysely<Database>,
  table: "companies" | "managers",
  columns: readonly string[],
  query: Query,
  bounds: SearchBounds = searchBounds,
): Promise<{ rows: Row[]; next: SearchPosition | null }> {
  const anyDb = db as unknown as Kysely<any>;
  const { country, term, after, limit } = query;
  const selected = columns.map((column) => `t.${column}`);
  const past = pastPrefix(term);
  const keyAfter = <Q extends SelectQueryBuilder<any, any, any>>(select: Q, alias: string, key: Key | undefined) =>
    key
      ? (select.where((eb) =>
          eb(eb.refTuple(`${alias}.folded_name`, `${alias}.id`), ">", eb.tuple(key[0], key[1])),
        ) as Q)
      : select;
  const byName = <Q extends SelectQueryBuilder<any, any, any>>(select: Q, alias: string) =>
    select.orderBy(`${alias}.folded_name`).orderBy(`${alias}.id`) as Q;
  const keyOf = (row: unknown): Key => {
    const { folded_name, id } = row as { folded_name: string; id: number };
    return [folded_name, Number(id)];
  };

  // 1. Names that start with the term: every name in [term, pastPrefix(term)) does, by code point.
  let rows: Row[] = [];
  if (after?.group !== "elsewhere") {
    let starting = anyDb
      .selectFrom(`${table} as t`)
      .select(selected)
      .where("t.country", "=", country)
      .where("t.folded_name", ">=", term)
      .where(containsFolded(term, "t.folded_name"));
    if (past !== undefined) starting = starting.where("t.folded_name", "<", past);
    const found = (await byName(keyAfter(starting, "t", after?.key), "t")
      .limit(limit + 1)
      .execute()) as Row[];
    if (found.length > limit) {
      rows = found.slice(0, limit);
      return { rows, next: { group: "start", key: keyOf(rows.at(-1)) } };
    }
    rows = found;
  }

  // 2. Names that hold the term elsewhere: outside the range above, so that each match is in exactly one group.
  const need = limit - rows.length;
  let position = after?.group === "elsewhere" ? after.window : 0;
  let from = after?.group === "elsewhere" ? after.key : undefined;
  const elsewhere = <Q extends SelectQueryBuilder<any, any, any>>(select: Q, alias: string) =>
    keyAfter(
      select
        .where(containsFolded(term, `${alias}.folded_name`))
        .where((eb) =>
          past === undefined
            ? eb(`${alias}.folded_name`, "<", term)
            : eb.or([eb(`${alias}.folded_name`, "<", term), eb(`${alias}.folded_name`, ">=", past)]),
        ) as Q,
      alias,
      from,
    );
  /** The page with `found` (one more than it needs shows that more follow), and where the next one starts. */
  const pageOf = (found: Row[], whenShort: SearchPosition | null) => {
    if (found.length <= need) return { rows: [...rows, ...found], next: whenShort };
    const shown = found.slice(0, need);
    const last = shown.at(-1);
    return {
      rows: [...rows, ...shown],
      next: { group: "elsewhere" as const, window: position, key: last ? keyOf(last) : from },
    };
  };

  /** One window (or one walk through `names` names) from the current position. */
  const readOnce = async (): Promise<{ rows: Row[]; next: SearchPosition | null }> => {
    if ([...term].length >= 3) {
      if (!isPostgres(db)) {
        // On SQLite the window is read once, with the index's copy of name and country for the country's names, and
        // its matches picked here (FTS5 reads each of those names from its content table, one lookup per name;
        // sorting a few in SQL would cost more). Only the page's rows are then read from the table, in one statement
        // of one shape.
        const window = await candidateWindow(anyDb, table, term, country, position, bounds.candidates);
        const matches = window.names.filter(
          (name) =>
            name.folded_name.includes(term) &&
            !(
              compareText(name.folded_name, term) >= 0 &&
              (past === undefined || compareText(name.folded_name, past) < 0)
            ) &&
            (!from || compareKeys([name.folded_name, name.id], from) > 0),
        );
        const picked = matches
          .sort((a, b) => compareKeys([a.folded_name, a.id], [b.folded_name, b.id]))
          .slice(0, need + 1);
        const ids = picked.map((name) => name.id);
        const read = (await anyDb
          .selectFrom(`${table} as t`)
          .select(selected)
          .where("t.id", "in", [...ids, ...Array<number>(limit + 1 - ids.length).fill(0)])
          .execute()) as Row[];
        const byId = new Map(read.map((row) => [Number((row as { id: number }).id), row]));
        return pageOf(
          ids.flatMap((id) => byId.get(id) ?? []),
          window.end === undefined ? null : { group: "elsewhere", window: window.end, key: undefined },
        );
      }
      // On PostgreSQL, the window's matches in the country by name (in its collation), then the page's rows; each
      // row also says how many candidates followed the position (at most one more than a window) and the id of the
      // window's last one, so that a short page needs no second query unless it is empty.
      const candidates = anyDb
        .selectFrom(`${table} as m`)
        .select(["m.id", "m.folded_name"])
        .where("m.country", "=", country)
        .where(containsFolded(term, "m.folded_name"))
        .where("m.id", ">", position)
        .orderBy("m.id")
        .limit(bounds.candidates + 1);
      const counted = anyDb
        .selectFrom(candidates.as("k"))
        .select([
          "k.id",
          "k.folded_name",
          sql<number>`row_number() over (order by ${sql.ref("k.id")})`.as("place"),
          sql<number>`count(*) over ()`.as("candidate_count"),
          sql<number>`nth_value(${sql.ref("k.id")}, ${bounds.candidates}::int) over (order by ${sql.ref("k.id")} rows between unbounded preceding and unbounded following)`.as(
            "window_end",
          ),
        ])
        .as("c");
      const page = byName(
        elsewhere(
          anyDb
            .selectFrom(counted)
            .select(["c.id", "c.folded_name", "c.candidate_count", "c.window_end"])
            .where("c.place", "<=", bounds.candidates),
          "c",
        ),
        "c",
      )
        .limit(need + 1)
        .as("p");
      const found = (await byName(
        anyDb
          .selectFrom(page)
          .innerJoin(`${table} as t`, "t.id", "p.id")
          .select([...selected, "p.candidate_count", "p.window_end"]),
        "p",
      ).execute()) as Array<Row & { candidate_count?: number; window_end?: number | null }>;
      const count = Number(
        found[0]?.candidate_count ??
          (
            await anyDb
              .selectFrom(candidates.as("k"))
              .select((eb) => eb.fn.countAll<number>().as("count"))
              .executeTakeFirstOrThrow()
          ).count,
      );
      const end = found[0] ? Number(found[0].window_end) : undefined;
      for (const row of found) {
        delete row.candidate_count;
        delete row.window_end;
      }
      if (count <= bounds.candidates) return pageOf(found, null);
      // More candidates than a window: when the page is short, the next one starts after the window's last.
      return pageOf(found, {
        group: "elsewhere",
        window: end ?? (await windowEnd(anyDb, candidates, bounds.candidates)),
        key: undefined,
      });
    }

    // The next names of the country in name order (from the index alone), each tested; only matches are read in full.
    const names = keyAfter(
      anyDb.selectFrom(`${table} as n`).select(["n.id", "n.folded_name"]).where("n.country", "=", country),
      "n",
      from,
    );
    const read = byName(names, "n").limit(bounds.names).as("w");
    const found = (await byName(
      elsewhere(anyDb.selectFrom(read).innerJoin(`${table} as t`, "t.id", "w.id").select(selected), "w"),
      "w",
    )
      .limit(need + 1)
      .execute()) as Row[];
    if (found.length > need) return pageOf(found, null);
    // Less than a page in the names read: when they were `names` many, the next page reads on after the last one.
    const lastRead = await byName(names, "n")
      .offset(bounds.names - 1)
      .limit(1)
      .executeTakeFirst();
    return pageOf(found, lastRead ? { group: "elsewhere", window: 0, key: keyOf(lastRead) } : null);
  };
  // A page with nothing to show reads on, a few windows at most: an empty page that says more follow helps nobody.
  for (let reads = 1; ; reads += 1) {
    const page = await readOnce();
    if (page.rows.length > 0 || page.next?.group !== "elsewhere" || reads >= bounds.emptyReads) return page;
    position = page.next.window;
    from = page.next.key;
  }
}

/** The id of the `size`-th of the candidates: the end of their first window. */
async function windowEnd(db: Kysely<any>, candidates: SelectQueryBuilder<any, any, any>, size: number) {
  const last = await db
    .selectFrom(candidates.as("k"))
    .select("k.id")
    .orderBy("k.id")
    .offset(size - 1)
    .limit(1)
    .executeTakeFirstOrThrow();
  return Number(last.id);
}

/** Text in SQLite's BINARY order, which is the order of code points (UTF-16 code units differ past U+D7FF). */
function compareText(a: string, b: string): number {
  if (a === b) return 0;
  if (!/[\uD800-\uDFFF]/.test(a) && !/[\uD800-\uDFFF]/.test(b)) return a < b ? -1 : 1;
  const x = [...a];
  const y = [...b];
  for (let index = 0; index < Math.min(x.length, y.length); index += 1) {
    const difference = x[index]!.codePointAt(0)! - y[index]!.codePointAt(0)!;
    if (difference !== 0) return difference;
  }
  return x.length - y.length;
}

function compareKeys(a: Key, b: Key): number {
  return compareText(a[0], b[0]) || a[1] - b[1];
}

/**
 * The number of a country in the FTS5 index's rowids, which are a name's id times 4096 plus this (migration 0025):
 * the code points of the country's two characters modulo 64, six bits each. Codes of other characters than A–Z may
 * share one; the search tests each candidate's country.
 */
function countryNumber(country: string): number {
  const [first = "", second = ""] = [...country];
  return ((first.codePointAt(0)! & 63) << 6) | (second.codePointAt(0)! & 63);
}

/**
 * The names that may hold `term` (SQLite's FTS5 trigram index: every sampled trigram), with an id above `after`, at
 * most `size` in id order whatever their country, and the id of the last one when more follow (where the next window
 * starts): of these, the ids and folded names of `country`'s names, which their rowids tell apart. FTS5 reads the
 * index lazily in rowid order, and the index's copy of name and country only where the query asks for it: a common
 * term costs the names the window takes, and a name abroad its rowid alone. (A quoted phrase of the whole term would
 * be narrower, but reads the positions of every trigram in every name that holds them all.)
 */
async function candidateWindow(
  db: Kysely<any>,
  table: "companies" | "managers",
  term: string,
  country: string,
  after: number,
  size: number,
) {
  const match = sampleTrigrams(term)
    .map((trigram) => `"${trigram.replaceAll('"', '""')}"`)
    .join(" AND ");
  const number = countryNumber(country);
  const ours = sql<boolean>`(${sql.ref("m.rowid")} & 4095) = ${number}`;
  const rows = await db
    .selectFrom(`${table}_search as m`)
    .select([
      "m.rowid",
      sql<string | null>`case when ${ours} then ${sql.ref("m.folded_name")} end`.as("folded_name"),
      sql<string | null>`case when ${ours} then ${sql.ref("m.country")} end`.as("country"),
    ])
    // FTS5's hidden column named after the table takes the query.
    .where(sql<boolean>`${sql.ref(`m.${table}_search`)} match ${match}`)
    .where("m.rowid", ">", after * 4096 + 4095)
    .orderBy("m.rowid")
    .limit(size + 1)
    .execute();
  const window = rows.slice(0, size);
  const names = window.flatMap((row) =>
    row.country === country ? [{ id: Math.floor(Number(row.rowid) / 4096), folded_name: String(row.folded_name) }] : [],
  );
  return { names, end: rows.length > size ? Math.floor(Number(window.at(-1)!.rowid) / 4096) : undefined };
}
