import type { Kysely } from "kysely";
import type { Database } from "#app/db/schema.ts";
import { countryName } from "#app/lib/countries.server.ts";
import { env } from "#app/lib/env.server.ts";
import { encodeCursor } from "#app/lib/cursor.server.ts";
import { fold } from "#app/lib/fold.ts";
import { type ManagerCriterion, type ManagerYesNo, managerCriteria, managerYesNo } from "#app/lib/ratings.ts";
import { decodeNameCursor, searchPageSize } from "./companies.server.ts";
import {
  type ManagerReviewCard,
  type Page,
  averagesFromSums,
  decodeReviewCursor,
  managerReviewCard,
  reviewCursor,
  reviewsPageSize,
  scoreFromSums,
} from "./reviews.server.ts";
import { searchByName } from "./name-search.server.ts";

export type CompanyRef = { id: number; name: string };

/**
 * Small teams: a manager with fewer published reviews than MANAGER_MIN_REVIEWS shows none, and no averages or
 * distributions. Publication in groups keeps the count at 0 until the first group lands; this check holds anyway
 * (demo data, a lowered minimum raised again).
 */
export function shownReviewCount(reviewCount: number): number {
  return reviewCount >= env().MANAGER_MIN_REVIEWS ? reviewCount : 0;
}

export type ManagerCard = {
  id: number;
  firstName: string;
  lastName: string;
  title: string;
  city: string;
  reviewCount: number;
  companies: CompanyRef[];
  isDemo: boolean;
};

async function companiesOf(db: Kysely<Database>, managerIds: number[]): Promise<Map<number, CompanyRef[]>> {
  const byManager = new Map<number, CompanyRef[]>();
  if (managerIds.length === 0) return byManager;
  const rows = await db
    .selectFrom("manager_companies")
    .innerJoin("companies", "companies.id", "manager_companies.company_id")
    .select(["manager_companies.manager_id", "companies.id", "companies.name"])
    .where("manager_companies.manager_id", "in", managerIds)
    .orderBy("companies.name")
    .execute();
  for (const row of rows) {
    const list = byManager.get(row.manager_id) ?? [];
    list.push({ id: row.id, name: row.name });
    byManager.set(row.manager_id, list);
  }
  return byManager;
}

type ManagerCardRow = {
  id: number;
  first_name: string;
  last_name: string;
  title: string;
  city: string;
  review_count: number;
  folded_name: string;
  is_demo: number;
};

const cardColumns = [
  "id",
  "first_name",
  "last_name",
  "title",
  "city",
  "review_count",
  "folded_name",
  "is_demo",
] as const;

async function toCardPage(db: Kysely<Database>, rows: ManagerCardRow[]): Promise<Page<ManagerCard>> {
  const items = rows.slice(0, searchPageSize);
  const companies = await companiesOf(
    db,
    items.map((row) => row.id),
  );
  const last = items.at(-1);
  return {
    items: items.map((row) => ({
      id: row.id,
      firstName: row.first_name,
      lastName: row.last_name,
      title: row.title,
      city: row.city,
      reviewCount: shownReviewCount(row.review_count),
      companies: companies.get(row.id) ?? [],
      isDemo: row.is_demo === 1,
    })),
    next: rows.length > searchPageSize && last ? encodeCursor([last.folded_name, last.id]) : null,
  };
}

/**
 * Managers of one country whose folded "first last" name contains the folded term (decision 0003), by name.
 */
export async function searchManagers(
  db: Kysely<Database>,
  query: { country: string; term: string; after?: string | null },
): Promise<Page<ManagerCard>> {
  const term = fold(query.term);
  if (!term) return { items: [], next: null };
  const rows = await searchByName<ManagerCardRow>(db, "managers", cardColumns, {
    country: query.country,
    term,
    after: decodeNameCursor(query.after),
    limit: searchPageSize + 1,
  });
  return toCardPage(db, rows);
}

/** The managers linked to a company, by name, keyset-paginated. */
export async function companyManagers(
  db: Kysely<Database>,
  companyId: number,
  after?: string | null,
): Promise<Page<ManagerCard>> {
  const key = decodeNameCursor(after);
  let select = db
    .selectFrom("manager_companies")
    .innerJoin("managers", "managers.id", "manager_companies.manager_id")
    .select(cardColumns.map((column) => `managers.${column}` as const))
    .where("manager_companies.company_id", "=", companyId)
    .orderBy("managers.folded_name")
    .orderBy("managers.id")
    .limit(searchPageSize + 1);
  if (key) select = select.where((eb) => eb(eb.refTuple("managers.folded_name", "managers.id"), ">", eb.tuple(...key)));
  return toCardPage(db, await select.execute());
}

export type ManagerProfile = {
  id: number;
  firstName: string;
  lastName: string;
  title: string;
  department: string | null;
  city: string;
  state: string;
  country: string;
  countryName: string;
  linkedinUrl: string;
  companies: CompanyRef[];
  reviewCount: number;
  averages: Record<ManagerCriterion, number | null>;
  yesCounts: Record<ManagerYesNo, number>;
  score: number;
  isDemo: boolean;
};

export async function findManager(db: Kysely<Database>, id: number): Promise<ManagerProfile | undefined> {
  const row = await db.selectFrom("managers").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) return undefined;
  const companies = await companiesOf(db, [row.id]);
  const reviewCount = shownReviewCount(row.review_count);
  return {
    id: row.id,
    firstName: row.first_name,
    lastName: row.last_name,
    title: row.title,
    department: row.department,
    city: row.city,
    state: row.state,
    country: row.country,
    countryName: countryName(row.country),
    linkedinUrl: row.linkedin_url,
    companies: companies.get(row.id) ?? [],
    reviewCount,
    averages: averagesFromSums(row, managerCriteria, reviewCount),
    yesCounts: Object.fromEntries(
      managerYesNo.map((key) => [key, reviewCount > 0 ? Number(row[`${key}_yes`]) : 0]),
    ) as Record<ManagerYesNo, number>,
    score: scoreFromSums(row, managerCriteria, reviewCount),
    isDemo: row.is_demo === 1,
  };
}

/** A manager's reviews, newest first, keyset-paginated by (created_on, id). */
export async function managerReviews(
  db: Kysely<Database>,
  managerId: number,
  before?: string | null,
): Promise<Page<ManagerReviewCard>> {
  const manager = await db.selectFrom("managers").select("review_count").where("id", "=", managerId).executeTakeFirst();
  if (!manager || shownReviewCount(manager.review_count) === 0) return { items: [], next: null };
  const afterId = decodeReviewCursor(before);
  const position = afterId
    ? await db
        .selectFrom("manager_reviews")
        .select(["created_on", "id"])
        .where("id", "=", afterId)
        .where("manager_id", "=", managerId)
        .executeTakeFirst()
    : undefined;
  let select = db
    .selectFrom("manager_reviews")
    .selectAll()
    .where("manager_id", "=", managerId)
    .orderBy("created_on", "desc")
    .orderBy("id", "desc")
    .limit(reviewsPageSize + 1);
  if (position) {
    select = select.where((eb) => eb(eb.refTuple("created_on", "id"), "<", eb.tuple(position.created_on, position.id)));
  }
  const rows = await select.execute();
  const items = rows.slice(0, reviewsPageSize);
  const last = items.at(-1);
  return {
    items: items.map(managerReviewCard),
    next: rows.length > reviewsPageSize && last ? reviewCursor(last) : null,
  };
}
