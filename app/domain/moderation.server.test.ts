import fs from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { createTestDatabase, describeEachEngine } from "#tests/support/test-database.ts";
import { createTestAuth, signUpAccount } from "#tests/support/test-accounts.ts";
import {
  insertCompany,
  insertCompanyReview,
  insertManager,
  insertManagerReview,
} from "#tests/support/test-fixtures.ts";
import type { Database } from "#app/db/schema.ts";
import type { Kysely } from "kysely";
import { companyCriteria, managerCriteria, managerYesNo } from "#app/lib/ratings.ts";
import { companyReviews, findCompany } from "./companies.server.ts";
import { managerReviews } from "./managers.server.ts";
import { company as newCompanyInput, companyReview, published, someone } from "#tests/support/test-contributions.ts";
import { addCompany, recordCompanyReview } from "./contributions.server.ts";
import { backgroundSettled } from "#app/lib/background.server.ts";
import {
  appealRemoval,
  decide,
  grantRole,
  ModerationError,
  moderationLog,
  moderationQueue,
  moderatorOf,
  reportReview,
  revokeRole,
  transparencyReport,
  withdrawReview,
} from "./moderation.server.ts";

/** Every stored aggregate of a company, to compare before and after. */
async function companyAggregates(db: Kysely<Database>, id: number) {
  return db
    .selectFrom("companies")
    .select([
      "review_count",
      "again_yes",
      "recommend_yes",
      "latest_has_oncall",
      ...companyCriteria.map((key) => `sum_${key}` as const),
    ])
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
}

async function managerAggregates(db: Kysely<Database>, id: number) {
  return db
    .selectFrom("managers")
    .select([
      "review_count",
      ...managerCriteria.map((key) => `sum_${key}` as const),
      ...managerYesNo.map((key) => `${key}_yes` as const),
    ])
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
}

const outbox = await vi.hoisted(() => import("#tests/support/test-outbox.ts"));

const report = { reason: "private-person", explanation: "It names my colleague.", contactEmail: null } as const;

describeEachEngine("moderation", (database) => {
  it("removes a reported review with a statement: aggregates drop it exactly, a marker keeps its place", async () => {
    const { db } = database();
    const company = await insertCompany(db, { name: "Marker Corp" });
    await insertCompanyReview(db, company, { created_on: "2026-01-10", has_oncall: 1 });
    const before = await companyAggregates(db, company);
    const reported = await insertCompanyReview(db, company, {
      created_on: "2026-02-10",
      culture: 1,
      reputation: 5,
      recommend: 1,
      again: 1,
      has_oncall: 0,
      review_text: "Names Jane Doe from accounting.",
    });
    expect((await companyAggregates(db, company)).review_count).toBe(2);

    await reportReview(db, reported, report);
    const [queued] = await moderationQueue(db);
    expect(queued?.reviewId).toBe(reported);
    expect(queued?.reports.map((entry) => entry.reason)).toEqual(["private-person"]);

    const decision = await decide(
      db,
      reported,
      { action: "remove", reason: "private-person", statement: "Names a colleague." },
      "Moderator T",
    );

    expect(await companyAggregates(db, company)).toEqual(before);
    expect((await findCompany(db, company))?.reviewCount).toBe(1);
    const page = await companyReviews(db, company);
    expect(page.items.map((item) => item.id)).toContain(reported);
    const marker = page.items.find((item) => item.id === reported);
    expect(marker && "removed" in marker ? marker.removed.decision : undefined).toBe(decision.id);
    expect(JSON.stringify(page)).not.toContain("Jane Doe");
    expect(await moderationQueue(db)).toEqual([]);

    const log = await moderationLog(db);
    expect(log.items).toEqual([
      expect.objectContaining({ decision: decision.id, action: "remove", reason: "private-person" }),
    ]);
    expect(JSON.stringify(log)).not.toContain("Jane Doe");
  });

  it("restores a removed review: the aggregates are exactly as before the removal", async () => {
    const { db } = database();
    const manager = await insertManager(db, { first_name: "Restore", last_name: "Me" });
    await insertManagerReview(db, manager, { trust: 4 });
    const reviewId = await insertManagerReview(db, manager, { trust: 1, gives_credit: 1, vision: 2 });
    const full = await managerAggregates(db, manager);

    await decide(db, reviewId, { action: "remove", reason: "spam", statement: "Advertising." }, "Moderator T");
    const removed = await managerAggregates(db, manager);
    expect(removed.review_count).toBe(full.review_count - 1);
    expect(removed.sum_trust).toBe(full.sum_trust - 1);
    expect(removed.gives_credit_yes).toBe(full.gives_credit_yes - 1);

    await decide(db, reviewId, { action: "restore", reason: null, statement: "Appeal upheld." }, "Moderator T");
    expect(await managerAggregates(db, manager)).toEqual(full);
    const page = await managerReviews(db, manager);
    expect(page.items.every((item) => !("removed" in item))).toBe(true);
    expect((await moderationLog(db)).items.map((entry) => entry.action)).toEqual(["restore", "remove"]);
  });

  it("refuses to remove twice, to restore a review that stands, and a removal without a reason", async () => {
    const { db } = database();
    const company = await insertCompany(db, { name: "Twice Corp" });
    const reviewId = await insertCompanyReview(db, company);
    const removal = { action: "remove", reason: "spam", statement: "Spam." } as const;

    await expect(
      decide(db, reviewId, { action: "restore", reason: null, statement: "No." }, "M"),
    ).rejects.toBeInstanceOf(ModerationError);
    await decide(db, reviewId, removal, "M");
    await expect(decide(db, reviewId, removal, "M")).rejects.toThrow(/removed already/);
    await expect(decide(db, "no-such-review", removal, "M")).rejects.toThrow(/does not exist/);
    expect((await companyAggregates(db, company)).review_count).toBe(0);
  });

  it("keeps a review: nothing changes but the log, and the reports close", async () => {
    const { db } = database();
    const company = await insertCompany(db, { name: "Keep Corp" });
    const reviewId = await insertCompanyReview(db, company);
    const before = await companyAggregates(db, company);
    await reportReview(db, reviewId, { reason: "fake", explanation: "", contactEmail: null });
    await reportReview(db, reviewId, { reason: "spam", explanation: "", contactEmail: null });
    expect((await moderationQueue(db))[0]?.reports).toHaveLength(2);

    await decide(db, reviewId, { action: "keep", reason: null, statement: "First-hand and civil." }, "M");

    expect(await companyAggregates(db, company)).toEqual(before);
    expect(await moderationQueue(db)).toEqual([]);
    const open = await db.selectFrom("review_reports").select("id").where("decision_id", "is", null).execute();
    expect(open).toEqual([]);
  });

  it("erases a reporter's contact address once the decision is sent", async () => {
    const { db } = database();
    const company = await insertCompany(db, { name: "Notice Corp" });
    const reviewId = await insertCompanyReview(db, company);
    await reportReview(db, reviewId, { ...report, contactEmail: "reader@example.com" });
    const stored = await db.selectFrom("review_reports").select("contact_email").executeTakeFirstOrThrow();
    expect(stored.contact_email).toBe("reader@example.com");

    await decide(db, reviewId, { action: "keep", reason: null, statement: "Fine." }, "M");

    const after = await db.selectFrom("review_reports").select("contact_email").executeTakeFirstOrThrow();
    expect(after.contact_email).toBeNull();
  });

  it("mails a named address once per decision, however many reports named it and however spelled", async () => {
    // Ten reports naming one address gave that unconfirmed address ten mails (fails without, checked).
    const { db } = database();
    const company = await insertCompany(db, { name: "Flood Corp" });
    const reviewId = await insertCompanyReview(db, company);
    await grantRole(db, (await signUpAccount(createTestAuth(database()), "mod2@example.com")).email, "moderator");
    outbox.clearOutbox(); // the sign-up's confirmation
    const spellings = ["victim@acmecorp.com", "Victim@AcmeCorp.com", "victim+1@acmecorp.com", "victim+2@acmecorp.com"];
    for (let index = 0; index < 10; index += 1) {
      await reportReview(db, reviewId, { ...report, contactEmail: spellings[index % spellings.length]! });
    }
    await decide(db, reviewId, { action: "keep", reason: null, statement: "Fine." }, "M");
    await backgroundSettled();
    expect(outbox.sentMails().map((mail) => mail.subject)).toEqual([
      expect.stringMatching(/decision \d+ on the review you reported/),
    ]);
    const left = await db
      .selectFrom("review_reports")
      .select("contact_email")
      .where("review_id", "=", reviewId)
      .execute();
    expect(left.map((row) => row.contact_email)).toEqual(Array.from({ length: 10 }, () => null));
  });

  it("mails the operator when no moderator exists and the queue of reports stops being empty, not per report", async () => {
    // Before a moderator exists, every report mailed the operator (fails without, checked).
    const { db } = database();
    const company = await insertCompany(db, { name: "Quiet Corp" });
    const first = await insertCompanyReview(db, company);
    const second = await insertCompanyReview(db, company);
    for (let index = 0; index < 10; index += 1) await reportReview(db, index % 2 ? first : second, report);
    await backgroundSettled();
    expect(outbox.sentMails().map((mail) => mail.subject)).toEqual([expect.stringMatching(/a review was reported/)]);
    expect(outbox.sentMails()[0]?.text).toContain("npm run admin -- reports");
    // Once the operator has decided every report, the next one is mailed again.
    await decide(db, first, { action: "keep", reason: null, statement: "Fine." }, "operator");
    await decide(db, second, { action: "keep", reason: null, statement: "Fine." }, "operator");
    outbox.clearOutbox();
    await reportReview(db, first, report);
    await reportReview(db, second, report);
    await backgroundSettled();
    expect(outbox.sentMails()).toHaveLength(1);
  });

  it("refuses a report of a review that does not exist", async () => {
    await expect(reportReview(database().db, "missing", report)).rejects.toThrow(/does not exist/);
  });

  it("grants a role from an e-mail with a pseudonym that never shows the e-mail, and revokes it", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth, "mod@example.com");
    const { db } = database();

    const granted = await grantRole(db, "Mod@Example.com", "moderator");
    expect(granted.pseudonym).toMatch(/^Moderator [0-9A-F]{6}$/);
    expect(granted.pseudonym).not.toContain("mod@");
    expect(await moderatorOf(db, account.userId)).toEqual(granted);

    const promoted = await grantRole(db, "mod@example.com", "admin");
    expect(promoted).toEqual({ role: "admin", pseudonym: granted.pseudonym });

    expect(await revokeRole(db, "mod@example.com")).toBe(true);
    expect(await moderatorOf(db, account.userId)).toBeUndefined();
    await expect(grantRole(db, "nobody@example.com", "moderator")).rejects.toThrow(/No account/);
  });

  it("counts reports, decisions by action and reason, and the median days to a decision, per month", async () => {
    const { db } = database();
    const company = await insertCompany(db, { name: "Figures Corp" });
    const first = await insertCompanyReview(db, company);
    const second = await insertCompanyReview(db, company);
    await reportReview(db, first, report);
    await reportReview(db, first, { ...report, reason: "spam" });
    await reportReview(db, second, report);
    // Reports that arrived earlier: two and four days before today.
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
    const ids = (await db.selectFrom("review_reports").select("id").orderBy("id").execute()).map((row) => row.id);
    await db
      .updateTable("review_reports")
      .set({ received_on: daysAgo(2) })
      .where("id", "=", ids[0]!)
      .execute();
    await db
      .updateTable("review_reports")
      .set({ received_on: daysAgo(4) })
      .where("id", "=", ids[1]!)
      .execute();
    await decide(db, first, { action: "remove", reason: "private-person", statement: "Names a colleague." }, "M");
    await decide(db, second, { action: "keep", reason: null, statement: "Fine." }, "M");

    const { months } = await transparencyReport(db);
    const thisMonth = new Date().toISOString().slice(0, 7);
    const current = months.find((entry) => entry.month === thisMonth);
    expect(current?.decisions).toEqual({ keep: 1, remove: 1, restore: 0 });
    expect(current?.removalsByReason).toEqual({ "private-person": 1 });
    // Waits of 2, 4 and 0 days: the median is 2.
    expect(current?.medianDaysToDecision).toBe(2);
    const reports = months.reduce((sum, entry) => sum + entry.reportsReceived, 0);
    expect(reports).toBe(3);
  });

  it("stores only the hash of a review's key, written when the review is published", async () => {
    const { db } = database();
    const submission = await addCompany(db, someone, newCompanyInput(), companyReview());
    const companyId = published(submission);
    expect(submission.reviewKey).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const keys = await db.selectFrom("review_keys").selectAll().execute();
    const [review] = await db.selectFrom("company_reviews").select("id").where("company_id", "=", companyId).execute();
    expect(keys).toEqual([{ key_hash: expect.any(String), review_id: review?.id }]);
    expect(keys[0]?.key_hash).not.toBe(submission.reviewKey);
  });

  it("lets the key's holder appeal a removal into the queue; a restore closes the appeal", async () => {
    const { db } = database();
    const companyId = published(await addCompany(db, someone, newCompanyInput(), companyReview()));
    const submission = await recordCompanyReview(db, someone, companyId, companyReview({ culture: "1" }));
    const reviewId = (await db.selectFrom("review_keys").select("review_id").execute()).map((row) => row.review_id);
    const { items } = await companyReviews(db, companyId);
    const target = items.find((item) => reviewId.includes(item.id) && "ratings" in item && item.ratings.culture === 1);
    expect(target).toBeDefined();

    await expect(appealRemoval(db, submission.reviewKey, "Please restore.")).rejects.toThrow(/not removed/);
    await expect(appealRemoval(db, "not-a-key", "Please restore.")).rejects.toThrow(/opens no review/);
    await decide(db, target!.id, { action: "remove", reason: "spam", statement: "Looks like spam." }, "M");
    await appealRemoval(db, submission.reviewKey, "It is my honest experience.");

    const [queued] = await moderationQueue(db);
    expect(queued?.reviewId).toBe(target!.id);
    expect(queued?.appeals.map((appeal) => appeal.statement)).toEqual(["It is my honest experience."]);
    await decide(db, target!.id, { action: "restore", reason: null, statement: "Appeal upheld." }, "M");
    expect(await moderationQueue(db)).toEqual([]);
  });

  it("takes one waiting appeal per removal, even when several are sent at once", async () => {
    // A review key filed appeal after appeal, each a row in the moderators' queue (fails without the unique index
    // over a review's undecided appeals, checked).
    const { db } = database();
    const companyId = published(await addCompany(db, someone, newCompanyInput(), companyReview()));
    const submission = await recordCompanyReview(db, someone, companyId, companyReview({ culture: "1" }));
    const keyed = (await db.selectFrom("review_keys").select("review_id").execute()).map((key) => key.review_id);
    const { items } = await companyReviews(db, companyId);
    const removed = items.find((item) => keyed.includes(item.id) && "ratings" in item && item.ratings.culture === 1);
    expect(removed).toBeDefined();
    await decide(db, removed!.id, { action: "remove", reason: "spam", statement: "Looks like spam." }, "M");

    const attempts = await Promise.allSettled(
      Array.from({ length: 6 }, (_, index) => appealRemoval(db, submission.reviewKey, `Appeal number ${index}.`)),
    );
    expect(attempts.filter((attempt) => attempt.status === "fulfilled")).toHaveLength(1);
    for (const attempt of attempts) {
      if (attempt.status === "rejected") expect(String(attempt.reason)).toMatch(/already in the moderators' queue/);
    }
    await expect(appealRemoval(db, submission.reviewKey, "Once more.")).rejects.toThrow(/already in the moderators/);
    const [queued] = await moderationQueue(db);
    expect(queued?.appeals).toHaveLength(1);

    // Decided (the removal kept), the removal may be appealed once more, again one at a time.
    await decide(db, removed!.id, { action: "keep", reason: "spam", statement: "The removal stands." }, "M");
    await appealRemoval(db, submission.reviewKey, "New facts.");
    await expect(appealRemoval(db, submission.reviewKey, "And again.")).rejects.toThrow(/already in the moderators/);
  });

  it("withdraws the review the key opens: the row, its key and its share of the aggregates are gone", async () => {
    const { db } = database();
    const companyId = published(await addCompany(db, someone, newCompanyInput(), companyReview()));
    const before = await companyAggregates(db, companyId);
    const submission = await recordCompanyReview(db, someone, companyId, companyReview({ culture: "1" }));
    expect((await companyAggregates(db, companyId)).review_count).toBe(before.review_count + 1);

    await withdrawReview(db, submission.reviewKey);

    expect(await companyAggregates(db, companyId)).toEqual(before);
    expect(await db.selectFrom("company_reviews").select("id").execute()).toHaveLength(1);
    expect(await db.selectFrom("review_keys").select("key_hash").execute()).toHaveLength(1);
    await expect(withdrawReview(db, submission.reviewKey)).rejects.toThrow(/opens no review/);
  });
});

describe("withdrawing a review on SQLite", () => {
  it("leaves no copy of its text, id or key hash in the database file or its WAL", async () => {
    const database = await createTestDatabase("sqlite");
    try {
      const { db } = database;
      const companyId = published(await addCompany(db, someone, newCompanyInput(), companyReview()));
      const text = "Withdrawn witness: the quarterly planning at Frobozz was chaotic.";
      const submission = await recordCompanyReview(db, someone, companyId, companyReview({ review_text: text }));
      const { review_id: reviewId, key_hash: keyHash } = await db
        .selectFrom("review_keys as k")
        .innerJoin("company_reviews as r", "r.id", "k.review_id")
        .select(["k.review_id", "k.key_hash"])
        .where("r.review_text", "=", text)
        .executeTakeFirstOrThrow();
      const traces = [text, reviewId, keyHash];
      const raw = () => Buffer.concat([fs.readFileSync(database.url), fs.readFileSync(`${database.url}-wal`)]);
      // The witness: before the withdrawal every trace is there to be found.
      for (const trace of traces) expect(raw().includes(trace), trace).toBe(true);

      await withdrawReview(db, submission.reviewKey);

      for (const trace of traces) expect(raw().includes(trace), trace).toBe(false);
    } finally {
      await database.drop();
    }
  });
});
