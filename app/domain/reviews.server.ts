import type { Kysely } from "kysely";
import type { CompanyReview, Database, ManagerReview } from "#app/db/schema.ts";
import { decodeCursor, encodeCursor } from "#app/lib/cursor.server.ts";
import { formatMonth } from "#app/lib/format.ts";
import { type ReportReason, removalMarker } from "#app/lib/moderation.ts";
import { averageScore } from "#app/lib/ratings.ts";
import type {
  CompanyReviewCard,
  CompanyReviewItem,
  Page,
  RemovedReview,
  ReviewCard,
  ReviewItem,
} from "./public-shapes.server.ts";
import { type Subject, type companySubject, pageOf } from "./subjects.server.ts";

export const reviewsPageSize = 10;

function pick<K extends string>(row: Record<string, unknown>, keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((key) => [key, Number(row[key])])) as Record<K, number>;
}

function answers<K extends string>(row: Record<string, unknown>, keys: readonly K[]): Record<K, boolean> {
  return Object.fromEntries(keys.map((key) => [key, Number(row[key]) === 1])) as Record<K, boolean>;
}

function parseTags(tags: string): string[] {
  const parsed: unknown = JSON.parse(tags);
  return Array.isArray(parsed) ? parsed.filter((tag): tag is string => typeof tag === "string") : [];
}

/**
 * What a review card shows. The date is the month only (docs/data-model.md, what is never stored). A company review
 * also shows the author's verified work domain, or null.
 */
export function reviewCard(subject: typeof companySubject, row: CompanyReview): CompanyReviewCard;
export function reviewCard<C extends string, Y extends string>(
  subject: Subject<C, Y>,
  row: CompanyReview | ManagerReview,
): ReviewCard<C, Y>;
export function reviewCard<C extends string, Y extends string>(
  subject: Subject<C, Y>,
  row: CompanyReview | ManagerReview,
): ReviewCard<C, Y> | CompanyReviewCard {
  const ratings = pick(row, subject.criteria);
  return {
    id: row.id,
    month: row.created_on.slice(0, 7),
    ratings,
    answers: answers(row, subject.yesNo),
    tags: parseTags(row.tags),
    text: row.review_text,
    score: averageScore(Object.values(ratings)),
    ...("verified_domain" in row ? { verifiedDomain: row.verified_domain } : {}),
  };
}

/**
 * Keyset position of a review list: the id of the last review shown, whose (created_on, id) the next page looks
 * up. Not the day itself: the cursor sits in a public link, and pages show a review's month only (docs/data-model.md).
 */
export function reviewCursor(row: { id: string }): string {
  return encodeCursor([row.id]);
}

export function decodeReviewCursor(cursor: string | null | undefined): string | undefined {
  const key = decodeCursor(cursor);
  return key?.length === 1 && typeof key[0] === "string" ? key[0] : undefined;
}

/** True for a review shown in full, false for a removed review's marker. */
export function isReviewCard<T extends ReviewCard>(item: T | RemovedReview): item is T {
  return !("removed" in item);
}

/** The marker of a review removed by `decision` (docs/moderation.md): its place in the list, never its text. */
export function removedReview(
  row: { id: string; created_on: string },
  decision: { id: number; reason: string | null; decided_on: string },
): RemovedReview {
  const reason = (decision.reason ?? "spam") as ReportReason;
  const month = decision.decided_on.slice(0, 7);
  return {
    id: row.id,
    month: row.created_on.slice(0, 7),
    removed: { decision: decision.id, month, reason, marker: removalMarker(formatMonth(month), reason, decision.id) },
  };
}

/**
 * A subject's reviews, newest first, keyset-paginated by (created_on, id). A removed review keeps its place as a
 * marker.
 */
export async function subjectReviews(
  db: Kysely<Database>,
  subject: typeof companySubject,
  subjectId: number,
  before?: string | null,
): Promise<Page<CompanyReviewItem>>;
export async function subjectReviews<C extends string, Y extends string>(
  db: Kysely<Database>,
  subject: Subject<C, Y>,
  subjectId: number,
  before?: string | null,
): Promise<Page<ReviewItem<C, Y>>>;
export async function subjectReviews<C extends string, Y extends string>(
  db: Kysely<Database>,
  subject: Subject<C, Y>,
  subjectId: number,
  before?: string | null,
): Promise<Page<ReviewItem<C, Y>>> {
  const { reviewTable, subjectColumn } = subject;
  const afterId = decodeReviewCursor(before);
  const position = afterId
    ? await db
        .selectFrom(reviewTable)
        .select(["created_on", "id"])
        .where("id", "=", afterId)
        .where(subjectColumn, "=", subjectId)
        .executeTakeFirst()
    : undefined;
  let select = db
    .selectFrom(reviewTable)
    .selectAll()
    .where(subjectColumn, "=", subjectId)
    .orderBy("created_on", "desc")
    .orderBy("id", "desc")
    .limit(reviewsPageSize + 1);
  if (position) {
    select = select.where((eb) => eb(eb.refTuple("created_on", "id"), "<", eb.tuple(position.created_on, position.id)));
  }
  const rows: Array<CompanyReview | ManagerReview> = await select.execute();
  const removals = rows.length
    ? await db
        .selectFrom("removed_reviews as r")
        .innerJoin("moderation_decisions as d", "d.id", "r.decision_id")
        .select(["r.review_id", "d.id", "d.reason", "d.decided_on"])
        .where(
          "r.review_id",
          "in",
          rows.map((row) => row.id),
        )
        .execute()
    : [];
  const removedBy = new Map(removals.map((removal) => [removal.review_id, removal]));
  return pageOf(
    rows,
    reviewsPageSize,
    (row) => {
      const decision = removedBy.get(row.id);
      return decision ? removedReview(row, decision) : reviewCard(subject, row);
    },
    reviewCursor,
  );
}
