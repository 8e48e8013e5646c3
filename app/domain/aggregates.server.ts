import {
  type ExpressionBuilder,
  type Kysely,
  type OnConflictBuilder,
  type RawBuilder,
  sql,
  type Transaction,
} from "kysely";
import type { Database } from "#app/db/schema.ts";
import { averageScore, rankPrior } from "#app/lib/ratings.ts";
import type { Subject } from "./subjects.server.ts";

/**
 * The one place where a review's share of its subject's stored aggregates is added or taken away (docs/data-model.md):
 * the review count, the sums per criterion, the counted yes answers, the sum of squared rating totals, the
 * distributions of ratings and tags, and the bucket of its month of publication (count and sums per criterion). Publication adds (`sign` 1); a moderator's removal takes away (-1), a restore adds
 * back, a withdrawal takes away. Always inside the caller's transaction, so the aggregates agree with the reviews at
 * every commit.
 */

/**
 * A review as its values are stored: criteria 1-5, yes/no answers 0/1 (or booleans), its tags, and its date (the day
 * of publication, 'YYYY-MM-DD'), whose month names its bucket.
 */
export type ReviewShare = Record<string, unknown> & { tags: readonly string[]; created_on: string };

type Trx = Transaction<Database> | Kysely<Database>;

/** The sum of a review's criteria, whose mean (floored) is its overall score; stored as `rating_total`. */
export function ratingTotal(subject: Subject, review: Record<string, unknown>): number {
  return subject.criteria.reduce((sum, key) => sum + Number(review[key]), 0);
}

/** The sum of every criterion of every review of a subject row, from its stored sums. */
function sumOfSums(subject: Subject): RawBuilder<number> {
  return sql<number>`(${sql.join(
    subject.criteria.map((key) => sql.ref(`sum_${key}`)),
    sql` + `,
  )})`;
}

/**
 * `rating_rank` (ratingRank in app/lib/ratings.ts) from a sum of all ratings and a review count, in SQL: a division
 * of doubles on both engines, so it equals the JavaScript figure exactly.
 */
function ratingRankSql(subject: Subject, ratingSum: RawBuilder<number>, reviewCount: RawBuilder<number>) {
  const n = subject.criteria.length;
  return sql<number>`case when ${reviewCount} > 0
    then cast(${ratingSum} + ${sql.lit(rankPrior.score * rankPrior.reviews * n)} as double precision)
      / (${sql.lit(n)} * (${reviewCount} + ${sql.lit(rankPrior.reviews)}))
    else 0 end`;
}

/**
 * Moves one review's share into (`sign` 1) or out of (-1) its subject's aggregates. `extra` sets further columns of
 * the subject row in the same update (a company's newest on-call answer, its layoffs date). Returns false, having
 * written nothing, when there is no such subject.
 */
export async function moveReviewShare(
  trx: Trx,
  subject: Subject,
  subjectId: number,
  review: ReviewShare,
  sign: 1 | -1,
  extra: (eb: ExpressionBuilder<any, any>) => Record<string, unknown> = () => ({}),
): Promise<boolean> {
  const op = sign === 1 ? "+" : "-";
  const total = ratingTotal(subject, review);
  const updated = await (trx as Kysely<any>)
    .updateTable(subject.table)
    .set((eb: ExpressionBuilder<any, any>) => ({
      review_count: eb("review_count", op, 1),
      ...Object.fromEntries(subject.criteria.map((key) => [`sum_${key}`, eb(`sum_${key}`, op, Number(review[key]))])),
      ...Object.fromEntries(
        subject.countedYesNo.map((key) => [`${key}_yes`, eb(`${key}_yes`, op, Number(review[key]))]),
      ),
      sum_total_squares: eb("sum_total_squares", op, total * total),
      // From the values before this update, as every right-hand side of one UPDATE reads them.
      rating_rank: ratingRankSql(
        subject,
        sql<number>`${sumOfSums(subject)} ${sql.raw(op)} ${sql.lit(total)}`,
        sql<number>`review_count ${sql.raw(op)} 1`,
      ),
      ...extra(eb),
    }))
    .where("id", "=", subjectId)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) !== 1) return false;

  const base = { subject: subject.kind, subject_id: subjectId, count: sign };
  const score = averageScore(subject.criteria.map((key) => Number(review[key])));
  await trx
    .insertInto("rating_counts")
    .values([
      { ...base, criterion: "overall", value: score },
      ...subject.criteria.map((key) => ({ ...base, criterion: key, value: Number(review[key]) })),
    ])
    .onConflict((conflict) =>
      conflict
        .columns(["subject", "subject_id", "criterion", "value"])
        .doUpdateSet({ count: sql`rating_counts.count + excluded.count` }),
    )
    .execute();
  const sums = Object.fromEntries(subject.criteria.map((key) => [`sum_${key}`, sign * Number(review[key])]));
  await (trx as Kysely<any>)
    .insertInto(subject.monthTable)
    .values({ subject_id: subjectId, month: review.created_on.slice(0, 7), review_count: sign, ...sums })
    .onConflict((conflict: OnConflictBuilder<any, any>) =>
      conflict.columns(["subject_id", "month"]).doUpdateSet((eb) => ({
        review_count: eb(`${subject.monthTable}.review_count`, "+", eb.ref("excluded.review_count")),
        ...Object.fromEntries(
          Object.keys(sums).map((column) => [
            column,
            eb(`${subject.monthTable}.${column}`, "+", eb.ref(`excluded.${column}`)),
          ]),
        ),
      })),
    )
    .execute();
  // A review's tags are distinct (the input schema refuses repeats), so no key comes twice in one statement.
  const tags = [...new Set(review.tags)];
  if (tags.length > 0) {
    await trx
      .insertInto("tag_counts")
      .values(tags.map((tag) => ({ ...base, tag })))
      .onConflict((conflict) =>
        conflict
          .columns(["subject", "subject_id", "tag"])
          .doUpdateSet({ count: sql`tag_counts.count + excluded.count` }),
      )
      .execute();
  }
  return true;
}
