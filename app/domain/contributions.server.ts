import { createHmac } from "node:crypto";
import { type Kysely, sql, type Transaction } from "kysely";
import type { Database } from "#app/db/schema.ts";
import { publicDataChanged } from "#app/lib/data-version.server.ts";
import { fold } from "#app/lib/fold.ts";
import { newReviewId, today } from "#app/lib/ids.server.ts";
import { contributionMessages } from "#app/lib/messages.ts";
import { nameSkeleton } from "#app/lib/names.server.ts";
import { companyCriteria, managerCriteria, managerYesNo } from "#app/lib/ratings.ts";
import { websiteKey } from "#app/lib/urls.ts";
import type {
  CompanyInput,
  CompanyReviewInput,
  ManagerInput,
  ManagerReviewInput,
} from "./contribution-input.server.ts";

/**
 * Adding companies, managers and reviews. Every write is one transaction: a company with its first review, a
 * manager with its company link and first review, a review with its subject's aggregates. A failure at any step
 * leaves nothing behind. Nothing here stores who wrote a review (docs/data-model.md, what is never stored).
 */

export type ContributionFailure =
  "company-not-found" | "manager-not-found" | "company-exists" | "manager-exists" | "already-reviewed";

export class ContributionError extends Error {
  readonly kind: ContributionFailure;
  readonly status: number;
  constructor(kind: ContributionFailure) {
    const messages: Record<ContributionFailure, [string, number]> = {
      "company-not-found": [contributionMessages.companyIdRequired, 404],
      "manager-not-found": [contributionMessages.managerIdRequired, 404],
      "company-exists": [contributionMessages.companyExists, 409],
      "manager-exists": [contributionMessages.managerExists, 409],
      "already-reviewed": [contributionMessages.alreadyReviewed, 409],
    };
    const [message, status] = messages[kind];
    super(message);
    this.name = "ContributionError";
    this.kind = kind;
    this.status = status;
  }
}

/** The author of a write, known only long enough to check one-per-user rules. */
export type Author = { userId: string; secret: string };

/**
 * The receipt of "this user reviewed this manager": an HMAC of both ids under the server secret. It holds no review
 * id and no time, so it says that a user reviewed a manager, never which review is theirs.
 */
export function managerReviewReceipt(author: Author, managerId: number): string {
  return createHmac("sha256", author.secret)
    .update(`manager-review\u0000${author.userId}\u0000${managerId}`)
    .digest("base64url");
}

export async function hasReviewedManager(db: Kysely<Database>, author: Author, managerId: number): Promise<boolean> {
  const row = await db
    .selectFrom("review_receipts")
    .select("receipt")
    .where("receipt", "=", managerReviewReceipt(author, managerId))
    .executeTakeFirst();
  return row !== undefined;
}

type Trx = Transaction<Database>;

async function insertCompanyReview(trx: Trx, companyId: number, review: CompanyReviewInput): Promise<void> {
  const { tags, recent_layoffs: layoffs, ...values } = review;
  // The aggregates first: updating no row means there is no such company, and nothing is written.
  const updated = await trx
    .updateTable("companies")
    .set((eb) => {
      const sums = Object.fromEntries(companyCriteria.map((key) => [`sum_${key}`, eb(`sum_${key}`, "+", values[key])]));
      return {
        ...sums,
        review_count: eb("review_count", "+", 1),
        again_yes: eb("again_yes", "+", values.again),
        recommend_yes: eb("recommend_yes", "+", values.recommend),
        // Reviews are dated today, so this one is the latest (spec: has-on-call comes from the latest review).
        latest_has_oncall: values.has_oncall,
        // Spec: a layoffs date updates the company only when newer than the stored one, or when none is stored.
        ...(layoffs
          ? {
              recent_layoffs: sql<string>`case when recent_layoffs is null or recent_layoffs < ${layoffs} then ${layoffs} else recent_layoffs end`,
            }
          : {}),
      };
    })
    .where("id", "=", companyId)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) throw new ContributionError("company-not-found");
  await trx
    .insertInto("company_reviews")
    .values({ ...values, id: newReviewId(), company_id: companyId, tags: JSON.stringify(tags), created_on: today() })
    .execute();
}

async function insertManagerReview(
  trx: Trx,
  author: Author,
  managerId: number,
  review: ManagerReviewInput,
): Promise<void> {
  const receipt = await trx
    .insertInto("review_receipts")
    .values({ receipt: managerReviewReceipt(author, managerId) })
    .onConflict((conflict) => conflict.column("receipt").doNothing())
    .returning("receipt")
    .executeTakeFirst();
  if (!receipt) throw new ContributionError("already-reviewed");
  const { tags, ...values } = review;
  const updated = await trx
    .updateTable("managers")
    .set((eb) => ({
      ...Object.fromEntries(managerCriteria.map((key) => [`sum_${key}`, eb(`sum_${key}`, "+", values[key])])),
      ...Object.fromEntries(managerYesNo.map((key) => [`${key}_yes`, eb(`${key}_yes`, "+", values[key])])),
      review_count: eb("review_count", "+", 1),
    }))
    .where("id", "=", managerId)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) throw new ContributionError("manager-not-found");
  await trx
    .insertInto("manager_reviews")
    .values({ ...values, id: newReviewId(), manager_id: managerId, tags: JSON.stringify(tags), created_on: today() })
    .execute();
}

async function insertCompany(trx: Trx, company: CompanyInput): Promise<number> {
  const identity = { name_skeleton: nameSkeleton(company.name), website_key: websiteKey(company.website) };
  // Spec: "This company already exists." when name and website match; names match when they look alike (the same
  // skeleton), so a zero-width space or a Cyrillic "е" makes no second company. The unique index settles races.
  const existing = await trx
    .selectFrom("companies")
    .select("id")
    .where("name_skeleton", "=", identity.name_skeleton)
    .where("website_key", "=", identity.website_key)
    .executeTakeFirst();
  if (existing) throw new ContributionError("company-exists");
  const row = await trx
    .insertInto("companies")
    .values({ ...company, ...identity, folded_name: fold(company.name), created_on: today() })
    .onConflict((conflict) => conflict.columns(["name_skeleton", "website_key"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  if (!row) throw new ContributionError("company-exists");
  return row.id;
}

/** Adds a review of a company and updates its aggregates. */
export async function recordCompanyReview(
  db: Kysely<Database>,
  companyId: number,
  review: CompanyReviewInput,
): Promise<void> {
  await db.transaction().execute((trx) => insertCompanyReview(trx, companyId, review));
  publicDataChanged();
}

/** Adds a company together with its first review; returns the new company's id. */
export async function addCompany(
  db: Kysely<Database>,
  company: CompanyInput,
  review: CompanyReviewInput,
): Promise<number> {
  const id = await db.transaction().execute(async (trx) => {
    const id = await insertCompany(trx, company);
    await insertCompanyReview(trx, id, review);
    return id;
  });
  publicDataChanged();
  return id;
}

/** Adds a review of a manager: one per user per manager, enforced by the receipt's primary key. */
export async function recordManagerReview(
  db: Kysely<Database>,
  author: Author,
  managerId: number,
  review: ManagerReviewInput,
): Promise<void> {
  await db.transaction().execute((trx) => insertManagerReview(trx, author, managerId, review));
  publicDataChanged();
}

export type ManagerCompany = { id: number } | { company: CompanyInput };

/**
 * Adds a manager, links them to an existing company or one created here, and records the first review.
 * The manager's country is the company's.
 */
export async function addManager(
  db: Kysely<Database>,
  author: Author,
  input: { company: ManagerCompany; manager: ManagerInput; review: ManagerReviewInput },
): Promise<number> {
  const id = await db.transaction().execute(async (trx) => {
    const companyId = "id" in input.company ? input.company.id : await insertCompany(trx, input.company.company);
    const company = await trx
      .selectFrom("companies")
      .select(["id", "country"])
      .where("id", "=", companyId)
      .executeTakeFirst();
    if (!company) throw new ContributionError("company-not-found");
    const { direct_reports: _confirmed, department, ...manager } = input.manager;
    // The same person: a name that looks alike with the same LinkedIn profile.
    const name_skeleton = nameSkeleton(`${manager.first_name} ${manager.last_name}`);
    const existing = await trx
      .selectFrom("managers")
      .select("id")
      .where("name_skeleton", "=", name_skeleton)
      .where("linkedin_url", "=", manager.linkedin_url)
      .executeTakeFirst();
    if (existing) throw new ContributionError("manager-exists");
    const row = await trx
      .insertInto("managers")
      .values({
        ...manager,
        department: department ?? null,
        folded_name: fold(`${manager.first_name} ${manager.last_name}`),
        name_skeleton,
        country: company.country,
        created_on: today(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await trx.insertInto("manager_companies").values({ manager_id: row.id, company_id: company.id }).execute();
    await insertManagerReview(trx, author, row.id, input.review);
    return row.id;
  });
  publicDataChanged();
  return id;
}

export type CompanySuggestion = { id: number; name: string; city: string; country: string };

export const suggestionMinLength = 5;
export const suggestionLimit = 10;

/**
 * Companies whose name contains what was typed, or is contained in it (possible duplicates of
 * the company being added), by name, at most 10; nothing under 5 characters.
 */
export async function companySuggestions(db: Kysely<Database>, typed: string): Promise<CompanySuggestion[]> {
  const term = fold(typed);
  if (term.length < suggestionMinLength) return [];
  const pattern = `%${term.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
  return db
    .selectFrom("companies")
    .select(["id", "name", "city", "country"])
    .where((eb) =>
      eb.or([
        sql<boolean>`folded_name like ${pattern} escape '\\'`,
        // The stored name is the pattern here: its own %, _ and \ must match literally too.
        sql<boolean>`${term} like '%' || replace(replace(replace(folded_name, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%' escape '\\'`,
      ]),
    )
    .orderBy("folded_name")
    .orderBy("id")
    .limit(suggestionLimit)
    .execute();
}
