import type { Kysely } from "kysely";
import { fold } from "#app/lib/fold.ts";
import { newReviewId } from "#app/lib/ids.server.ts";
import { nameSkeleton } from "#app/lib/names.server.ts";
import { companyCriteria, companyYesNo, managerCriteria, managerYesNo, ratingRank } from "#app/lib/ratings.ts";
import type {
  Database,
  NewCompany,
  NewCompanyReview,
  NewManager,
  NewManagerReview,
  SubjectKind,
} from "#app/db/schema.ts";

/**
 * Hand-made rows for integration tests. Every review insert recomputes its subject's stored aggregates (sums, counts,
 * distributions) from all of its reviews, so the rows are as consistent as those a real submission leaves behind.
 */

type Db = Kysely<Database>;

/**
 * Sets a subject's sum of squared rating totals and its rank, and rewrites its rating and tag distributions and its
 * monthly buckets from all of `reviews`
 * (the same numbers a publication of each would leave, computed here from scratch).
 */
async function refreshDistributions(
  db: Db,
  subject: { kind: SubjectKind; table: "companies" | "managers"; id: number; criteria: readonly string[] },
  reviews: Array<Record<string, unknown>>,
): Promise<void> {
  const ratings = new Map<string, number>();
  const tags = new Map<string, number>();
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  const months = new Map<string, Record<string, number>>();
  let squares = 0;
  let ratingSum = 0;
  for (const review of reviews) {
    const values = subject.criteria.map((criterion) => Number(review[criterion]));
    const total = values.reduce((sum, value) => sum + value, 0);
    squares += total * total;
    ratingSum += total;
    count(ratings, `overall=${Math.floor(total / values.length)}`);
    subject.criteria.forEach((criterion, index) => count(ratings, `${criterion}=${values[index]}`));
    for (const tag of JSON.parse(String(review.tags)) as string[]) count(tags, tag);
    const month = String(review.created_on).slice(0, 7);
    const bucket = months.get(month) ?? { review_count: 0 };
    bucket.review_count! += 1;
    subject.criteria.forEach((criterion, index) => {
      bucket[`sum_${criterion}`] = (bucket[`sum_${criterion}`] ?? 0) + values[index]!;
    });
    months.set(month, bucket);
  }
  const monthTable = subject.table === "companies" ? "company_months" : "manager_months";
  await db.deleteFrom(monthTable).where("subject_id", "=", subject.id).execute();
  const monthRows = [...months].map(([month, bucket]) => ({
    subject_id: subject.id,
    month,
    review_count: 0,
    ...bucket,
  }));
  if (monthRows.length > 0) await db.insertInto(monthTable).values(monthRows).execute();
  await db
    .updateTable(subject.table)
    .set({
      sum_total_squares: squares,
      rating_rank: ratingRank(ratingSum, reviews.length, subject.criteria.length),
    })
    .where("id", "=", subject.id)
    .execute();
  const key = { subject: subject.kind, subject_id: subject.id };
  await db
    .deleteFrom("rating_counts")
    .where("subject", "=", key.subject)
    .where("subject_id", "=", key.subject_id)
    .execute();
  await db
    .deleteFrom("tag_counts")
    .where("subject", "=", key.subject)
    .where("subject_id", "=", key.subject_id)
    .execute();
  const ratingRows = [...ratings].map(([entry, n]) => {
    const [criterion, value] = entry.split("=");
    return { ...key, criterion: criterion!, value: Number(value), count: n };
  });
  if (ratingRows.length > 0) await db.insertInto("rating_counts").values(ratingRows).execute();
  const tagRows = [...tags].map(([tag, n]) => ({ ...key, tag, count: n }));
  if (tagRows.length > 0) await db.insertInto("tag_counts").values(tagRows).execute();
}

export async function insertCompany(db: Db, fields: Partial<NewCompany> & { name: string }): Promise<number> {
  const row = await db
    .insertInto("companies")
    .values({
      folded_name: fold(fields.name),
      name_skeleton: nameSkeleton(fields.name),
      country: "DE",
      state: "Bavaria",
      city: "Munich",
      website: "https://company.example",
      glassdoor_url: "https://reviews.example/company",
      // Unique per row unless a test sets it: fixtures may repeat names and websites.
      website_key: `company.example#${newReviewId()}`,
      industry: "Software",
      recent_layoffs: null,
      created_on: "2025-06-01",
      ...fields,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A valid company review row (every rating 3, every answer no) with `fields` on top; not inserted. */
export function companyReviewRow(companyId: number, fields: Partial<NewCompanyReview> = {}): NewCompanyReview {
  const row: Record<string, unknown> = { id: newReviewId(), company_id: companyId };
  for (const criterion of companyCriteria) row[criterion] = 3;
  for (const question of companyYesNo) row[question] = 0;
  const review = {
    ...(row as NewCompanyReview),
    review_text: "A fair place to work, with room to grow.",
    tags: JSON.stringify(["Fair Pay"]),
    created_on: "2026-01-15",
    ...fields,
  };
  return { ...review, rating_total: companyCriteria.reduce((sum, key) => sum + Number(review[key]), 0) };
}

export async function insertCompanyReview(
  db: Db,
  companyId: number,
  fields: Partial<NewCompanyReview> = {},
): Promise<string> {
  const row = companyReviewRow(companyId, fields);
  await db.insertInto("company_reviews").values(row).execute();
  const reviews = await db
    .selectFrom("company_reviews")
    .selectAll()
    .where("company_id", "=", companyId)
    .orderBy("created_on", "desc")
    .orderBy("id", "desc")
    .execute();
  const aggregates: Record<string, number> = {
    review_count: reviews.length,
    again_yes: reviews.filter((review) => review.again === 1).length,
    recommend_yes: reviews.filter((review) => review.recommend === 1).length,
    latest_has_oncall: reviews[0]?.has_oncall ?? 0,
  };
  for (const criterion of companyCriteria) {
    aggregates[`sum_${criterion}`] = reviews.reduce((sum, review) => sum + review[criterion], 0);
  }
  await db.updateTable("companies").set(aggregates).where("id", "=", companyId).execute();
  await refreshDistributions(
    db,
    { kind: "company", table: "companies", id: companyId, criteria: companyCriteria },
    reviews,
  );
  return row.id;
}

export async function insertManager(
  db: Db,
  fields: Partial<NewManager> & { first_name: string; last_name: string },
  companyIds: number[] = [],
): Promise<number> {
  const row = await db
    .insertInto("managers")
    .values({
      folded_name: fold(`${fields.first_name} ${fields.last_name}`),
      name_skeleton: nameSkeleton(`${fields.first_name} ${fields.last_name}`),
      country: "DE",
      state: "Bavaria",
      city: "Munich",
      title: "Engineering Manager",
      department: null,
      linkedin_url: "https://linkedin.example/in/manager",
      created_on: "2025-06-01",
      ...fields,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  for (const companyId of companyIds) {
    await db.insertInto("manager_companies").values({ manager_id: row.id, company_id: companyId }).execute();
  }
  return row.id;
}

/** A valid manager review row (every rating 3, every answer no) with `fields` on top; not inserted. */
export function managerReviewRow(managerId: number, fields: Partial<NewManagerReview> = {}): NewManagerReview {
  const row: Record<string, unknown> = { id: newReviewId(), manager_id: managerId };
  for (const criterion of managerCriteria) row[criterion] = 3;
  for (const question of managerYesNo) row[question] = 0;
  const review = {
    ...(row as NewManagerReview),
    review_text: "Clear goals and honest feedback.",
    tags: JSON.stringify(["Fair"]),
    created_on: "2026-01-15",
    ...fields,
  };
  return { ...review, rating_total: managerCriteria.reduce((sum, key) => sum + Number(review[key]), 0) };
}

export async function insertManagerReview(
  db: Db,
  managerId: number,
  fields: Partial<NewManagerReview> = {},
): Promise<string> {
  const row = managerReviewRow(managerId, fields);
  await db.insertInto("manager_reviews").values(row).execute();
  const reviews = await db.selectFrom("manager_reviews").selectAll().where("manager_id", "=", managerId).execute();
  const aggregates: Record<string, number> = { review_count: reviews.length };
  for (const criterion of managerCriteria) {
    aggregates[`sum_${criterion}`] = reviews.reduce((sum, review) => sum + review[criterion], 0);
  }
  for (const question of managerYesNo) {
    aggregates[`${question}_yes`] = reviews.filter((review) => review[question] === 1).length;
  }
  await db.updateTable("managers").set(aggregates).where("id", "=", managerId).execute();
  await refreshDistributions(
    db,
    { kind: "manager", table: "managers", id: managerId, criteria: managerCriteria },
    reviews,
  );
  return row.id;
}

/** Follows `next` from the first page to the last (at most 100 pages, so a cursor that loops still ends). */
export async function allPages<T>(
  load: (cursor: string | null) => Promise<{ items: T[]; next: string | null }>,
): Promise<T[][]> {
  const pages: T[][] = [];
  let cursor: string | null = null;
  do {
    const page = await load(cursor);
    pages.push(page.items);
    cursor = page.next;
  } while (cursor && pages.length < 100);
  return pages;
}

export async function countRows(db: Db, table: keyof Database): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
