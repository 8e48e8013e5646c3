import type { Kysely } from "kysely";
import type { Company, Database, Manager } from "#app/db/schema.ts";
import { countryName } from "#app/lib/countries.server.ts";
import { decodeCursor, encodeCursor } from "#app/lib/cursor.server.ts";
import { maxId } from "#app/lib/params.ts";
import { companyCriteria, companyYesNo, managerCriteria, managerYesNo } from "#app/lib/ratings.ts";
import { fold } from "#app/lib/fold.ts";
import { searchByName } from "./name-search.server.ts";
import type { Page, SubjectSummary } from "./public-shapes.server.ts";

/**
 * What sets companies and managers apart where they behave alike: where their rows and reviews are stored, and the
 * criteria and yes/no questions of their reviews. Pages, aggregates and review lists are written once against it.
 */
export type Subject<C extends string = string, Y extends string = string> = {
  table: "companies" | "managers";
  reviewTable: "company_reviews" | "manager_reviews";
  /** The column of a review row that names its subject. */
  subjectColumn: "company_id" | "manager_id";
  criteria: readonly C[];
  yesNo: readonly Y[];
};

export const companySubject = {
  table: "companies",
  reviewTable: "company_reviews",
  subjectColumn: "company_id",
  criteria: companyCriteria,
  yesNo: companyYesNo,
} as const satisfies Subject;

export const managerSubject = {
  table: "managers",
  reviewTable: "manager_reviews",
  subjectColumn: "manager_id",
  criteria: managerCriteria,
  yesNo: managerYesNo,
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
 * The subjects of one country whose folded name contains the folded term, by name, keyset-paginated: `columns` of
 * one row more than a page, which `toPage` turns into the page.
 */
export async function searchSubjects<Row, Item>(
  db: Kysely<Database>,
  subject: Subject,
  columns: readonly string[],
  query: { country: string; term: string; after?: string | null },
  toPage: (rows: Row[]) => Page<Item> | Promise<Page<Item>>,
): Promise<Page<Item>> {
  const term = fold(query.term);
  if (!term) return { items: [], next: null };
  const rows = await searchByName<Row>(db, subject.table, columns, {
    country: query.country,
    term,
    after: decodeNameCursor(query.after),
    limit: searchPageSize + 1,
  });
  return toPage(rows);
}

type SubjectRow = Pick<Company | Manager, "country" | "is_demo">;

/**
 * What the profile of either subject shows of its stored aggregates: averages per criterion, the overall score
 * (both from the running sums), and where it is. `reviewCount` is the count the page may show; `unusualActivity`
 * whether an alert on the subject waits for a moderator (signals.server.ts).
 */
export function subjectSummary<C extends string>(
  row: SubjectRow & Record<string, unknown>,
  subject: Subject<C>,
  reviewCount: number,
  unusualActivity: boolean,
): SubjectSummary<C> {
  return {
    countryName: countryName(row.country),
    reviewCount,
    averages: averagesFromSums(row, subject.criteria, reviewCount),
    score: scoreFromSums(row, subject.criteria, reviewCount),
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
