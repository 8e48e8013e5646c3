import type { Kysely } from "kysely";
import type { Company, Database, Manager, SubjectKind } from "#app/db/schema.ts";
import { countryName } from "#app/lib/countries.server.ts";
import { decodeCursor, encodeCursor } from "#app/lib/cursor.server.ts";
import { maxId } from "#app/lib/params.ts";
import { companyCountedYesNo, companyCriteria, companyYesNo, managerCriteria, managerYesNo } from "#app/lib/ratings.ts";
import { fold } from "#app/lib/fold.ts";
import { topTagsShown } from "#app/lib/limits.ts";
import { meanWithInterval, oneDecimal, percent } from "#app/lib/statistics.ts";
import { searchByName, type SearchPosition } from "./name-search.server.ts";
import type { Page, SubjectSummary } from "./public-shapes.server.ts";

/**
 * What sets companies and managers apart where they behave alike: where their rows and reviews are stored, and the
 * criteria and yes/no questions of their reviews. Pages, aggregates and review lists are written once against it.
 */
export type Subject<C extends string = string, Y extends string = string> = {
  /** How distribution rows (`rating_counts`, `tag_counts`) name the kind of subject. */
  kind: SubjectKind;
  table: "companies" | "managers";
  reviewTable: "company_reviews" | "manager_reviews";
  /** Its monthly buckets: reviews and sums per criterion by month of publication. */
  monthTable: "company_months" | "manager_months";
  /** The column of a review row that names its subject. */
  subjectColumn: "company_id" | "manager_id";
  criteria: readonly C[];
  yesNo: readonly Y[];
  /** The yes/no questions whose yes answers the subject row counts (`<question>_yes`). */
  countedYesNo: readonly Y[];
};

export const companySubject = {
  kind: "company",
  table: "companies",
  reviewTable: "company_reviews",
  monthTable: "company_months",
  subjectColumn: "company_id",
  criteria: companyCriteria,
  yesNo: companyYesNo,
  countedYesNo: companyCountedYesNo,
} as const satisfies Subject;

export const managerSubject = {
  kind: "manager",
  table: "managers",
  reviewTable: "manager_reviews",
  monthTable: "manager_months",
  subjectColumn: "manager_id",
  criteria: managerCriteria,
  yesNo: managerYesNo,
  countedYesNo: managerYesNo,
} as const satisfies Subject;

export const searchPageSize = 20;

/** Keyset position of a list by name: (folded_name, id) of the last row shown; undefined reads as "first page". */
export function decodeNameCursor(cursor: string | null | undefined): [string, number] | undefined {
  const key = decodeCursor(cursor);
  if (key?.length !== 2) return undefined;
  const [name, id] = key;
  // PostgreSQL refuses NaN, fractions and numbers past its integer range, which would turn a bad link into a 500.
  if (typeof name !== "string" || !Number.isInteger(id) || Number(id) < 0 || Number(id) > maxId) {
    return undefined;
  }
  return [name, Number(id)];
}

/**
 * One page of a keyset list read with one row too many: the first `size` rows as items, and the cursor of the last
 * one when the extra row shows that more follow.
 */
export function pageOf<Row, Item>(
  rows: Row[],
  size: number,
  item: (row: Row) => Item,
  cursor: (row: Row) => string,
): Page<Item> {
  const items = rows.slice(0, size);
  const last = items.at(-1);
  return { items: items.map(item), next: rows.length > size && last ? cursor(last) : null };
}

/** A page of a list by name, `searchPageSize` long, continued after the last row's (folded_name, id). */
export function namePage<Row extends { id: number; folded_name: string }, Item>(
  rows: Row[],
  item: (row: Row) => Item,
): Page<Item> {
  return pageOf(rows, searchPageSize, item, (last) => encodeCursor([last.folded_name, last.id]));
}

/**
 * A search's next page, opaque: `[folded_name, id]` in the names that start with the term (as before decision
 * 0033), `[1, window, folded_name, id]` or `[1, window]` in the names that hold it elsewhere.
 */
export function encodeSearchCursor(position: SearchPosition): string {
  if (position.group === "start") return encodeCursor(position.key);
  return encodeCursor(position.key ? [1, position.window, ...position.key] : [1, position.window]);
}

/** The position a search cursor names; undefined (the first page) for a missing or malformed one. */
export function decodeSearchCursor(cursor: string | null | undefined): SearchPosition | undefined {
  const key = decodeCursor(cursor);
  if (key?.[0] !== 1) {
    const start = decodeNameCursor(cursor);
    return start ? { group: "start", key: start } : undefined;
  }
  const window = key[1];
  if (!Number.isInteger(window) || Number(window) < 0 || Number(window) > maxId) return undefined;
  if (key.length === 2) return { group: "elsewhere", window: Number(window), key: undefined };
  const rest = decodeNameCursor(encodeCursor(key.slice(2)));
  return rest ? { group: "elsewhere", window: Number(window), key: rest } : undefined;
}

/**
 * The subjects of one country whose folded name contains the folded term, those starting with it first, then the
 * others in bounded windows (decision 0033), keyset-paginated: `columns` of at most a page of rows, which `toItems`
 * turns into items.
 */
export async function searchSubjects<Row, Item>(
  db: Kysely<Database>,
  subject: Subject,
  columns: readonly string[],
  query: { country: string; term: string; after?: string | null },
  toItems: (rows: Row[]) => Item[] | Promise<Item[]>,
): Promise<Page<Item>> {
  const term = fold(query.term);
  if (!term) return { items: [], next: null };
  const { rows, next } = await searchByName<Row>(db, subject.table, columns, {
    country: query.country,
    term,
    after: decodeSearchCursor(query.after),
    limit: searchPageSize,
  });
  return { items: await toItems(rows), next: next ? encodeSearchCursor(next) : null };
}

/** How many subjects each list of a search before a term shows ("Most reviewed", "Best rated"). */
export const searchListLength = 5;

/**
 * How far down a country's "Best rated" index the list reads at most: managers with fewer reviews than the
 * small-team minimum are ranked there but not shown, and skipping them must stay bounded.
 */
const bestRatedWindow = 200;

/** The columns of a subject row a card needs for its mean: the sums of every criterion. */
export function sumColumns(subject: Subject): string[] {
  return subject.criteria.map((key) => `sum_${key}`);
}

/** A card's mean of all ratings with one decimal, from the row's sums; null when no review may be shown. */
export function cardMean(row: Record<string, unknown>, subject: Subject, shownReviewCount: number): number | null {
  if (shownReviewCount <= 0) return null;
  const total = subject.criteria.reduce((sum, key) => sum + Number(row[`sum_${key}`]), 0);
  return oneDecimal(total / (shownReviewCount * subject.criteria.length));
}

/**
 * The rows of a country's "Most reviewed" and "Best rated" lists, each the end of one index range
 * (`<table>_most_reviewed`, `<table>_best_rated`), never a scan: subjects with at least `minReviews` reviews.
 */
export async function searchListRows<Row>(
  db: Kysely<Database>,
  subject: Subject,
  columns: readonly string[],
  country: string,
  minReviews: number,
): Promise<{ mostReviewed: Row[]; bestRated: Row[] }> {
  const anyDb = db as unknown as Kysely<any>;
  const least = Math.max(1, minReviews);
  const window = anyDb
    .selectFrom(subject.table)
    .select("id")
    .where("country", "=", country)
    .where("rating_rank", ">", 0)
    .orderBy("rating_rank", "desc")
    .orderBy("id", "desc")
    .limit(bestRatedWindow)
    .as("w");
  const [mostReviewed, bestRated] = await Promise.all([
    anyDb
      .selectFrom(subject.table)
      .select([...columns])
      .where("country", "=", country)
      .where("review_count", ">=", least)
      .orderBy("review_count", "desc")
      .orderBy("id", "desc")
      .limit(searchListLength)
      .execute(),
    anyDb
      .selectFrom(window)
      .innerJoin(`${subject.table} as t`, "t.id", "w.id")
      .select(columns.map((column) => `t.${column}`))
      .where("t.review_count", ">=", least)
      .orderBy("t.rating_rank", "desc")
      .orderBy("t.id", "desc")
      .limit(searchListLength)
      .execute(),
  ]);
  return { mostReviewed: mostReviewed as Row[], bestRated: bestRated as Row[] };
}

type SubjectRow = Pick<Company | Manager, "country" | "is_demo" | "sum_total_squares">;

/** A subject's stored distributions: reviews per value of each criterion (and "overall"), and per tag. */
export type Distributions = {
  ratings: Array<{ criterion: string; value: number; count: number }>;
  tags: Array<{ tag: string; count: number }>;
};

/**
 * The stored distributions of one subject (`rating_counts`, `tag_counts`): at most 5 rows per criterion and the
 * `topTagsShown` most mentioned tags, read by primary key, never by scanning reviews.
 */
export async function subjectDistributions(
  db: Kysely<Database>,
  subject: Subject,
  subjectId: number,
): Promise<Distributions> {
  const [ratings, tags] = await Promise.all([
    db
      .selectFrom("rating_counts")
      .select(["criterion", "value", "count"])
      .where("subject", "=", subject.kind)
      .where("subject_id", "=", subjectId)
      .where("count", ">", 0)
      .execute(),
    db
      .selectFrom("tag_counts")
      .select(["tag", "count"])
      .where("subject", "=", subject.kind)
      .where("subject_id", "=", subjectId)
      .where("count", ">", 0)
      .orderBy("count", "desc")
      .orderBy("tag")
      .limit(topTagsShown)
      .execute(),
  ]);
  return { ratings, tags };
}

/** Reviews per value 1 to 5 of one criterion ("overall" for the overall score). */
function histogramOf(distributions: Distributions, criterion: string): number[] {
  const counts = [0, 0, 0, 0, 0];
  for (const row of distributions.ratings) {
    if (row.criterion === criterion && row.value >= 1 && row.value <= 5) counts[row.value - 1] = Number(row.count);
  }
  return counts;
}

/**
 * What the profile of either subject shows of its stored aggregates: averages per criterion, the overall score and
 * its mean with a 95% interval (from the running sums), the shares of yes, the distributions, and where it is.
 * `reviewCount` is the count the page may show: at 0 (a manager below the small-team minimum) nothing is shown.
 * `unusualActivity`: whether an alert on the subject waits for a moderator (signals.server.ts). `trend` and `peers`
 * come from the monthly buckets and the percentile job (trends.server.ts, percentiles.server.ts).
 */
export function subjectSummary<C extends string, Y extends string>(
  row: SubjectRow & Record<string, unknown>,
  subject: Subject<C, Y>,
  reviewCount: number,
  distributions: Distributions,
  unusualActivity: boolean,
  comparisons: Pick<SubjectSummary<C, Y>, "trend" | "peers">,
): SubjectSummary<C, Y> {
  const shown = reviewCount > 0 ? distributions : { ratings: [], tags: [] };
  const total = subject.criteria.reduce((sum, key) => sum + Number(row[`sum_${key}`]), 0);
  const headline = meanWithInterval(
    { count: reviewCount, sum: total, sumOfSquares: Number(row.sum_total_squares), divisor: subject.criteria.length },
    { low: 1, high: 5 },
  );
  return {
    countryName: countryName(row.country),
    reviewCount,
    averages: averagesFromSums(row, subject.criteria, reviewCount),
    score: scoreFromSums(row, subject.criteria, reviewCount),
    mean: headline ? oneDecimal(headline.mean) : null,
    interval: headline?.interval
      ? { low: oneDecimal(headline.interval.low), high: oneDecimal(headline.interval.high) }
      : null,
    yesPercent: Object.fromEntries(
      subject.countedYesNo.map((key) => [key, percent(reviewCount > 0 ? Number(row[`${key}_yes`]) : 0, reviewCount)]),
    ) as Record<Y, number | null>,
    distribution: {
      overall: histogramOf(shown, "overall"),
      criteria: Object.fromEntries(subject.criteria.map((key) => [key, histogramOf(shown, key)])) as Record<
        C,
        number[]
      >,
    },
    topTags: shown.tags.map((row) => ({ tag: row.tag, count: Number(row.count) })),
    trend: comparisons.trend,
    peers: reviewCount > 0 ? comparisons.peers : [],
    isDemo: row.is_demo === 1,
    unusualActivity,
  };
}

/** Averages per criterion from the stored sums; null when there are no reviews yet. */
export function averagesFromSums<K extends string>(
  row: Record<string, unknown>,
  keys: readonly K[],
  reviewCount: number,
): Record<K, number | null> {
  return Object.fromEntries(
    keys.map((key) => [key, reviewCount > 0 ? Math.round((Number(row[`sum_${key}`]) / reviewCount) * 10) / 10 : null]),
  ) as Record<K, number | null>;
}

/** The mean of all the rating fields of all reviews, floored; 0 without reviews. */
export function scoreFromSums(row: Record<string, unknown>, keys: readonly string[], reviewCount: number): number {
  if (reviewCount === 0) return 0;
  const total = keys.reduce((sum, key) => sum + Number(row[`sum_${key}`]), 0);
  return Math.floor(total / (reviewCount * keys.length));
}
