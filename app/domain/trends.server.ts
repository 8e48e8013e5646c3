import type { Kysely } from "kysely";
import type { Database } from "#app/db/schema.ts";
import { env } from "#app/lib/env.server.ts";
import { trendMinReviews, trendMonthsShown } from "#app/lib/limits.ts";
import { oneDecimal } from "#app/lib/statistics.ts";
import type { Subject } from "./subjects.server.ts";

/**
 * Trends (decision 0017): a subject's means per month of publication, read from its monthly buckets (kept by
 * `moveReviewShare`), never from the reviews. A month shows only with at least `trendMinimumReviews()` reviews, so a
 * point of the chart is never one or two people's ratings; every review already shows its month and its ratings, so
 * the buckets say nothing a reader of the list could not add up.
 */

export type TrendMonth<C extends string = string> = {
  month: string;
  reviewCount: number;
  overall: number;
  criteria: Record<C, number>;
};

export type Trend<C extends string = string> = { minimumReviews: number; months: Array<TrendMonth<C>> };

/** At least 5, and never fewer than the small-team minimum of the anonymity rules (MANAGER_MIN_REVIEWS). */
export function trendMinimumReviews(): number {
  return Math.max(trendMinReviews, env().MANAGER_MIN_REVIEWS);
}

/**
 * The latest `trendMonthsShown` months of a subject with enough reviews, oldest first: the mean overall score (the
 * mean of all its criteria, as the headline's) and each criterion's mean, one decimal. One read of the subject's own
 * buckets by primary key. `shown` false (a manager below the small-team minimum) answers no months.
 */
export async function subjectTrend<C extends string>(
  db: Kysely<Database>,
  subject: Subject<C>,
  subjectId: number,
  shown = true,
): Promise<Trend<C>> {
  const minimumReviews = trendMinimumReviews();
  if (!shown) return { minimumReviews, months: [] };
  const rows = await db
    .selectFrom(subject.monthTable)
    .selectAll()
    .where("subject_id", "=", subjectId)
    .where("review_count", ">=", minimumReviews)
    .orderBy("month", "desc")
    .limit(trendMonthsShown)
    .execute();
  const months = rows.reverse().map((row) => {
    const count = Number(row.review_count);
    const sum = (key: string) => Number((row as Record<string, unknown>)[`sum_${key}`]);
    const total = subject.criteria.reduce((all, key) => all + sum(key), 0);
    return {
      month: row.month,
      reviewCount: count,
      overall: oneDecimal(total / (count * subject.criteria.length)),
      criteria: Object.fromEntries(subject.criteria.map((key) => [key, oneDecimal(sum(key) / count)])) as Record<
        C,
        number
      >,
    };
  });
  return { minimumReviews, months };
}
