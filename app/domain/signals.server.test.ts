import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { seededRandom } from "#tests/support/seeded-random.ts";
import { insertCompany, insertCompanyReview } from "#tests/support/test-fixtures.ts";
import { author, companyReview, testReceiptSecret } from "#tests/support/test-contributions.ts";
import { companyCriteria } from "#app/lib/ratings.ts";
import { findCompany } from "./companies.server.ts";
import { contributionPublisher, recordCompanyReview } from "./contributions.server.ts";
import { transparencyReport } from "./moderation.server.ts";
import { type PublicationSettings, publishQueued } from "./publication.server.ts";
import { scanForManipulation } from "./signal-scan.server.ts";
import { detectSignals, openAlerts, releaseAlert, type SignalReview } from "./signals.server.ts";

const vocabulary = Array.from({ length: 400 }, (_, index) => `word${index.toString(36)}`);

/** A text of 25 words drawn at random: two such texts share no three words in a row, as two honest reviews. */
function randomText(random: () => number): string {
  return Array.from({ length: 25 }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(" ");
}

function shiftDay(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** Stars drawn from a fixed mix: mostly 4 and 5, some 3, few 1 and 2. */
function usualStars(random: () => number): number {
  const draw = random();
  return draw < 0.05 ? 1 : draw < 0.1 ? 2 : draw < 0.3 ? 3 : draw < 0.65 ? 4 : 5;
}

const today = "2026-11-24";
const since = "2025-06-01";

/** A steady stream: each day a review with probability `perDay`, from `since` up to and including `until`. */
function steadyStream(random: () => number, perDay: number, until = today): SignalReview[] {
  const reviews: SignalReview[] = [];
  for (let day = since; day <= until; day = shiftDay(day, 1)) {
    if (random() < perDay) reviews.push({ day, stars: usualStars(random), text: randomText(random) });
  }
  return reviews;
}

describe("manipulation signals on synthetic histories", () => {
  it("leaves a steady stream alone on every day of a year and a half", () => {
    const random = seededRandom(1);
    const reviews = steadyStream(random, 0.3);
    expect(reviews.length).toBeGreaterThan(120);
    const fired: string[] = [];
    for (let day = shiftDay(since, 7); day <= today; day = shiftDay(day, 1)) {
      const signals = detectSignals(
        reviews.filter((review) => review.day <= day),
        day,
        since,
      );
      if (signals.length > 0) fired.push(`${day}: ${signals.map((signal) => signal.detail).join("; ")}`);
    }
    expect(fired).toEqual([]);
  });

  it("fires on a genuine volume spike: 15 reviews in a week where about 2 are usual", () => {
    const random = seededRandom(2);
    const history = steadyStream(random, 0.3, shiftDay(today, -7));
    const spike = Array.from({ length: 15 }, (_, index) => ({
      day: shiftDay(today, -(index % 7)),
      stars: usualStars(random),
      text: randomText(random),
    }));
    const signals = detectSignals([...history, ...spike], today, since);
    expect(signals.map((signal) => signal.code)).toEqual(["volume-spike"]);
    expect(signals[0]?.detail).toMatch(/^15 reviews in 7 days where 2\.\d were expected \(Poisson p = \d\.\de-\d+\)$/);
  });

  it("does not flag a new subject for its first few reviews, nor a spike of fewer than five", () => {
    const random = seededRandom(3);
    const fresh = Array.from({ length: 4 }, () => ({ day: today, stars: 5, text: randomText(random) }));
    expect(detectSignals(fresh, today, shiftDay(today, -2))).toEqual([]);
    // Four reviews in a week after a year of silence: improbable, but too few to say anything.
    expect(detectSignals(fresh, today, since)).toEqual([]);
  });

  it("fires on a rating shift: a week of one-star reviews after a year of fours and fives", () => {
    const random = seededRandom(4);
    const history = steadyStream(random, 0.3, shiftDay(today, -7));
    const recent = Array.from({ length: 6 }, (_, index) => ({
      day: shiftDay(today, -index),
      stars: 1,
      text: randomText(random),
    }));
    const signals = detectSignals([...history, ...recent], today, since);
    expect(signals.map((signal) => signal.code)).toEqual(["rating-shift"]);
    // The same week with the usual mix of stars is no shift.
    const usual = recent.map((review) => ({ ...review, stars: usualStars(random) }));
    expect(detectSignals([...history, ...usual], today, since)).toEqual([]);
  });

  it("fires on near-duplicate texts: a lightly edited copy of an earlier review", () => {
    const random = seededRandom(5);
    const history = steadyStream(random, 0.3, shiftDay(today, -7));
    const copied = history[10]!.text.split(" ");
    copied[24] = "changed";
    const signals = detectSignals([...history, { day: today, stars: 4, text: copied.join(" ") }], today, since);
    expect(signals.map((signal) => signal.code)).toEqual(["near-duplicates"]);
    expect(signals[0]?.detail).toBe("1 of 1 reviews in 7 days nearly repeat another review of this subject");
  });
});

let keyDir: string;
let settings: PublicationSettings;
beforeEach(() => {
  keyDir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-signal-keys-"));
  settings = { intervalSeconds: 1800, managerMinReviews: 3, minAuthors: 3, keyDir, signalChecks: true };
});
afterEach(() => fs.rmSync(keyDir, { recursive: true, force: true }));

const publisher = contributionPublisher(testReceiptSecret);

/** A company added 400 days ago with a year of quiet history: a review every 30 days. */
async function quietCompany(db: Parameters<typeof insertCompany>[0], name: string): Promise<number> {
  const now = new Date().toISOString().slice(0, 10);
  const id = await insertCompany(db, { name, created_on: shiftDay(now, -400) });
  for (let month = 1; month <= 12; month++) {
    await insertCompanyReview(db, id, { created_on: shiftDay(now, -30 * month), review_text: `Review ${month}` });
  }
  return id;
}

function stars(value: number): Record<string, string> {
  return Object.fromEntries(companyCriteria.map((key) => [key, String(value)]));
}

describeEachEngine("manipulation signals", (database) => {
  it("holds a surging company's new reviews in the queue and opens one alert; a release publishes them", async () => {
    const { db } = database();
    const company = await quietCompany(db, "Surge GmbH");
    const random = seededRandom(6);
    for (let index = 0; index < 12; index++) {
      const review = companyReview({ ...stars(3), review_text: randomText(random) });
      await recordCompanyReview(db, author(`user-surge-${index}`), company, review, settings);
    }
    const before = await findCompany(db, company);

    const first = await publishQueued(db, publisher, { settings });

    expect(first).toMatchObject({ published: 0, held: 12, alerts: 1 });
    expect((await findCompany(db, company))?.reviewCount).toBe(before?.reviewCount);
    expect((await findCompany(db, company))?.unusualActivity).toBe(true);
    const alerts = await openAlerts(db);
    expect(alerts).toEqual([
      expect.objectContaining({ subject: "company", subjectId: company, signal: "volume-spike" }),
    ]);
    expect(JSON.stringify(alerts)).not.toMatch(/user-surge|review_id|reviewId/);
    // The next run keeps them waiting and raises nothing new.
    expect(await publishQueued(db, publisher, { settings })).toMatchObject({ published: 0, held: 12, alerts: 0 });

    await releaseAlert(db, alerts[0]!.alertId, "Checked: a team's honest reaction to a reorganisation.", "M");
    expect(await publishQueued(db, publisher, { settings })).toMatchObject({ published: 12, held: 0, alerts: 0 });
    expect((await findCompany(db, company))?.reviewCount).toBe((before?.reviewCount ?? 0) + 12);
    expect((await findCompany(db, company))?.unusualActivity).toBe(false);
    const [month] = (await transparencyReport(db)).months;
    expect(month?.alertsRaised).toBe(1);
  });

  it("publishes a steady company's reviews with the checks on", async () => {
    const { db } = database();
    const company = await quietCompany(db, "Steady AG");
    const random = seededRandom(7);
    for (let index = 0; index < 3; index++) {
      const review = companyReview({ review_text: randomText(random) });
      await recordCompanyReview(db, author(`user-steady-${index}`), company, review, settings);
    }
    expect(await publishQueued(db, publisher, { settings })).toMatchObject({ published: 3, held: 0, alerts: 0 });
    expect(await openAlerts(db)).toEqual([]);
  });

  it("runs the daily scan once however often it is started, and flags near-duplicates already published", async () => {
    const { db } = database();
    const company = await quietCompany(db, "Copy KG");
    const text = "The onboarding was smooth and the team lead explains every decision with patience and care.";
    const day = new Date().toISOString().slice(0, 10);
    await insertCompanyReview(db, company, { created_on: day, review_text: text });
    await insertCompanyReview(db, company, { created_on: day, review_text: `${text} Really.` });

    const runs = await Promise.all([scanForManipulation(db, settings), scanForManipulation(db, settings)]);

    expect(runs.filter((run) => run !== undefined)).toEqual([{ scanned: 1, raised: 1 }]);
    expect(await scanForManipulation(db, settings)).toBeUndefined();
    expect(await db.selectFrom("signal_scans").selectAll().execute()).toEqual([{ day }]);
    const alerts = await openAlerts(db);
    expect(alerts.map((alert) => alert.signal)).toEqual(["near-duplicates"]);
  });
});
