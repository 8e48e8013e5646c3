import { type Kysely, sql } from "kysely";
import { z } from "zod";
import { containsText } from "#app/db/dialect.ts";
import type { CompanyReview, Database, ManagerReview } from "#app/db/schema.ts";
import { decodeCursor, encodeCursor } from "#app/lib/cursor.server.ts";
import { formatMonth } from "#app/lib/format.ts";
import { type ReportReason, removalMarker } from "#app/lib/moderation.ts";
import { averageScore } from "#app/lib/ratings.ts";
import { hasControlCharacters } from "#app/lib/control-characters.ts";
import { escapeLike } from "#app/lib/fold.ts";
import { maxSearchTermLength } from "#app/lib/limits.ts";
import type { CompanyReviewItem, Page, RemovedReview, ReviewCard, ReviewItem } from "./public-shapes.server.ts";
import { type Subject, type companySubject, pageOf } from "./subjects.server.ts";

export const reviewsPageSize = 10;

function pick<K extends string>(row: Record<string, unknown>, keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((key) => [key, Number(row[key])])) as Record<K, number>;
}

function answers<K extends string>(row: Record<string, unknown>, keys: readonly K[]): Record<K, boolean> {
  return Object.fromEntries(keys.map((key) => [key, Number(row[key]) === 1])) as Record<K, boolean>;
}

/** The tags of a stored review row (a JSON array as text). */
export function parseTags(tags: string): string[] {
  const parsed: unknown = JSON.parse(tags);
  return Array.isArray(parsed) ? parsed.filter((tag): tag is string => typeof tag === "string") : [];
}

/**
 * What a review card shows. The date is the month only (docs/data-model.md, what is never stored). It also shows
 * the author's verified work domain, or null.
 */
export function reviewCard<C extends string, Y extends string>(
  subject: Subject<C, Y>,
  row: CompanyReview | ManagerReview,
): ReviewCard<C, Y> {
  const ratings = pick(row, subject.criteria);
  return {
    id: row.id,
    month: row.created_on.slice(0, 7),
    ratings,
    answers: answers(row, subject.yesNo),
    tags: parseTags(row.tags),
    text: row.review_text,
    score: averageScore(Object.values(ratings)),
    helpfulVotes: Number(row.helpful_votes),
    verifiedDomain: row.verified_domain ?? null,
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

/** The orders a subject's reviews can be listed in: newest first, by overall score either way, or most helpful. */
export const reviewSorts = ["newest", "highest", "lowest", "helpful"] as const;
export type ReviewSort = (typeof reviewSorts)[number];

export const reviewListMessages = {
  sort: "Choose how to sort: newest, highest, lowest or most helpful.",
  rating: "Choose an overall score from 1 to 5.",
  tag: "Choose a tag from the list.",
  words: `Type at most ${maxSearchTermLength} characters to find.`,
} as const;

/**
 * How a reader narrows a subject's reviews (the page's form and the API's query alike): the order, an overall score,
 * a tag of the subject's list, and words the text must contain. Empty fields mean "any".
 */
export function reviewListSchema(tags: readonly string[]) {
  const empty = (value: unknown) => (value === "" ? undefined : value);
  return z.object({
    sort: z.preprocess(empty, z.enum(reviewSorts, { error: reviewListMessages.sort }).default("newest")),
    rating: z.preprocess(
      empty,
      z
        .string({ error: reviewListMessages.rating })
        .regex(/^[1-5]$/, reviewListMessages.rating)
        .transform(Number)
        .optional(),
    ),
    tag: z.preprocess(empty, z.enum(tags as [string, ...string[]], { error: reviewListMessages.tag }).optional()),
    q: z.preprocess(
      (value) => (typeof value === "string" ? empty(value.trim()) : value),
      z
        .string({ error: reviewListMessages.words })
        .max(maxSearchTermLength, reviewListMessages.words)
        .refine((value) => !hasControlCharacters(value), reviewListMessages.words)
        .optional(),
    ),
  });
}
export type ReviewListQuery = { sort: ReviewSort; rating?: number; tag?: string; q?: string };
export const newestFirst: ReviewListQuery = { sort: "newest" };

/** True when the list is narrowed or reordered, so removal markers, which have no score or text, stay out of it. */
export function isNarrowed(list: ReviewListQuery): boolean {
  return list.sort !== "newest" || list.rating !== undefined || list.tag !== undefined || list.q !== undefined;
}

/**
 * A subject's reviews, keyset-paginated after the review `before` names: newest first by (created_on, id), by
 * `rating_total` (highest or lowest first, newest first among equals) or by `helpful_votes` (most first, newest
 * first among equals), narrowed to an overall score, a tag and words of the text. Plain newest first, a removed
 * review keeps its place as a marker; narrowed lists leave it out. Every order runs on an index of the subject's
 * reviews (`*_newest`, `*_by_total`, `*_by_helpful`); a tag or words are checked on the subject's rows only.
 */
export async function subjectReviews(
  db: Kysely<Database>,
  subject: typeof companySubject,
  subjectId: number,
  before?: string | null,
  list?: ReviewListQuery,
): Promise<Page<CompanyReviewItem>>;
export async function subjectReviews<C extends string, Y extends string>(
  db: Kysely<Database>,
  subject: Subject<C, Y>,
  subjectId: number,
  before?: string | null,
  list?: ReviewListQuery,
): Promise<Page<ReviewItem<C, Y>>>;
export async function subjectReviews<C extends string, Y extends string>(
  db: Kysely<Database>,
  subject: Subject<C, Y>,
  subjectId: number,
  before?: string | null,
  list: ReviewListQuery = newestFirst,
): Promise<Page<ReviewItem<C, Y>>> {
  const { reviewTable, subjectColumn } = subject;
  const afterId = decodeReviewCursor(before);
  const position = afterId
    ? await db
        .selectFrom(reviewTable)
        .select(["created_on", "id", "rating_total", "helpful_votes"])
        .where("id", "=", afterId)
        .where(subjectColumn, "=", subjectId)
        .executeTakeFirst()
    : undefined;
  let select = db.selectFrom(reviewTable).selectAll().where(subjectColumn, "=", subjectId);
  if (list.sort === "highest") select = select.orderBy("rating_total", "desc");
  if (list.sort === "lowest") select = select.orderBy("rating_total", "asc");
  if (list.sort === "helpful") select = select.orderBy("helpful_votes", "desc");
  select = select
    .orderBy("created_on", "desc")
    .orderBy("id", "desc")
    .limit(reviewsPageSize + 1);
  if (position) {
    select = select.where((eb) => {
      const older = eb(eb.refTuple("created_on", "id"), "<", eb.tuple(position.created_on, position.id));
      if (list.sort === "newest") return older;
      if (list.sort === "helpful") {
        const fewer = eb("helpful_votes", "<", position.helpful_votes);
        return eb.or([fewer, eb.and([eb("helpful_votes", "=", position.helpful_votes), older])]);
      }
      const past = eb("rating_total", list.sort === "highest" ? "<" : ">", position.rating_total);
      return eb.or([past, eb.and([eb("rating_total", "=", position.rating_total), older])]);
    });
  }
  if (list.rating !== undefined) {
    const k = subject.criteria.length;
    select = select.where("rating_total", ">=", list.rating * k).where("rating_total", "<", (list.rating + 1) * k);
  }
  if (list.tag !== undefined) {
    select = select.where(sql<boolean>`tags like ${`%${escapeLike(JSON.stringify(list.tag))}%`} escape '\\'`);
  }
  for (const word of list.q?.split(/\s+/).filter(Boolean) ?? []) {
    select = select.where(containsText(db, "review_text", word));
  }
  if (isNarrowed(list)) {
    select = select.where("id", "not in", (eb) => eb.selectFrom("removed_reviews").select("review_id"));
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
