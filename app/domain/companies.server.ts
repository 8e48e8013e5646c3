import type { Kysely } from "kysely";
import type { Database } from "#app/db/schema.ts";
import { countryName } from "#app/lib/countries.server.ts";
import { decodeCursor, encodeCursor } from "#app/lib/cursor.server.ts";
import { fold } from "#app/lib/fold.ts";
import { type CompanyCriterion, companyCriteria } from "#app/lib/ratings.ts";
import { searchByName } from "./name-search.server.ts";
import {
  type CompanyReviewCard,
  type Page,
  averagesFromSums,
  companyReviewCard,
  decodeReviewCursor,
  reviewCursor,
  reviewsPageSize,
  scoreFromSums,
} from "./reviews.server.ts";
import { maxId } from "#app/lib/params.ts";

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

type CompanySearchRow = {
  id: number;
  name: string;
  city: string;
  review_count: number;
  folded_name: string;
  is_demo: number;
};
const companySearchColumns = ["id", "name", "city", "review_count", "folded_name", "is_demo"] as const;

export type CompanySearchResult = { id: number; name: string; city: string; reviewCount: number; isDemo: boolean };

/**
 * Companies of one country whose folded name contains the folded term, by name, keyset-paginated.
 */
export async function searchCompanies(
  db: Kysely<Database>,
  query: { country: string; term: string; after?: string | null },
): Promise<Page<CompanySearchResult>> {
  const term = fold(query.term);
  if (!term) return { items: [], next: null };
  const rows = await searchByName<CompanySearchRow>(db, "companies", companySearchColumns, {
    country: query.country,
    term,
    after: decodeNameCursor(query.after),
    limit: searchPageSize + 1,
  });
  const items = rows.slice(0, searchPageSize);
  const last = items.at(-1);
  return {
    items: items.map((row) => ({
      id: row.id,
      name: row.name,
      city: row.city,
      reviewCount: row.review_count,
      isDemo: row.is_demo === 1,
    })),
    next: rows.length > searchPageSize && last ? encodeCursor([last.folded_name, last.id]) : null,
  };
}

export type CompanyProfile = {
  id: number;
  name: string;
  website: string;
  glassdoorUrl: string;
  industry: string;
  industrySection: string | null;
  city: string;
  state: string;
  country: string;
  countryName: string;
  recentLayoffs: string | null;
  hasOncall: boolean;
  reviewCount: number;
  averages: Record<CompanyCriterion, number | null>;
  score: number;
  isDemo: boolean;
};

export async function findCompany(db: Kysely<Database>, id: number): Promise<CompanyProfile | undefined> {
  const row = await db.selectFrom("companies").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    name: row.name,
    website: row.website,
    glassdoorUrl: row.glassdoor_url,
    industry: row.industry,
    industrySection: row.industry_section,
    city: row.city,
    state: row.state,
    country: row.country,
    countryName: countryName(row.country),
    recentLayoffs: row.recent_layoffs,
    hasOncall: row.latest_has_oncall === 1,
    reviewCount: row.review_count,
    averages: averagesFromSums(row, companyCriteria, row.review_count),
    score: scoreFromSums(row, companyCriteria, row.review_count),
    isDemo: row.is_demo === 1,
  };
}

/** A company's reviews, newest first, keyset-paginated by (created_on, id). */
export async function companyReviews(
  db: Kysely<Database>,
  companyId: number,
  before?: string | null,
): Promise<Page<CompanyReviewCard>> {
  const afterId = decodeReviewCursor(before);
  const position = afterId
    ? await db
        .selectFrom("company_reviews")
        .select(["created_on", "id"])
        .where("id", "=", afterId)
        .where("company_id", "=", companyId)
        .executeTakeFirst()
    : undefined;
  let select = db
    .selectFrom("company_reviews")
    .selectAll()
    .where("company_id", "=", companyId)
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
    items: items.map(companyReviewCard),
    next: rows.length > reviewsPageSize && last ? reviewCursor(last) : null,
  };
}

export type KnownCity = { city: string; state: string };

/** How many known places a form suggests for a country. */
export const knownCitiesLimit = 100;

/**
 * The cities (with their state or region) already known in a country, the most listed first: suggestions while a
 * company's or manager's place is typed, so the same city is spelt the same way. Companies and managers both count.
 */
export async function knownCities(db: Kysely<Database>, country: string): Promise<KnownCity[]> {
  const places = db
    .selectFrom("companies")
    .select(["city", "state"])
    .where("country", "=", country)
    .unionAll(db.selectFrom("managers").select(["city", "state"]).where("country", "=", country));
  return db
    .selectFrom(places.as("places"))
    .select(["city", "state"])
    .groupBy(["city", "state"])
    .orderBy((eb) => eb.fn.countAll(), "desc")
    .orderBy("city")
    .orderBy("state")
    .limit(knownCitiesLimit)
    .execute();
}
