import type { Kysely, Transaction } from "kysely";
import { z } from "zod";
import type { Database } from "#app/db/schema.ts";
import { publicDataChanged } from "#app/lib/data-version.server.ts";
import { moderationLengths, moderationMessages, type SignalCode, signalMessages } from "#app/lib/moderation.ts";
import { paths } from "#app/lib/paths.ts";
import { chiSquareHomogeneity, jaccard, poissonUpperTail, shingles } from "#app/lib/statistics.ts";
import { ModerationError } from "./moderation.server.ts";
import type { AlertItem } from "./public-shapes.server.ts";
import { companySubject, managerSubject } from "./subjects.server.ts";

/**
 * Manipulation signals (docs/moderation.md, decision 0015): simple tests per company and manager, run by the
 * publication on each batch and by a daily scan. A signal that fires opens an alert on the subject, never on a review:
 * no statistic can say which review is fake, only that a subject's reviews changed in a way that wants a human look.
 * While an alert is open the subject's page says so and its new reviews wait in the sealed queue.
 */

type Db = Kysely<Database> | Transaction<Database>;
export type SubjectKind = "company" | "manager";

/** The thresholds, in one place: decision 0015 says why each is what it is. */
export const signalRules = {
  /** The recent window the tests look at, in days, ending today. */
  windowDays: 7,
  /** The history a window is compared with: at most this many days before the window. */
  historyDays: 364,
  /** A volume spike: P(X >= recent) under Poisson(expected) below this, with at least `minSpike` recent reviews. */
  spikeProbability: 1e-6,
  minSpike: 5,
  /** The least expected reviews per window, so a subject with little history is not flagged for a few reviews. */
  minExpectedPerWindow: 0.5,
  /** A rating shift: chi-square p below this, with at least `minShift` recent and `minHistory` earlier reviews. */
  shiftProbability: 1e-6,
  minShift: 5,
  minHistory: 10,
  /** Near-duplicates: word-trigram Jaccard similarity at least this, for texts of at least `minShingles` trigrams. */
  duplicateSimilarity: 0.8,
  minShingles: 8,
  /** The most earlier texts a recent one is compared with. */
  maxCompared: 200,
} as const;

/** One review as the tests see it: the day it was published (or, for the batch under way, today), its overall star
 * rating (the mean of its criteria, rounded, 1 to 5) and its text. */
export type SignalReview = { day: string; stars: number; text: string };

export type Signal = { code: SignalCode; detail: string };

/** Whole days from one YYYY-MM-DD to another. */
function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

function shiftDay(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

function formatProbability(p: number): string {
  return p < 1e-3 ? p.toExponential(1) : p.toFixed(4);
}

/**
 * The signals that fire for one subject's reviews on `today`: `reviews` holds its published reviews (removed ones
 * left out) and, at publication, the batch under way dated today; `since` is the day the subject was added.
 */
export function detectSignals(reviews: readonly SignalReview[], today: string, since: string): Signal[] {
  const rules = signalRules;
  const windowStart = shiftDay(today, -(rules.windowDays - 1));
  const recent = reviews.filter((review) => review.day >= windowStart && review.day <= today);
  const history = reviews.filter(
    (review) => review.day < windowStart && review.day >= shiftDay(windowStart, -rules.historyDays),
  );
  const signals: Signal[] = [];

  // Volume: the rate of the history (over the days it covers, at least one window), against the recent count.
  const span = Math.min(rules.historyDays, Math.max(rules.windowDays, daysBetween(since, windowStart)));
  const expected = Math.max(rules.minExpectedPerWindow, (history.length * rules.windowDays) / span);
  const tail = poissonUpperTail(recent.length, expected);
  if (recent.length >= rules.minSpike && tail < rules.spikeProbability) {
    signals.push({
      code: "volume-spike",
      detail: `${recent.length} reviews in ${rules.windowDays} days where ${expected.toFixed(1)} were expected (Poisson p = ${formatProbability(tail)})`,
    });
  }

  // Ratings: the recent stars against the history's, 1 to 5.
  if (recent.length >= rules.minShift && history.length >= rules.minHistory) {
    const count = (list: readonly SignalReview[]) =>
      [1, 2, 3, 4, 5].map((stars) => list.filter((review) => review.stars === stars).length);
    const test = chiSquareHomogeneity(count(recent), count(history));
    if (test.p < rules.shiftProbability) {
      const mean = (list: readonly SignalReview[]) => list.reduce((sum, review) => sum + review.stars, 0) / list.length;
      signals.push({
        code: "rating-shift",
        detail: `mean rating ${mean(recent).toFixed(1)} in ${rules.windowDays} days against ${mean(history).toFixed(1)} before (chi-square ${test.statistic.toFixed(1)}, ${test.df} df, p = ${formatProbability(test.p)})`,
      });
    }
  }

  // Texts: each recent one against every other of the subject (the newest, as many as `maxCompared` besides).
  const pool = [...reviews]
    .filter((review) => review.day <= today)
    .sort((a, b) => b.day.localeCompare(a.day))
    .slice(0, rules.maxCompared + recent.length)
    .map((review) => ({ recent: review.day >= windowStart, shingles: shingles(review.text) }))
    .filter((entry) => entry.shingles.size >= rules.minShingles);
  let copies = 0;
  for (const [index, entry] of pool.entries()) {
    if (!entry.recent) continue;
    const repeats = pool.some(
      (other, otherIndex) =>
        otherIndex !== index && jaccard(entry.shingles, other.shingles) >= rules.duplicateSimilarity,
    );
    if (repeats) copies += 1;
  }
  if (copies > 0) {
    signals.push({
      code: "near-duplicates",
      detail: `${copies} of ${recent.length} reviews in ${rules.windowDays} days nearly repeat another review of this subject`,
    });
  }
  return signals;
}

// ---------------------------------------------------------------------------------------------------------------
// Against the database

const subjects = { company: companySubject, manager: managerSubject } as const;

export function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

/** A review's overall stars: the mean of its criteria, rounded, 1 to 5. */
export function starsOf(review: Record<string, unknown>, kind: SubjectKind): number {
  const criteria = subjects[kind].criteria;
  const total = criteria.reduce((sum, key) => sum + Number(review[key]), 0);
  return Math.min(5, Math.max(1, Math.round(total / criteria.length)));
}

/** The subject's published reviews that stand, over the window and its history, as the tests see them. */
async function publishedReviews(db: Db, kind: SubjectKind, subjectId: number, today: string): Promise<SignalReview[]> {
  const subject = subjects[kind];
  const from = shiftDay(today, -(signalRules.windowDays + signalRules.historyDays));
  const rows = await db
    .selectFrom(subject.reviewTable)
    .select(["created_on", "review_text", ...subject.criteria])
    .where(subject.subjectColumn, "=", subjectId)
    .where("created_on", ">=", from)
    .where("id", "not in", (eb) => eb.selectFrom("removed_reviews").select("review_id"))
    .execute();
  return rows.map((row) => ({
    day: row.created_on,
    stars: starsOf(row as Record<string, unknown>, kind),
    text: row.review_text,
  }));
}

/** The day a real subject was added; undefined for demo subjects, whose generated reviews no statistic is about. */
async function addedOn(db: Db, kind: SubjectKind, subjectId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom(subjects[kind].table)
    .select(["created_on", "is_demo"])
    .where("id", "=", subjectId)
    .executeTakeFirst();
  return row && row.is_demo !== 1 ? row.created_on : undefined;
}

/** Whether the subject has an alert no moderator has released: its page says so, its new reviews wait. */
export async function hasOpenAlert(db: Db, kind: SubjectKind, subjectId: number): Promise<boolean> {
  const row = await db
    .selectFrom("subject_alerts as a")
    .select("a.id")
    .where("a.subject", "=", kind)
    .where("a.subject_id", "=", subjectId)
    .where("a.id", "not in", (eb) => eb.selectFrom("alert_decisions").select("alert_id"))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether a moderator released an alert of the subject within the window: what they looked at may not fire again. */
async function releasedLately(db: Db, kind: SubjectKind, subjectId: number, today: string): Promise<boolean> {
  const row = await db
    .selectFrom("subject_alerts as a")
    .innerJoin("alert_decisions as d", "d.alert_id", "a.id")
    .select("a.id")
    .where("a.subject", "=", kind)
    .where("a.subject_id", "=", subjectId)
    .where("d.decided_on", ">", shiftDay(today, -signalRules.windowDays))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Runs the tests for one subject, with `batch` (the reviews a publication is about to write, dated today) beside
 * its published ones, and opens an alert for each signal that fires. Answers whether the subject's new reviews must
 * wait: it has an open alert, old or new. A subject whose alert a moderator released within the window is not
 * flagged again for what they already saw, and demo subjects never are.
 */
export async function checkSubject(
  trx: Transaction<Database>,
  kind: SubjectKind,
  subjectId: number,
  batch: readonly Omit<SignalReview, "day">[],
  today = todayUtc(),
): Promise<{ hold: boolean; raised: number }> {
  if (await hasOpenAlert(trx, kind, subjectId)) return { hold: true, raised: 0 };
  if (await releasedLately(trx, kind, subjectId, today)) return { hold: false, raised: 0 };
  const since = await addedOn(trx, kind, subjectId);
  if (since === undefined) return { hold: false, raised: 0 };
  const reviews = [
    ...(await publishedReviews(trx, kind, subjectId, today)),
    ...batch.map((r) => ({ ...r, day: today })),
  ];
  const signals = detectSignals(reviews, today, since);
  for (const signal of signals) {
    await trx
      .insertInto("subject_alerts")
      .values({ subject: kind, subject_id: subjectId, signal: signal.code, detail: signal.detail, raised_on: today })
      .execute();
  }
  return { hold: signals.length > 0, raised: signals.length };
}

/** The subjects with reviews published in the window: what the daily scan looks at. */
export async function recentlyReviewedSubjects(
  db: Db,
  today = todayUtc(),
): Promise<Array<{ kind: SubjectKind; id: number }>> {
  const from = shiftDay(today, -(signalRules.windowDays - 1));
  const companies = await db
    .selectFrom("company_reviews")
    .select("company_id")
    .distinct()
    .where("created_on", ">=", from)
    .execute();
  const managers = await db
    .selectFrom("manager_reviews")
    .select("manager_id")
    .distinct()
    .where("created_on", ">=", from)
    .execute();
  return [
    ...companies.map((row) => ({ kind: "company" as const, id: row.company_id })),
    ...managers.map((row) => ({ kind: "manager" as const, id: row.manager_id })),
  ];
}

/**
 * Records that today's scan runs; false when it ran already (another process, or an earlier run today). Inside the
 * publication lock, so of two processes one scans and the other finds the day taken.
 */
export async function claimScanDay(trx: Transaction<Database>, today = todayUtc()): Promise<boolean> {
  const inserted = await trx
    .insertInto("signal_scans")
    .values({ day: today })
    .onConflict((oc) => oc.column("day").doNothing())
    .returning("day")
    .executeTakeFirst();
  return inserted !== undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Alerts for moderators

export const releaseSchema = z.object({
  statement: z
    .string()
    .trim()
    .min(1, moderationMessages.statementRequired)
    .max(moderationLengths.statement, moderationMessages.statementRequired),
});

/** A release as the API takes it: the alert's number with the statement. */
export const releaseBodySchema = z.intersection(
  z.object({
    alertId: z
      .number()
      .int()
      .min(1)
      .max(2 ** 31 - 1),
  }),
  releaseSchema,
);

/** The alerts no moderator has released, the oldest first, with their subject's name and page. */
export async function openAlerts(db: Db): Promise<AlertItem[]> {
  const rows = await db
    .selectFrom("subject_alerts as a")
    .leftJoin("companies as c", (join) => join.onRef("c.id", "=", "a.subject_id").on("a.subject", "=", "company"))
    .leftJoin("managers as m", (join) => join.onRef("m.id", "=", "a.subject_id").on("a.subject", "=", "manager"))
    .select([
      "a.id",
      "a.subject",
      "a.subject_id",
      "a.signal",
      "a.detail",
      "a.raised_on",
      "c.name",
      "m.first_name",
      "m.last_name",
    ])
    .where("a.id", "not in", (eb) => eb.selectFrom("alert_decisions").select("alert_id"))
    .orderBy("a.id")
    .execute();
  return rows.map((row) => ({
    alertId: row.id,
    subject: row.subject,
    subjectId: row.subject_id,
    subjectName: row.subject === "company" ? (row.name ?? "") : `${row.first_name ?? ""} ${row.last_name ?? ""}`,
    subjectPath: row.subject === "company" ? paths.company(row.subject_id) : paths.manager(row.subject_id),
    signal: row.signal,
    detail: row.detail,
    raisedOn: row.raised_on,
  }));
}

/**
 * A moderator's release of an alert, with a statement: an append-only event. Once every alert of the subject is
 * released its page loses the notice, and its waiting reviews go out with the next batch.
 */
export async function releaseAlert(
  db: Kysely<Database>,
  alertId: number,
  statement: string,
  moderator: string,
): Promise<{ id: number }> {
  const released = await db.transaction().execute(async (trx) => {
    const alert = await trx.selectFrom("subject_alerts").select("id").where("id", "=", alertId).executeTakeFirst();
    if (!alert) throw new ModerationError(signalMessages.alertNotFound, 404);
    const done = await trx
      .selectFrom("alert_decisions")
      .select("id")
      .where("alert_id", "=", alertId)
      .executeTakeFirst();
    if (done) throw new ModerationError(signalMessages.alreadyReleased, 409);
    return trx
      .insertInto("alert_decisions")
      .values({ alert_id: alertId, statement, moderator, decided_on: todayUtc() })
      .returning("id")
      .executeTakeFirstOrThrow();
  });
  publicDataChanged();
  return released;
}
