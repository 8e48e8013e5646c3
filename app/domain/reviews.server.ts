import {
  averageScore,
  type CompanyCriterion,
  type CompanyYesNo,
  type ManagerCriterion,
  type ManagerYesNo,
  companyCriteria,
  companyYesNo,
  managerCriteria,
  managerYesNo,
} from "#app/lib/ratings.ts";
import type { CompanyReview, ManagerReview } from "#app/db/schema.ts";
import { decodeCursor, encodeCursor } from "#app/lib/cursor.server.ts";

export const reviewsPageSize = 10;

/** What a review card shows. The date is the month only (docs/data-model.md, what is never stored). */
export type CompanyReviewCard = {
  id: string;
  month: string;
  ratings: Record<CompanyCriterion, number>;
  answers: Record<CompanyYesNo, boolean>;
  tags: string[];
  text: string;
  score: number;
  /** The author's verified work domain ("Verified: works at example.com"), or null. */
  verifiedDomain: string | null;
};

export type ManagerReviewCard = {
  id: string;
  month: string;
  ratings: Record<ManagerCriterion, number>;
  answers: Record<ManagerYesNo, boolean>;
  tags: string[];
  text: string;
  score: number;
};

export type Page<T> = { items: T[]; next: string | null };

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

export function companyReviewCard(row: CompanyReview): CompanyReviewCard {
  const ratings = pick(row, companyCriteria);
  return {
    id: row.id,
    month: row.created_on.slice(0, 7),
    ratings,
    answers: answers(row, companyYesNo),
    tags: parseTags(row.tags),
    text: row.review_text,
    score: averageScore(Object.values(ratings)),
    verifiedDomain: row.verified_domain,
  };
}

export function managerReviewCard(row: ManagerReview): ManagerReviewCard {
  const ratings = pick(row, managerCriteria);
  return {
    id: row.id,
    month: row.created_on.slice(0, 7),
    ratings,
    answers: answers(row, managerYesNo),
    tags: parseTags(row.tags),
    text: row.review_text,
    score: averageScore(Object.values(ratings)),
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

/** Averages per criterion from the stored sums; null when there are no reviews yet. */
export function averagesFromSums<K extends string>(
  row: Record<string, unknown>,
  keys: readonly K[],
  reviewCount: number,
): Record<K, number | null> {
  return Object.fromEntries(
    keys.map((key) => [key, reviewCount > 0 ? Math.round((Number(row[`sum_${key}`]) / reviewCount) * 10) / 10 : null]),
  ) as Record<K, number | null>;
}

/** The mean of all the rating fields of all reviews, floored; 0 without reviews. */
export function scoreFromSums(row: Record<string, unknown>, keys: readonly string[], reviewCount: number): number {
  if (reviewCount === 0) return 0;
  const total = keys.reduce((sum, key) => sum + Number(row[`sum_${key}`]), 0);
  return Math.floor(total / (reviewCount * keys.length));
}
