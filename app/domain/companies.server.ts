import type { Kysely } from "kysely";
import type { Database } from "#app/db/schema.ts";
import type {
  CompanyProfile,
  CompanyReviewItem,
  CompanySearchResult,
  Page,
  SearchLists,
} from "./public-shapes.server.ts";
import { companyTags } from "#app/lib/tags.ts";
import { type ReviewListQuery, reviewListSchema, subjectReviews } from "./reviews.server.ts";
import { subjectPeers } from "./percentiles.server.ts";
import { hasOpenAlert } from "./signals.server.ts";
import { subjectTrend } from "./trends.server.ts";
import {
  cardMean,
  companySubject,
  searchListRows,
  searchSubjects,
  subjectDistributions,
  subjectSummary,
  sumColumns,
} from "./subjects.server.ts";

type CompanySearchRow = {
  id: number;
  name: string;
  city: string;
  industry: string;
  review_count: number;
  folded_name: string;
  is_demo: number;
} & Record<`sum_${string}`, number>;
const companySearchColumns = [
  "id",
  "name",
  "city",
  "industry",
  "review_count",
  "folded_name",
  "is_demo",
  ...sumColumns(companySubject),
];

function companyCard(row: CompanySearchRow): CompanySearchResult {
  return {
    id: row.id,
    name: row.name,
    city: row.city,
    industry: row.industry,
    reviewCount: row.review_count,
    mean: cardMean(row, companySubject, row.review_count),
    isDemo: row.is_demo === 1,
  };
}

/**
 * Companies of one country whose folded name contains the folded term, those starting with it first, keyset-paginated.
 */
export function searchCompanies(
  db: Kysely<Database>,
  query: { country: string; term: string; after?: string | null },
): Promise<Page<CompanySearchResult>> {
  return searchSubjects(db, companySubject, companySearchColumns, query, (rows: CompanySearchRow[]) =>
    rows.map(companyCard),
  );
}

/** A country's most reviewed and best rated companies: what a search shows before a term is typed. */
export async function companyLists(db: Kysely<Database>, country: string): Promise<SearchLists<CompanySearchResult>> {
  const rows = await searchListRows<CompanySearchRow>(db, companySubject, companySearchColumns, country, 1);
  return { mostReviewed: rows.mostReviewed.map(companyCard), bestRated: rows.bestRated.map(companyCard) };
}

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
    recentLayoffs: row.recent_layoffs,
    hasOncall: row.latest_has_oncall === 1,
    ...subjectSummary(
      row,
      companySubject,
      row.review_count,
      await subjectDistributions(db, companySubject, row.id),
      await hasOpenAlert(db, "company", row.id),
      {
        trend: await subjectTrend(db, companySubject, row.id),
        peers: await subjectPeers(db, companySubject, row.id, {
          country: row.country,
          industrySection: row.industry_section,
        }),
      },
    ),
  };
}

/** A company's reviews, newest first unless `list` says otherwise, keyset-paginated (`subjectReviews`). */
export function companyReviews(
  db: Kysely<Database>,
  companyId: number,
  before?: string | null,
  list?: ReviewListQuery,
): Promise<Page<CompanyReviewItem>> {
  return subjectReviews(db, companySubject, companyId, before, list);
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

/** What narrows a company's reviews: its tags are the company tags. */
export const companyReviewListSchema = reviewListSchema(companyTags);
