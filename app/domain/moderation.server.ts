import { randomBytes } from "node:crypto";
import { type Kysely, sql, type Transaction } from "kysely";
import { z } from "zod";
import { eraseDeleted, reviewSideTables } from "#app/db/erase.server.ts";
import type { CompanyReview, Database, ManagerReview } from "#app/db/schema.ts";
import { publicDataChanged } from "#app/lib/data-version.server.ts";
import { env } from "#app/lib/env.server.ts";
import { logger } from "#app/lib/logger.server.ts";
import { runInBackground } from "#app/lib/background.server.ts";
import { sendMail } from "#app/lib/mail.server.ts";
import { mailboxOf } from "#app/lib/mailboxes.server.ts";
import { messages } from "#app/lib/messages.ts";
import {
  type ModerationAction,
  type ModerationRole,
  moderationLengths,
  moderationMessages,
  type ReportReason,
  reportReasonCodes,
  reportReasons,
} from "#app/lib/moderation.ts";
import { paths } from "#app/lib/paths.ts";
import type { DecisionResult, ModerationLog, QueueItem, TransparencyReport } from "./public-shapes.server.ts";
import { moveReviewShare } from "./aggregates.server.ts";
import { orphanVotes } from "./helpful-votes.server.ts";
import { parseTags, reviewCard } from "./reviews.server.ts";
import { reviewKeyHash } from "./contributions.server.ts";
import { companySubject, managerSubject } from "./subjects.server.ts";

/**
 * Reports, moderators and their decisions (docs/moderation.md). Nothing here knows or stores who wrote a review: a
 * report names the review and a reason; a decision names the review, the moderator's pseudonym and a day.
 */

type Trx = Transaction<Database>;
export type SubjectKind = "company" | "manager";

/** Today as YYYY-MM-DD (UTC): the finest time moderation stores. */
function today(): string {
  return new Date().toISOString().slice(0, 10);
}

// ---------------------------------------------------------------------------------------------------------------
// Finding a review

export type FoundReview =
  | { kind: "company"; subjectId: number; row: CompanyReview; removedBy: number | null }
  | { kind: "manager"; subjectId: number; row: ManagerReview; removedBy: number | null };

/** A published review of either subject by its id, with the decision that removed it, if it is removed now. */
export async function findReview(db: Kysely<Database> | Trx, reviewId: string): Promise<FoundReview | undefined> {
  const removal = await db
    .selectFrom("removed_reviews")
    .select("decision_id")
    .where("review_id", "=", reviewId)
    .executeTakeFirst();
  const removedBy = removal?.decision_id ?? null;
  const company = await db.selectFrom("company_reviews").selectAll().where("id", "=", reviewId).executeTakeFirst();
  if (company) return { kind: "company", subjectId: company.company_id, row: company, removedBy };
  const manager = await db.selectFrom("manager_reviews").selectAll().where("id", "=", reviewId).executeTakeFirst();
  if (manager) return { kind: "manager", subjectId: manager.manager_id, row: manager, removedBy };
  return undefined;
}

/** The page of the review's subject, where its card (or its marker) is. */
export function subjectPath(kind: SubjectKind, subjectId: number): string {
  return kind === "company" ? paths.company(subjectId) : paths.manager(subjectId);
}

async function subjectName(db: Kysely<Database>, kind: SubjectKind, subjectId: number): Promise<string> {
  if (kind === "company") {
    const row = await db.selectFrom("companies").select("name").where("id", "=", subjectId).executeTakeFirst();
    return row?.name ?? "";
  }
  const row = await db
    .selectFrom("managers")
    .select(["first_name", "last_name"])
    .where("id", "=", subjectId)
    .executeTakeFirst();
  return row ? `${row.first_name} ${row.last_name}` : "";
}

// ---------------------------------------------------------------------------------------------------------------
// Reports

const optionalEmail = z
  .string()
  .trim()
  .max(254, moderationMessages.emailInvalid)
  .transform((value) => (value === "" ? null : value))
  .pipe(z.email(moderationMessages.emailInvalid).nullable());

export const reportSchema = z.object({
  reason: z.enum(reportReasonCodes as [ReportReason, ...ReportReason[]], moderationMessages.reasonRequired),
  explanation: z.string().trim().max(moderationLengths.explanation).default(""),
  contactEmail: optionalEmail.default(null),
});
export type ReportInput = z.infer<typeof reportSchema>;

export class ModerationError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.name = "ModerationError";
    this.status = status;
  }
}

/**
 * Files a report. With no moderator configured, the report is mailed to the operator (CONTACT_EMAIL), who can act
 * with `npm run admin`. Returns the report's number.
 */
export async function reportReview(db: Kysely<Database>, reviewId: string, input: ReportInput): Promise<number> {
  const review = await findReview(db, reviewId);
  if (!review) throw new ModerationError(moderationMessages.reviewNotFound, 404);
  const { id } = await db
    .insertInto("review_reports")
    .values({
      review_id: reviewId,
      reason: input.reason,
      explanation: input.explanation,
      contact_email: input.contactEmail,
      received_on: today(),
      decision_id: null,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const anyModerator = await db.selectFrom("moderators").select("user_id").limit(1).executeTakeFirst();
  // The operator hears when the queue of reports stops being empty, not of every report: a flood of reports is one
  // mail, and `npm run admin -- reports` lists the rest. Two reports filed at once may both find themselves first.
  if (!anyModerator && (await oldestUndecidedReport(db)) === id) {
    // Off the request's path: a slow mail server must not tell the reporter anything, nor hold the page.
    runInBackground("report mail", () => mailOperator(review, input));
  }
  return id;
}

async function oldestUndecidedReport(db: Kysely<Database>): Promise<number | undefined> {
  const row = await db
    .selectFrom("review_reports")
    .select("id")
    .where("decision_id", "is", null)
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

async function mailOperator(review: FoundReview, input: ReportInput): Promise<void> {
  const { PUBLIC_URL } = env();
  const base = PUBLIC_URL ?? "";
  await sendMail({
    to: env().CONTACT_EMAIL,
    subject: `${messages.siteName}: a review was reported (${reportReasons[input.reason].label})`,
    text: [
      `A reader reported review ${review.row.id} on ${base}${subjectPath(review.kind, review.subjectId)}`,
      `Reason: ${reportReasons[input.reason].label}`,
      input.explanation ? `Explanation: ${input.explanation}` : "No explanation given.",
      "",
      "No moderator is configured. Reports filed before this one is decided are not mailed: list them all with",
      "  npm run admin -- reports",
      "To decide from the command line:",
      `  npm run admin -- remove ${review.row.id} ${input.reason} "statement of reasons"`,
      `  npm run admin -- keep ${review.row.id} "statement of reasons"`,
      "or grant a moderator: npm run admin -- grant moderator EMAIL",
    ].join("\n"),
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Roles

/** What a moderator is known by on pages and in the log: never their e-mail. */
function newPseudonym(): string {
  return `Moderator ${randomBytes(3).toString("hex").toUpperCase()}`;
}

export type Moderator = { role: ModerationRole; pseudonym: string };

export async function moderatorOf(db: Kysely<Database>, userId: string): Promise<Moderator | undefined> {
  return db.selectFrom("moderators").select(["role", "pseudonym"]).where("user_id", "=", userId).executeTakeFirst();
}

/** Grants (or changes) the role of the account with this e-mail; its pseudonym stays. Returns it. */
async function userIdOf(db: Kysely<Database>, email: string): Promise<string> {
  const user = await db
    .selectFrom("users")
    .select("id")
    .where("email", "=", email.trim().toLowerCase())
    .executeTakeFirst();
  if (!user) throw new ModerationError(`No account uses ${email}.`, 404);
  return user.id;
}

export async function grantRole(db: Kysely<Database>, email: string, role: ModerationRole): Promise<Moderator> {
  const user = { id: await userIdOf(db, email) };
  const existing = await moderatorOf(db, user.id);
  if (existing) {
    await db.updateTable("moderators").set({ role }).where("user_id", "=", user.id).execute();
    return { role, pseudonym: existing.pseudonym };
  }
  const pseudonym = newPseudonym();
  await db.insertInto("moderators").values({ user_id: user.id, role, pseudonym }).execute();
  return { role, pseudonym };
}

/** Takes every role from the account with this e-mail; true when it had one. */
export async function revokeRole(db: Kysely<Database>, email: string): Promise<boolean> {
  const userId = await userIdOf(db, email);
  const deleted = await db.deleteFrom("moderators").where("user_id", "=", userId).executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

// ---------------------------------------------------------------------------------------------------------------
// The queue

/** The reviews with undecided rows in `table` (reports or appeals), each with its first day, longest waiting first. */
function undecidedPerReview(db: Kysely<Database>, table: "review_reports" | "review_appeals", limit: number) {
  return db
    .selectFrom(table)
    .select(["review_id", sql<string>`min(received_on)`.as("first"), sql<number>`min(id)`.as("first_id")])
    .where("decision_id", "is", null)
    .groupBy("review_id")
    .orderBy("first")
    .orderBy("first_id")
    .limit(limit)
    .execute();
}

/** Open reports and appeals grouped per review, the review waiting longest first. */
export async function moderationQueue(db: Kysely<Database>, limit = 50): Promise<QueueItem[]> {
  const reported = await undecidedPerReview(db, "review_reports", limit);
  const appealed = await undecidedPerReview(db, "review_appeals", limit);
  // One item per review, reports and appeals together, the one waiting longest first.
  const firstBy = new Map<string, string>();
  for (const group of [...reported, ...appealed]) {
    const known = firstBy.get(group.review_id);
    if (!known || group.first < known) firstBy.set(group.review_id, group.first);
  }
  const groups = [...firstBy]
    .map(([review_id, first]) => ({ review_id, first }))
    .sort((a, b) => a.first.localeCompare(b.first))
    .slice(0, limit);
  const items: QueueItem[] = [];
  for (const group of groups) {
    const review = await findReview(db, group.review_id);
    if (!review) continue;
    const reports = await db
      .selectFrom("review_reports")
      .select(["reason", "explanation", "received_on"])
      .where("review_id", "=", group.review_id)
      .where("decision_id", "is", null)
      .orderBy("id")
      .execute();
    const appeals = await db
      .selectFrom("review_appeals")
      .select(["statement", "received_on"])
      .where("review_id", "=", group.review_id)
      .where("decision_id", "is", null)
      .orderBy("id")
      .execute();
    const common = {
      reviewId: group.review_id,
      subjectId: review.subjectId,
      subjectName: await subjectName(db, review.kind, review.subjectId),
      subjectPath: subjectPath(review.kind, review.subjectId),
      firstReceived: group.first,
      removed: review.removedBy !== null,
      reports: reports.map((report) => ({
        reason: report.reason as ReportReason,
        explanation: report.explanation,
        receivedOn: report.received_on,
      })),
      appeals: appeals.map((appeal) => ({ statement: appeal.statement, receivedOn: appeal.received_on })),
    };
    items.push(
      review.kind === "company"
        ? { ...common, subject: "company", review: reviewCard(companySubject, review.row) }
        : { ...common, subject: "manager", review: reviewCard(managerSubject, review.row) },
    );
  }
  return items;
}

// ---------------------------------------------------------------------------------------------------------------
// Decisions

export const decisionSchema = z
  .object({
    action: z.enum(["keep", "remove", "restore"]),
    reason: z
      .enum(reportReasonCodes as [ReportReason, ...ReportReason[]])
      .nullable()
      .default(null),
    statement: z
      .string()
      .trim()
      .min(1, moderationMessages.statementRequired)
      .max(moderationLengths.statement, moderationMessages.statementRequired),
  })
  .refine((decision) => decision.action !== "remove" || decision.reason !== null, {
    message: moderationMessages.removeNeedsReason,
    path: ["reason"],
  });
export type DecisionInput = z.infer<typeof decisionSchema>;

/** A decision as the API takes it: the review's id with the decision. */
export const decisionBodySchema = z.intersection(z.object({ reviewId: z.string().min(1).max(64) }), decisionSchema);

/** A company's has-on-call answer, from its newest review that stands. */
async function refreshLatestOncall(trx: Trx, companyId: number): Promise<void> {
  const newest = await trx
    .selectFrom("company_reviews")
    .select("has_oncall")
    .where("company_id", "=", companyId)
    .where("id", "not in", (eb) => eb.selectFrom("removed_reviews").select("review_id"))
    .orderBy("created_on", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  await trx
    .updateTable("companies")
    .set({ latest_has_oncall: Number(newest?.has_oncall ?? 0) })
    .where("id", "=", companyId)
    .executeTakeFirstOrThrow();
}

/**
 * Adds (`sign` 1) or takes away (`sign` -1) one review's share of its subject's stored aggregates. A company's
 * has-on-call answer comes from its newest review that stands, taken again after the change.
 */
async function adjustAggregates(trx: Trx, review: FoundReview, sign: 1 | -1): Promise<void> {
  const subject = review.kind === "company" ? companySubject : managerSubject;
  const share = { ...review.row, tags: parseTags(review.row.tags) };
  if (!(await moveReviewShare(trx, subject, review.subjectId, share, sign))) {
    throw new Error(`No ${review.kind} ${review.subjectId} for review ${review.row.id}`);
  }
  if (review.kind === "company") await refreshLatestOncall(trx, review.subjectId);
}

/**
 * Records a decision on a review, by `moderator` (a pseudonym, or "Operator" from the command line), and applies it:
 * a removal takes the review off its subject's aggregates and leaves a marker; a restore puts it back; a keep changes
 * nothing. Every open report of the review is closed by it; reporters who left an address are told, and the address
 * is then erased. One transaction: the decision, the state and the aggregates agree at every commit.
 */
export async function decide(
  db: Kysely<Database>,
  reviewId: string,
  input: DecisionInput,
  moderator: string,
): Promise<DecisionResult> {
  const decision = await db.transaction().execute(async (trx) => {
    const review = await findReview(trx, reviewId);
    if (!review) throw new ModerationError(moderationMessages.reviewNotFound, 404);
    if (input.action === "remove" && review.removedBy !== null) {
      throw new ModerationError(moderationMessages.alreadyRemoved, 409);
    }
    if (input.action === "restore" && review.removedBy === null) {
      throw new ModerationError(moderationMessages.notRemoved, 409);
    }
    const { id } = await trx
      .insertInto("moderation_decisions")
      .values({
        review_id: reviewId,
        subject: review.kind,
        subject_id: review.subjectId,
        action: input.action,
        reason: input.action === "restore" ? null : input.reason,
        statement: input.statement,
        moderator,
        decided_on: today(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    if (input.action === "remove") {
      await trx.insertInto("removed_reviews").values({ review_id: reviewId, decision_id: id }).execute();
      await adjustAggregates(trx, review, -1);
    } else if (input.action === "restore") {
      await trx.deleteFrom("removed_reviews").where("review_id", "=", reviewId).executeTakeFirstOrThrow();
      await adjustAggregates(trx, review, 1);
    }
    await trx
      .updateTable("review_reports")
      .set({ decision_id: id })
      .where("review_id", "=", reviewId)
      .where("decision_id", "is", null)
      .executeTakeFirst();
    await trx
      .updateTable("review_appeals")
      .set({ decision_id: id })
      .where("review_id", "=", reviewId)
      .where("decision_id", "is", null)
      .executeTakeFirst();
    return { id, action: input.action, review };
  });
  if (decision.action !== "keep") publicDataChanged();
  await notifyReporters(db, decision.id, decision.review, input);
  return { id: decision.id, action: decision.action };
}

/**
 * Tells each reporter who left an address what was decided, then erases the address. The address was never
 * confirmed, so a mailbox gets one mail per decision however many reports named it (in any spelling).
 */
async function notifyReporters(
  db: Kysely<Database>,
  decisionId: number,
  review: FoundReview,
  input: DecisionInput,
): Promise<void> {
  const reporters = await db
    .selectFrom("review_reports")
    .select(["id", "contact_email"])
    .where("decision_id", "=", decisionId)
    .where("contact_email", "is not", null)
    .execute();
  const { PUBLIC_URL } = env();
  const mailed = new Set<string>();
  for (const reporter of reporters) {
    const mailbox = mailboxOf(reporter.contact_email!);
    try {
      if (!mailed.has(mailbox))
        await sendMail({
          to: reporter.contact_email!,
          subject: `${messages.siteName}: decision ${decisionId} on the review you reported`,
          text: [
            `The review you reported on ${PUBLIC_URL ?? ""}${subjectPath(review.kind, review.subjectId)} was ${pastTense[input.action]}.`,
            input.reason ? `Reason: ${reportReasons[input.reason].label}` : "",
            `Statement of reasons: ${input.statement}`,
            "",
            `Every decision is published in the moderation log: ${PUBLIC_URL ?? ""}${paths.moderationLog()}`,
            "Your address has now been erased.",
          ]
            .filter((line, index) => line !== "" || index === 3)
            .join("\n"),
        });
      mailed.add(mailbox);
    } catch (error) {
      logger.error({ err: error }, "decision notice failed");
    }
    await db.updateTable("review_reports").set({ contact_email: null }).where("id", "=", reporter.id).execute();
  }
}

const pastTense: Record<ModerationAction, string> = { keep: "kept", remove: "removed", restore: "restored" };

// ---------------------------------------------------------------------------------------------------------------
// Review keys: what the author can do without an account

/** The review a one-time key opens, or a 404. */
async function reviewOfKey(db: Kysely<Database> | Trx, key: string): Promise<FoundReview> {
  const row = await db
    .selectFrom("review_keys")
    .select("review_id")
    .where("key_hash", "=", reviewKeyHash(key))
    .executeTakeFirst();
  const review = row ? await findReview(db, row.review_id) : undefined;
  if (!review) throw new ModerationError(moderationMessages.keyUnknown, 404);
  return review;
}

export const reviewKeyRequestSchema = z.discriminatedUnion("action", [
  z.object({
    action: z.literal("appeal"),
    key: z.string().trim().min(1, moderationMessages.keyUnknown).max(64, moderationMessages.keyUnknown),
    statement: z
      .string()
      .trim()
      .min(1, moderationMessages.appealStatementRequired)
      .max(moderationLengths.statement, moderationMessages.appealStatementRequired),
  }),
  z.object({
    action: z.literal("withdraw"),
    key: z.string().trim().min(1, moderationMessages.keyUnknown).max(64, moderationMessages.keyUnknown),
  }),
]);
export type ReviewKeyRequest = z.infer<typeof reviewKeyRequestSchema>;

/**
 * An appeal against the removal of the review the key opens; it waits in the moderators' queue. One at a time: while
 * it waits, another is refused by the unique index over a review's undecided appeals (migration 0034).
 */
export async function appealRemoval(db: Kysely<Database>, key: string, statement: string): Promise<number> {
  const review = await reviewOfKey(db, key);
  if (review.removedBy === null) throw new ModerationError(moderationMessages.appealNotRemoved, 409);
  const inserted = await db
    .insertInto("review_appeals")
    .values({ review_id: review.row.id, statement, received_on: today(), decision_id: null })
    .onConflict((conflict) => conflict.column("review_id").where("decision_id", "is", null).doNothing())
    .returning("id")
    .executeTakeFirst();
  if (!inserted) throw new ModerationError(moderationMessages.appealWaiting, 409);
  return inserted.id;
}

/**
 * Deletes the review the key opens, for good: off its subject's aggregates (unless removed already), with its key and
 * the reports and appeals still open about it. The decision log keeps what moderators decided; a manager's receipt
 * stays, so the account cannot review that manager again, and so do its helpful votes' receipts (counted as orphaned). On SQLite, secure_delete zeroes the rows in the file and
 * emptying the WAL afterwards leaves no copy of them there; on PostgreSQL the tables are copied afresh and the WAL
 * segments that recorded them removed (eraseDeleted, docs/decisions/0056-erasing-deleted-rows-on-postgresql.md).
 */
export async function withdrawReview(db: Kysely<Database>, key: string): Promise<void> {
  const table = await db.transaction().execute(async (trx) => {
    const review = await reviewOfKey(trx, key);
    const reviewId = review.row.id;
    if (review.removedBy === null) await adjustAggregates(trx, review, -1);
    await trx.deleteFrom("removed_reviews").where("review_id", "=", reviewId).executeTakeFirst();
    await trx.deleteFrom("review_keys").where("review_id", "=", reviewId).executeTakeFirst();
    await trx
      .deleteFrom("review_reports")
      .where("review_id", "=", reviewId)
      .where("decision_id", "is", null)
      .executeTakeFirst();
    await trx
      .deleteFrom("review_appeals")
      .where("review_id", "=", reviewId)
      .where("decision_id", "is", null)
      .executeTakeFirst();
    const table = review.kind === "company" ? "company_reviews" : "manager_reviews";
    await orphanVotes(trx, Number(review.row.helpful_votes));
    await trx.deleteFrom(table).where("id", "=", reviewId).executeTakeFirstOrThrow();
    if (review.kind === "company" && review.removedBy === null) await refreshLatestOncall(trx, review.subjectId);
    return table;
  });
  publicDataChanged();
  // Its text leaves no copy behind: on PostgreSQL no dead tuple, no index entry, no WAL segment that recorded it.
  await eraseDeleted(db, [table, ...reviewSideTables]);
}

// ---------------------------------------------------------------------------------------------------------------
// The public log

export const logPageSize = 50;

/** Decisions, newest first, `logPageSize` at a time, continued below decision `before`. Never the removed text. */
export async function moderationLog(db: Kysely<Database>, before?: number): Promise<ModerationLog> {
  let query = db
    .selectFrom("moderation_decisions as d")
    .leftJoin("companies as c", (join) => join.onRef("c.id", "=", "d.subject_id").on("d.subject", "=", "company"))
    .leftJoin("managers as m", (join) => join.onRef("m.id", "=", "d.subject_id").on("d.subject", "=", "manager"))
    .select([
      "d.id",
      "d.subject",
      "d.subject_id",
      "d.action",
      "d.reason",
      "d.statement",
      "d.moderator",
      "d.decided_on",
      "c.name as company_name",
      "m.first_name",
      "m.last_name",
    ])
    .orderBy("d.id", "desc")
    .limit(logPageSize + 1);
  if (before !== undefined) query = query.where("d.id", "<", before);
  const rows = await query.execute();
  const items = rows.slice(0, logPageSize).map((row) => ({
    decision: row.id,
    month: row.decided_on.slice(0, 7),
    action: row.action,
    reason: row.reason as ReportReason | null,
    statement: row.statement,
    moderator: row.moderator,
    subjectName:
      row.subject === "company" ? (row.company_name ?? "") : `${row.first_name ?? ""} ${row.last_name ?? ""}`,
    subjectPath: subjectPath(row.subject, row.subject_id),
  }));
  return { items, next: rows.length > logPageSize ? items.at(-1)!.decision : null };
}

// ---------------------------------------------------------------------------------------------------------------
// Transparency figures

/** Whole days from one YYYY-MM-DD to another. */
function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Per month, newest first: reports received, decisions by action and by reason, the median days from a report to
 * the decision that closed it (counted in the month of the decision), and the manipulation alerts raised. Computed from the stored reports and the
 * decision log on every call; nothing here is kept apart from them.
 */
export async function transparencyReport(db: Kysely<Database>): Promise<TransparencyReport> {
  const received = await db
    .selectFrom("review_reports")
    .select([sql<string>`substr(received_on, 1, 7)`.as("month"), sql<number>`count(*)`.as("count")])
    .groupBy(sql`substr(received_on, 1, 7)`)
    .execute();
  const decisions = await db
    .selectFrom("moderation_decisions")
    .select([sql<string>`substr(decided_on, 1, 7)`.as("month"), "action", "reason", sql<number>`count(*)`.as("count")])
    .groupBy([sql`substr(decided_on, 1, 7)`, "action", "reason"])
    .execute();
  const alerts = await db
    .selectFrom("subject_alerts")
    .select([sql<string>`substr(raised_on, 1, 7)`.as("month"), sql<number>`count(*)`.as("count")])
    .groupBy(sql`substr(raised_on, 1, 7)`)
    .execute();
  const closed = await db
    .selectFrom("review_reports as r")
    .innerJoin("moderation_decisions as d", "d.id", "r.decision_id")
    .select(["r.received_on", "d.decided_on"])
    .execute();
  const months = new Map<string, TransparencyReport["months"][number]>();
  const month = (key: string) => {
    let entry = months.get(key);
    if (!entry) {
      entry = {
        month: key,
        reportsReceived: 0,
        decisions: { keep: 0, remove: 0, restore: 0 },
        removalsByReason: {},
        medianDaysToDecision: null,
        alertsRaised: 0,
      };
      months.set(key, entry);
    }
    return entry;
  };
  for (const row of received) month(row.month).reportsReceived = Number(row.count);
  for (const row of alerts) month(row.month).alertsRaised = Number(row.count);
  for (const row of decisions) {
    const entry = month(row.month);
    entry.decisions[row.action] += Number(row.count);
    if (row.action === "remove" && row.reason) {
      const reason = row.reason as ReportReason;
      entry.removalsByReason[reason] = (entry.removalsByReason[reason] ?? 0) + Number(row.count);
    }
  }
  const waits = new Map<string, number[]>();
  for (const row of closed) {
    const key = row.decided_on.slice(0, 7);
    waits.set(key, [...(waits.get(key) ?? []), daysBetween(row.received_on, row.decided_on)]);
  }
  for (const [key, days] of waits) month(key).medianDaysToDecision = median(days);
  return { months: [...months.values()].sort((a, b) => b.month.localeCompare(a.month)) };
}
