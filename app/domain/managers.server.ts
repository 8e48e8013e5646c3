import type { Kysely } from "kysely";
import type { Database } from "#app/db/schema.ts";
import { env } from "#app/lib/env.server.ts";
import { type ManagerYesNo, managerYesNo } from "#app/lib/ratings.ts";
import type {
  CompanyRef,
  ManagerCard,
  ManagerProfile,
  ManagerReviewItem,
  Page,
  SearchLists,
} from "./public-shapes.server.ts";
import { managerTags } from "#app/lib/tags.ts";
import { type ReviewListQuery, reviewListSchema, subjectReviews } from "./reviews.server.ts";
import { subjectPeers } from "./percentiles.server.ts";
import { hasOpenAlert } from "./signals.server.ts";
import { subjectTrend } from "./trends.server.ts";
import {
  cardMean,
  decodeNameCursor,
  managerSubject,
  namePage,
  searchListRows,
  searchPageSize,
  searchSubjects,
  subjectDistributions,
  subjectSummary,
  sumColumns,
} from "./subjects.server.ts";

/**
 * Small teams: a manager with fewer published reviews than MANAGER_MIN_REVIEWS shows none, and no averages or
 * distributions. Publication in groups keeps the count at 0 until the first group lands; this check holds anyway
 * (demo data, a lowered minimum raised again).
 */
export function shownReviewCount(reviewCount: number): number {
  return reviewCount >= env().MANAGER_MIN_REVIEWS ? reviewCount : 0;
}

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
} & Record<`sum_${string}`, number>;

const cardColumns = [
  "id",
  "first_name",
  "last_name",
  "title",
  "city",
  "review_count",
  "folded_name",
  "is_demo",
  ...sumColumns(managerSubject),
];

/** What a manager's card and profile both show of its row: who they are and where they work. */
function managerIdentity(
  row: Pick<ManagerCardRow, "id" | "first_name" | "last_name" | "title" | "city">,
  companies: Map<number, ManagerCard["companies"]>,
) {
  return {
    id: row.id,
    firstName: row.first_name,
    lastName: row.last_name,
    title: row.title,
    city: row.city,
    companies: companies.get(row.id) ?? [],
  };
}

/** The cards of `rows`, each with the companies its manager is linked to. */
async function toCards(db: Kysely<Database>, rows: ManagerCardRow[]): Promise<ManagerCard[]> {
  const companies = await companiesOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => {
    const reviewCount = shownReviewCount(row.review_count);
    return {
      ...managerIdentity(row, companies),
      reviewCount,
      mean: cardMean(row, managerSubject, reviewCount),
      isDemo: row.is_demo === 1,
    };
  });
}

async function toCardPage(db: Kysely<Database>, rows: ManagerCardRow[]): Promise<Page<ManagerCard>> {
  const cards = await toCards(db, rows.slice(0, searchPageSize));
  const byId = new Map(cards.map((card) => [card.id, card]));
  return namePage(rows, (row) => byId.get(row.id)!);
}

/**
 * A country's most reviewed and best rated managers with at least the small-team minimum of reviews: what a search
 * shows before a term is typed.
 */
export async function managerLists(db: Kysely<Database>, country: string): Promise<SearchLists<ManagerCard>> {
  const rows = await searchListRows<ManagerCardRow>(
    db,
    managerSubject,
    cardColumns,
    country,
    env().MANAGER_MIN_REVIEWS,
  );
  const cards = await toCards(db, [...rows.mostReviewed, ...rows.bestRated]);
  const byId = new Map(cards.map((card) => [card.id, card]));
  return {
    mostReviewed: rows.mostReviewed.map((row) => byId.get(row.id)!),
    bestRated: rows.bestRated.map((row) => byId.get(row.id)!),
  };
}

/**
 * Managers of one country whose folded "first last" name contains the folded term (decision 0003), those starting
 * with it first (decision 0033).
 */
export function searchManagers(
  db: Kysely<Database>,
  query: { country: string; term: string; after?: string | null },
): Promise<Page<ManagerCard>> {
  return searchSubjects(db, managerSubject, cardColumns, query, async (rows: ManagerCardRow[]) => {
    const cards = new Map((await toCards(db, rows)).map((card) => [card.id, card]));
    return rows.map((row) => cards.get(row.id)!);
  });
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
    .select(cardColumns.map((column) => `managers.${column}` as "managers.id"))
    .where("manager_companies.company_id", "=", companyId)
    .orderBy("managers.folded_name")
    .orderBy("managers.id")
    .limit(searchPageSize + 1);
  if (key) select = select.where((eb) => eb(eb.refTuple("managers.folded_name", "managers.id"), ">", eb.tuple(...key)));
  return toCardPage(db, (await select.execute()) as unknown as ManagerCardRow[]);
}

export async function findManager(db: Kysely<Database>, id: number): Promise<ManagerProfile | undefined> {
  const row = await db.selectFrom("managers").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) return undefined;
  const companies = await companiesOf(db, [row.id]);
  const reviewCount = shownReviewCount(row.review_count);
  return {
    ...managerIdentity(row, companies),
    department: row.department,
    state: row.state,
    country: row.country,
    linkedinUrl: row.linkedin_url,
    ...subjectSummary(
      row,
      managerSubject,
      reviewCount,
      reviewCount > 0 ? await subjectDistributions(db, managerSubject, row.id) : { ratings: [], tags: [] },
      await hasOpenAlert(db, "manager", row.id),
      {
        trend: await subjectTrend(db, managerSubject, row.id, reviewCount > 0),
        peers: reviewCount > 0 ? await subjectPeers(db, managerSubject, row.id, { country: row.country }) : [],
      },
    ),
    yesCounts: Object.fromEntries(
      managerYesNo.map((key) => [key, reviewCount > 0 ? Number(row[`${key}_yes`]) : 0]),
    ) as Record<ManagerYesNo, number>,
  };
}

/** A manager's reviews, newest first unless `list` says otherwise, keyset-paginated (`subjectReviews`). */
export async function managerReviews(
  db: Kysely<Database>,
  managerId: number,
  before?: string | null,
  list?: ReviewListQuery,
): Promise<Page<ManagerReviewItem>> {
  const manager = await db.selectFrom("managers").select("review_count").where("id", "=", managerId).executeTakeFirst();
  if (!manager || shownReviewCount(manager.review_count) === 0) return { items: [], next: null };
  return subjectReviews(db, managerSubject, managerId, before, list);
}

/** What narrows a manager's reviews: its tags are the manager tags. */
export const managerReviewListSchema = reviewListSchema(managerTags);
