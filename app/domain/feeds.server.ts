import { type Kysely, sql } from "kysely";
import type { CompanyReview, Database, ManagerReview } from "#app/db/schema.ts";
import { countryName, isCountryCode } from "#app/lib/countries.server.ts";
import { industrySections } from "#app/lib/industries.ts";
import { env } from "#app/lib/env.server.ts";
import type { FeedDocumentEntry } from "#app/lib/feeds.ts";
import { reviewCard } from "./reviews.server.ts";
import { companySubject, managerSubject, type Subject } from "./subjects.server.ts";

/**
 * Feeds of newly published reviews (docs/decisions/0070-follow-by-feed-not-by-e-mail.md): per company, per manager,
 * per country and per industry. They are read like a page: what a feed shows changes only when a batch is published
 * (or a moderator removes a review), each entry is dated to its month as every page dates a review, and a reader who
 * follows one leaves nothing on the server but an ordinary request.
 */
export type FeedScope =
  | { kind: "company"; id: number }
  | { kind: "manager"; id: number }
  | { kind: "country"; code: string }
  | { kind: "industry"; code: string };

/** An entry: its review, its subject, and the month it was published (YYYY-MM), as its card shows them. */
export type FeedEntry = FeedDocumentEntry;

export type Feed = {
  scope: FeedScope;
  /** What the feed is about: a company's or manager's name, a country's, an industry's title. */
  name: string;
  entries: FeedEntry[];
};

/** How many of the newest reviews a feed carries. */
export const feedLength = 20;

type SubjectRow = { subject_id: number; subject_name: string };

function entryOf(subject: Subject, row: (CompanyReview | ManagerReview) & SubjectRow): FeedEntry {
  const card = reviewCard(subject, row);
  return {
    reviewId: card.id,
    subject: { kind: subject.kind as "company" | "manager", id: row.subject_id, name: row.subject_name },
    month: card.month,
    score: card.score,
    tags: card.tags,
    text: card.text,
  };
}

/** The newest reviews that stand (not removed) of companies, narrowed by `narrow` on the company row. */
function companyEntries(
  db: Kysely<Database>,
  narrow: { column: "companies.id" | "companies.country" | "companies.industry_section"; value: number | string },
) {
  return db
    .selectFrom("company_reviews")
    .innerJoin("companies", "companies.id", "company_reviews.company_id")
    .selectAll("company_reviews")
    .select(["companies.id as subject_id", "companies.name as subject_name"])
    .where(narrow.column, "=", narrow.value)
    .where("company_reviews.id", "not in", (eb) => eb.selectFrom("removed_reviews").select("review_id"))
    .orderBy("company_reviews.created_on", "desc")
    .orderBy("company_reviews.id", "desc")
    .limit(feedLength)
    .execute()
    .then((rows) => rows.map((row) => entryOf(companySubject, row)));
}

/** As companyEntries, for managers, of those only who show their reviews (the small-team minimum). */
function managerEntries(
  db: Kysely<Database>,
  narrow: { column: "managers.id" | "managers.country"; value: number | string },
) {
  return db
    .selectFrom("manager_reviews")
    .innerJoin("managers", "managers.id", "manager_reviews.manager_id")
    .selectAll("manager_reviews")
    .select([
      "managers.id as subject_id",
      sql<string>`managers.first_name || ' ' || managers.last_name`.as("subject_name"),
    ])
    .where(narrow.column, "=", narrow.value)
    .where("managers.review_count", ">=", env().MANAGER_MIN_REVIEWS)
    .where("manager_reviews.id", "not in", (eb) => eb.selectFrom("removed_reviews").select("review_id"))
    .orderBy("manager_reviews.created_on", "desc")
    .orderBy("manager_reviews.id", "desc")
    .limit(feedLength)
    .execute()
    .then((rows) => rows.map((row) => entryOf(managerSubject, row)));
}

/** Newest first across both kinds, as the lists of reviews order them: month, then id. */
function newestFirst(entries: FeedEntry[]): FeedEntry[] {
  return entries
    .sort((a, b) => b.month.localeCompare(a.month) || b.reviewId.localeCompare(a.reviewId))
    .slice(0, feedLength);
}

/** The feed of `scope`, or undefined when there is no such company, manager, country or industry. */
export async function feedOf(db: Kysely<Database>, scope: FeedScope): Promise<Feed | undefined> {
  switch (scope.kind) {
    case "company": {
      const company = await db.selectFrom("companies").select("name").where("id", "=", scope.id).executeTakeFirst();
      if (!company) return undefined;
      return {
        scope,
        name: company.name,
        entries: await companyEntries(db, { column: "companies.id", value: scope.id }),
      };
    }
    case "manager": {
      const manager = await db
        .selectFrom("managers")
        .select(["first_name", "last_name"])
        .where("id", "=", scope.id)
        .executeTakeFirst();
      if (!manager) return undefined;
      const entries = await managerEntries(db, { column: "managers.id", value: scope.id });
      return { scope, name: `${manager.first_name} ${manager.last_name}`, entries };
    }
    case "country": {
      if (!isCountryCode(scope.code)) return undefined;
      const narrow = { value: scope.code } as const;
      const [companies, managers] = await Promise.all([
        companyEntries(db, { ...narrow, column: "companies.country" }),
        managerEntries(db, { ...narrow, column: "managers.country" }),
      ]);
      return { scope, name: countryName(scope.code), entries: newestFirst([...companies, ...managers]) };
    }
    case "industry": {
      const section = industrySections.find((candidate) => candidate.code === scope.code);
      if (!section) return undefined;
      const entries = await companyEntries(db, { column: "companies.industry_section", value: scope.code });
      return { scope, name: section.title, entries };
    }
  }
}
