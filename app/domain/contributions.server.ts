import { createHash, createHmac } from "node:crypto";
import { industrySectionOf } from "#app/lib/industries.ts";
import { type Kysely, sql, type Transaction } from "kysely";
import type { Database } from "#app/db/schema.ts";
import { fold } from "#app/lib/fold.ts";
import { newReviewId } from "#app/lib/ids.server.ts";
import { pooledRandomBytes } from "#app/lib/random.server.ts";
import { serverSecret } from "#app/db/secret.server.ts";
import { contributionMessages } from "#app/lib/messages.ts";
import { nameSkeleton } from "#app/lib/names.server.ts";
import { websiteKey } from "#app/lib/urls.ts";
import { moveReviewShare, ratingTotal } from "./aggregates.server.ts";
import { companySubject, managerSubject } from "./subjects.server.ts";
import type {
  CompanyInput,
  CompanyReviewInput,
  ManagerInput,
  ManagerReviewInput,
} from "./contribution-input.server.ts";
import { checkToken, managerWebsites, VerificationError } from "./verification.server.ts";
import {
  AlreadyQueuedError,
  authorTag,
  type Badge,
  tokenAuthorTag,
  enqueueReview,
  isReceiptQueued,
  type ManagerCompany,
  type PublicationResult,
  type PublicationSettings,
  publicationSettings,
  type Publisher,
  publishQueued,
  type QueuedReview,
  TokenQueuedError,
} from "./publication.server.ts";

export type { ManagerCompany } from "./publication.server.ts";

/**
 * Adding companies, managers and reviews. A submission writes one sealed row to the publication queue and nothing
 * else; a publication run (publication.server.ts) then writes, in one transaction per batch, the new companies and
 * managers, the reviews with their subjects' aggregates, and the receipts. A failure at any step leaves nothing
 * behind. Nothing here stores who wrote a review (docs/decisions/0013-publication-in-sealed-batches.md).
 */

export type ContributionFailure =
  "company-not-found" | "manager-not-found" | "company-exists" | "manager-exists" | "already-reviewed";

export class ContributionError extends Error {
  readonly kind: ContributionFailure;
  readonly status: number;
  constructor(kind: ContributionFailure) {
    const messages: Record<ContributionFailure, [string, number]> = {
      "company-not-found": [contributionMessages.companyIdRequired, 404],
      "manager-not-found": [contributionMessages.managerIdRequired, 404],
      "company-exists": [contributionMessages.companyExists, 409],
      "manager-exists": [contributionMessages.managerExists, 409],
      "already-reviewed": [contributionMessages.alreadyReviewed, 409],
    };
    const [message, status] = messages[kind];
    super(message);
    this.name = "ContributionError";
    this.kind = kind;
    this.status = status;
  }
}

/**
 * The author of a write, known only long enough to check one-per-account rules: the account's id and the server
 * secret (for receipts made before account keys, checked during the transition), and the account's own key, which
 * only the account's client holds (docs/decisions/0046-reviews-wait-under-a-key-only-the-author-holds.md). Only what
 * the account key makes goes into the queue.
 */
export type Author = { userId: string; secret: string; accountKey: string };

/** The author of a request's submission: the account, its key (checked to be its own by the caller). */
export function authorOf(account: { id: string }, accountKey: string): Author {
  return { userId: account.id, secret: serverSecret(), accountKey };
}

/**
 * What a manager's receipts are keyed on: for a manager added from now on, the person as added (name skeleton and
 * LinkedIn profile, the identity that makes two additions one manager), known before the manager has an id; for a
 * manager created before, its id.
 */
export function managerReference(manager: { id: number; receipt_ref: string | null }): string {
  return manager.receipt_ref ?? `id:${manager.id}`;
}

/** The reference of a manager being added (managerReference once created). */
export function newManagerReference(input: ManagerInput): string {
  // JSON keeps the two parts apart unambiguously, in text PostgreSQL stores (no NUL).
  return `person:${JSON.stringify([nameSkeleton(`${input.first_name} ${input.last_name}`), input.linkedin_url])}`;
}

/**
 * The receipt of "this account reviewed this manager": an HMAC under the account's own key of the manager's
 * reference. It holds no review id and no time, and the server cannot recompute it for an account without that
 * account's key, which it keeps only wrapped under the password.
 */
export function managerReviewReceipt(author: Pick<Author, "accountKey">, reference: string): string {
  return createHmac("sha256", Buffer.from(author.accountKey, "base64url"))
    .update(`manager-review\u0000${reference}`)
    .digest("base64url");
}

/**
 * The receipt as it was made before account keys (decision 0010): an HMAC of user id and manager id under the server
 * secret. Receipts written so are still looked up at submission (never written again), so an account that reviewed
 * a manager then cannot review it again now.
 */
export function legacyManagerReviewReceipt(author: Pick<Author, "userId" | "secret">, managerId: number): string {
  return createHmac("sha256", author.secret)
    .update(`manager-review\u0000${author.userId}\u0000${managerId}`)
    .digest("base64url");
}

async function managerRow(db: Kysely<Database>, managerId: number) {
  return db.selectFrom("managers").select(["id", "receipt_ref"]).where("id", "=", managerId).executeTakeFirst();
}

/** The receipts to look for before this account reviews this manager: its own, and the one of the old scheme. */
export function receiptsOf(author: Author, manager: { id: number; receipt_ref: string | null }) {
  return {
    receipt: managerReviewReceipt(author, managerReference(manager)),
    legacy: legacyManagerReviewReceipt(author, manager.id),
  };
}

export async function isPublishedReceipt(db: Kysely<Database>, receipts: readonly string[]): Promise<boolean> {
  const row = await db
    .selectFrom("review_receipts")
    .select("receipt")
    .where("receipt", "in", receipts)
    .executeTakeFirst();
  return row !== undefined;
}

/** True when this account's review of this manager is published or waits in the queue. */
export async function hasReviewedManager(
  db: Kysely<Database>,
  author: Author,
  managerId: number,
  settings: PublicationSettings = publicationSettings(),
): Promise<boolean> {
  const manager = await managerRow(db, managerId);
  if (!manager) return false;
  const { receipt, legacy } = receiptsOf(author, manager);
  return (
    (await isPublishedReceipt(db, [receipt, legacy])) ||
    (await isReceiptQueued(db, settings, receipt)) ||
    (await isReceiptQueued(db, settings, legacy))
  );
}

type Trx = Transaction<Database>;

// ---------------------------------------------------------------------------------------------------------------
// Publication: the writes a batch makes (publication.server.ts calls them inside its one transaction).

/** The hash of a review's one-time key, written beside the review it opens (docs/moderation.md). */
async function insertReviewKey(trx: Trx, reviewId: string, keyHash: string | undefined): Promise<void> {
  if (keyHash) await trx.insertInto("review_keys").values({ key_hash: keyHash, review_id: reviewId }).execute();
}

async function insertCompanyReview(
  trx: Trx,
  companyId: number,
  review: CompanyReviewInput,
  day: string,
  keyHash: string | undefined,
  verifiedDomain?: string,
) {
  const { tags, recent_layoffs: layoffs, ...values } = review;
  // The aggregates first: updating no row means there is no such company, and nothing is written.
  const found = await moveReviewShare(trx, companySubject, companyId, { ...review, created_on: day }, 1, () => ({
    // Reviews are dated with the publication day, so this one is among the latest (spec: has-on-call comes from
    // the latest review; within a batch, the shuffled order decides).
    latest_has_oncall: values.has_oncall,
    // Spec: a layoffs date updates the company only when newer than the stored one, or when none is stored.
    ...(layoffs
      ? {
          recent_layoffs: sql<string>`case when recent_layoffs is null or recent_layoffs < ${layoffs} then ${layoffs} else recent_layoffs end`,
        }
      : {}),
  }));
  if (!found) throw new ContributionError("company-not-found");
  const id = newReviewId();
  await trx
    .insertInto("company_reviews")
    .values({
      ...values,
      id,
      company_id: companyId,
      tags: JSON.stringify(tags),
      created_on: day,
      rating_total: ratingTotal(companySubject, review),
      verified_domain: verifiedDomain ?? null,
    })
    .execute();
  await insertReviewKey(trx, id, keyHash);
}

async function insertManagerReview(
  trx: Trx,
  managerId: number,
  review: ManagerReviewInput,
  day: string,
  keyHash: string | undefined,
  verifiedDomain?: string,
) {
  const { tags, ...values } = review;
  if (!(await moveReviewShare(trx, managerSubject, managerId, { ...review, created_on: day }, 1))) {
    throw new ContributionError("manager-not-found");
  }
  const id = newReviewId();
  await trx
    .insertInto("manager_reviews")
    .values({
      ...values,
      id,
      manager_id: managerId,
      tags: JSON.stringify(tags),
      created_on: day,
      rating_total: ratingTotal(managerSubject, review),
      verified_domain: verifiedDomain ?? null,
    })
    .execute();
  await insertReviewKey(trx, id, keyHash);
}

/**
 * Spec: "This company already exists." when name and website match; names match when they look alike (the same
 * skeleton), so a zero-width space or a Cyrillic "е" makes no second company.
 */
function companyIdentity(company: CompanyInput) {
  return {
    folded_name: fold(company.name),
    name_skeleton: nameSkeleton(company.name),
    website_key: websiteKey(company.website),
  };
}

async function publishedCompanyId(trx: Trx, company: CompanyInput): Promise<number | undefined> {
  const identity = companyIdentity(company);
  const row = await trx
    .selectFrom("companies")
    .select("id")
    .where("name_skeleton", "=", identity.name_skeleton)
    .where("website_key", "=", identity.website_key)
    .executeTakeFirst();
  return row?.id;
}

/** The company with this name and website: published already (another queued addition), or created now. */
async function companyFor(trx: Trx, company: CompanyInput, day: string): Promise<number> {
  const existing = await publishedCompanyId(trx, company);
  if (existing !== undefined) return existing;
  const row = await trx
    .insertInto("companies")
    .values({
      ...company,
      ...companyIdentity(company),
      // A review queued before the fixed list of industries carries the text typed then: no section.
      industry_section: industrySectionOf(company.industry)?.code ?? null,
      created_on: day,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The same person: a name that looks alike with the same LinkedIn profile. */
async function publishedManagerId(trx: Trx, input: ManagerInput): Promise<number | undefined> {
  const row = await trx
    .selectFrom("managers")
    .select("id")
    .where("name_skeleton", "=", nameSkeleton(`${input.first_name} ${input.last_name}`))
    .where("linkedin_url", "=", input.linkedin_url)
    .executeTakeFirst();
  return row?.id;
}

/**
 * A manager, linked to their company, whose country is theirs too. Two queued additions of one manager become one:
 * the second finds the first and only adds its company link.
 */
async function createManager(trx: Trx, companyId: number, input: ManagerInput, day: string): Promise<number> {
  const company = await trx
    .selectFrom("companies")
    .select(["id", "country"])
    .where("id", "=", companyId)
    .executeTakeFirst();
  if (!company) throw new ContributionError("company-not-found");
  const existing = await publishedManagerId(trx, input);
  if (existing !== undefined) {
    await trx
      .insertInto("manager_companies")
      .values({ manager_id: existing, company_id: company.id })
      .onConflict((conflict) => conflict.columns(["manager_id", "company_id"]).doNothing())
      .execute();
    return existing;
  }
  const { direct_reports: _confirmed, department, ...manager } = input;
  const row = await trx
    .insertInto("managers")
    .values({
      ...manager,
      department: department ?? null,
      folded_name: fold(`${manager.first_name} ${manager.last_name}`),
      name_skeleton: nameSkeleton(`${manager.first_name} ${manager.last_name}`),
      // What receipts for this manager are keyed on, the same the addition's own receipt was made with.
      receipt_ref: newManagerReference(input),
      country: company.country,
      created_on: day,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  await trx.insertInto("manager_companies").values({ manager_id: row.id, company_id: company.id }).execute();
  return row.id;
}

/**
 * The writes of a publication run; `secret` keys the receipts of new managers' first reviews queued before account
 * keys (their rows carry the account id; rows queued since carry the receipt itself).
 */
export function contributionPublisher(secret: string): Publisher {
  return {
    companyFor,
    createManager,
    insertCompanyReview,
    insertManagerReview,
    insertReceipt: async (trx, receipt) => {
      await trx.insertInto("review_receipts").values({ receipt }).execute();
    },
    insertSpentToken: async (trx, tokenHash) => {
      await trx.insertInto("spent_tokens").values({ token_hash: tokenHash }).execute();
    },
    receiptFor: (userId, managerId) => legacyManagerReviewReceipt({ userId, secret }, managerId),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Submission: every review waits in the queue; nothing public is written here.

/**
 * What a submission became: published at once (PUBLISH_INTERVAL=0, with its subject's id), or queued; the review's
 * one-time key, to be shown to its author once and never stored (only its hash, at publication); and, when a
 * verification token came with it, whether the review carries the badge or why not.
 */
export type Submission = ({ published: true; id: number } | { published: false }) & {
  reviewKey: string;
  badge?: BadgeOutcome;
};

/** The badge a token earned: shown, or withheld because fewer than `minPeople` verified with the domain. */
export type BadgeOutcome = { shown: true; domain: string } | { shown: false; domain: string; minPeople: number };

/** A review's one-time key: 128 random bits, and the SHA-256 that is stored in its place. */
export function newReviewKey(): { key: string; hash: string } {
  const key = pooledRandomBytes(16).toString("base64url");
  return { key, hash: reviewKeyHash(key) };
}

export function reviewKeyHash(key: string): string {
  return createHash("sha256").update(key.trim(), "utf8").digest("base64url");
}

const pendingRuns = new Map<Kysely<Database>, Promise<PublicationResult | undefined>>();
/** Queued rows whose submitters wait for their publication (PUBLISH_INTERVAL=0), and what they became. */
const awaiting = new Map<string, number | undefined>();
/** Those of them the run could not write, with why: taken out of the queue by the run. */
const failedAtOnce = new Map<string, unknown>();

/**
 * Publishes now, for everyone who asks meanwhile: a caller joins the run that has not started yet, or queues the
 * next one, so a row committed before the call is in the run it awaits.
 */
export function publishSoon(
  db: Kysely<Database>,
  secret: string,
  settings: PublicationSettings,
): Promise<PublicationResult | undefined> {
  const queued = pendingRuns.get(db);
  if (queued) return queued;
  let started = false;
  const run = Promise.resolve().then(async () => {
    started = true;
    if (pendingRuns.get(db) === run) pendingRuns.delete(db);
    const result = await publishQueued(db, contributionPublisher(secret), {
      settings,
      wait: true,
      takeBack: (id) => awaiting.has(id),
    });
    for (const [id, subject] of result?.subjects ?? []) if (awaiting.has(id)) awaiting.set(id, subject);
    for (const [id, error] of result?.failed ?? []) if (awaiting.has(id)) failedAtOnce.set(id, error);
    return result;
  });
  if (!started) pendingRuns.set(db, run);
  run.catch(() => pendingRuns.get(db) === run && pendingRuns.delete(db));
  return run;
}

/**
 * Seals `payload` into the queue, with the badge its verification token earned (`token`), whose spend is then
 * pending; answers what it became, with the token's outcome.
 */
async function submit(
  db: Kysely<Database>,
  author: Author,
  settings: PublicationSettings,
  payload: QueuedReview,
  check: (trx: Trx) => Promise<void>,
  options: { receipt?: string; token?: TokenCheck; spends?: string[] } = {},
): Promise<Submission> {
  const { receipt, token = {} } = options;
  const spends = [...(options.spends ?? []), ...(token.badge ? [token.badge.tokenHash] : [])];
  const badged: QueuedReview = { ...payload, ...(token.badge ? { badge: token.badge } : {}) };
  const submission = await submitSealed(db, author, settings, badged, check, receipt, spends);
  return token.outcome ? { ...submission, badge: token.outcome } : submission;
}

async function submitSealed(
  db: Kysely<Database>,
  author: Author,
  settings: PublicationSettings,
  payload: QueuedReview,
  check: (trx: Trx) => Promise<void>,
  receipt: string | undefined,
  spends: string[],
): Promise<Submission> {
  const atOnce = settings.intervalSeconds === 0;
  const key = newReviewKey();
  const sealed: QueuedReview = { ...payload, keyHash: key.hash };
  let id: string | undefined;
  let spentRows: string[] = [];
  try {
    ({ spentRows } = await enqueueReview(db, settings, sealed, check, {
      receipt,
      spends,
      onId: (queued) => {
        id = queued;
        if (atOnce) awaiting.set(queued, undefined);
      },
    }));
  } catch (error) {
    if (id) awaiting.delete(id);
    if (error instanceof AlreadyQueuedError) throw new ContributionError("already-reviewed");
    if (error instanceof TokenQueuedError) {
      const oneReview = sealed.kind === "manager-review" && sealed.reviewToken === error.tokenHash;
      throw new VerificationError(oneReview ? "review-token-spent" : "token-spent");
    }
    throw error;
  }
  if (!atOnce || !id) return { published: false, reviewKey: key.key };
  const queuedId = id;
  try {
    await publishSoon(db, author.secret, settings);
    if (failedAtOnce.has(queuedId)) throw failedAtOnce.get(queuedId);
    const subject = awaiting.get(queuedId);
    return subject === undefined
      ? { published: false, reviewKey: key.key }
      : { published: true, id: subject, reviewKey: key.key };
  } catch (error) {
    // Publishing at once failed with this row in the batch: take it back, with its spends, so the failure leaves
    // nothing behind (the token can be sent again) and no row that cannot be published blocks the queue.
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom("pending_reviews").where("id", "=", queuedId).execute();
      await trx.deleteFrom("spent_tokens").where("token_hash", "in", spentRows).execute();
    });
    throw error;
  } finally {
    awaiting.delete(queuedId);
    failedAtOnce.delete(queuedId);
  }
}

async function requireCompany(trx: Kysely<Database>, companyId: number): Promise<{ website: string }> {
  const row = await trx.selectFrom("companies").select("website").where("id", "=", companyId).executeTakeFirst();
  if (!row) throw new ContributionError("company-not-found");
  return row;
}

async function refuseExistingCompany(trx: Trx, company: CompanyInput): Promise<void> {
  // Spec: "This company already exists." when name and website match a published company; two queued additions of
  // one company become one at publication.
  if ((await publishedCompanyId(trx, company)) !== undefined) throw new ContributionError("company-exists");
}

/** What a verification token sent with a review earns: the sealed badge (and the token to spend), and the outcome. */
type TokenCheck = { badge?: Badge; outcome?: BadgeOutcome };

/**
 * Checks a verification token sent with a review about a subject whose company websites are `websites` (one for a
 * company; a manager's companies'): its domain must be one of theirs. It badges the review when the domain's
 * threshold is met, and is then spent by the submission's transaction (enqueueReview), so a second review cannot
 * spend it, waiting or published.
 * Below the threshold the review goes without the badge and the token is left unspent. No token, no check.
 */
async function checkBadge(
  db: Kysely<Database>,
  token: string | undefined,
  websites: () => Promise<string[]>,
  subject: "company" | "manager",
): Promise<TokenCheck> {
  if (!token) return {};
  const checked = await checkToken(db, token, await websites(), subject);
  if (!checked.badge) {
    return { outcome: { shown: false, domain: checked.domain, minPeople: checked.minPeople } };
  }
  return {
    badge: { domain: checked.domain, tokenHash: checked.tokenHash },
    outcome: { shown: true, domain: checked.domain },
  };
}

/** Queues a review of a company (published with the next batch), with the badge its verification token earns. */
export async function recordCompanyReview(
  db: Kysely<Database>,
  author: Author,
  companyId: number,
  review: CompanyReviewInput,
  settings: PublicationSettings = publicationSettings(),
  verificationToken?: string,
): Promise<Submission> {
  const token = await checkBadge(
    db,
    verificationToken,
    async () => [(await requireCompany(db, companyId)).website],
    "company",
  );
  const payload: QueuedReview = {
    kind: "company-review",
    author: authorTag(author.accountKey),
    companyId,
    review,
  };
  const check = async (trx: Trx) => {
    await requireCompany(trx, companyId);
  };
  return submit(db, author, settings, payload, check, { token });
}

/**
 * Queues a new company together with its first review; the company appears when its review is published. A
 * verification token of the new company website's domain badges the review.
 */
export async function addCompany(
  db: Kysely<Database>,
  author: Author,
  company: CompanyInput,
  review: CompanyReviewInput,
  settings: PublicationSettings = publicationSettings(),
  verificationToken?: string,
): Promise<Submission> {
  const token = await checkBadge(db, verificationToken, async () => [company.website], "company");
  const payload: QueuedReview = {
    kind: "new-company",
    author: authorTag(author.accountKey),
    company,
    review,
  };
  return submit(db, author, settings, payload, (trx) => refuseExistingCompany(trx, company), { token });
}

/** A verification token's badge for a review of a manager: one of its companies' domains (checkBadge). */
function checkManagerBadge(db: Kysely<Database>, managerId: number, verificationToken: string | undefined) {
  return checkBadge(
    db,
    verificationToken,
    async () => {
      const websites = await managerWebsites(db, managerId);
      if (websites.length === 0) throw new ContributionError("manager-not-found");
      return websites;
    },
    "manager",
  );
}

/** Refuses a review of a manager that does not exist (checked again in the queue's transaction). */
async function requireManager(trx: Trx, managerId: number): Promise<void> {
  const manager = await trx.selectFrom("managers").select("id").where("id", "=", managerId).executeTakeFirst();
  if (!manager) throw new ContributionError("manager-not-found");
}

/**
 * Queues a review of a manager: one per account per manager, refused when the account's receipt is published or a
 * review with it waits in the queue. A verification token of one of the manager's companies' domains badges it.
 */
export async function recordManagerReview(
  db: Kysely<Database>,
  author: Author,
  managerId: number,
  review: ManagerReviewInput,
  settings: PublicationSettings = publicationSettings(),
  verificationToken?: string,
): Promise<Submission> {
  const manager = await managerRow(db, managerId);
  if (!manager) throw new ContributionError("manager-not-found");
  const { receipt, legacy } = receiptsOf(author, manager);
  const token = await checkManagerBadge(db, managerId, verificationToken);
  const payload: QueuedReview = {
    kind: "manager-review",
    author: authorTag(author.accountKey),
    managerId,
    receipt,
    review,
  };
  const check = async (trx: Trx) => {
    await requireManager(trx, managerId);
    if (await isPublishedReceipt(trx, [receipt, legacy])) throw new ContributionError("already-reviewed");
  };
  // A review of the old scheme may still wait (its pending key is of the old receipt); checked before, outside the
  // queue's transaction: the old scheme writes no new pending keys, so none can appear meanwhile.
  if (await isReceiptQueued(db, settings, legacy)) throw new ContributionError("already-reviewed");
  return submit(db, author, settings, payload, check, { receipt, token });
}

/**
 * Queues a review of a manager that spends a one-review token (review-tokens.server.ts checked its signature): no
 * account, so no receipt (it was written when the token was issued); the token's hash goes into `spent_tokens` in
 * the transaction that queues the review, whose primary key refuses a second spend (decision 0044). For counting
 * distinct authors in a batch, the token stands in for its account.
 */
export async function submitTokenReview(
  db: Kysely<Database>,
  secret: string,
  managerId: number,
  review: ManagerReviewInput,
  tokenHash: string,
  settings: PublicationSettings = publicationSettings(),
  verificationToken?: string,
): Promise<Submission> {
  const token = await checkManagerBadge(db, managerId, verificationToken);
  const payload: QueuedReview = {
    kind: "manager-review",
    author: tokenAuthorTag(tokenHash),
    managerId,
    reviewToken: tokenHash,
    review,
  };
  const check = async (trx: Trx) => {
    await requireManager(trx, managerId);
  };
  return submit(db, { userId: "", secret, accountKey: "" }, settings, payload, check, { token, spends: [tokenHash] });
}

/**
 * Queues a new manager, linked to an existing company or one added with them, with the first review. The manager
 * appears with the next batch; the review waits for the manager's group (MANAGER_MIN_REVIEWS). A verification token
 * of that company website's domain badges the review.
 */
export async function addManager(
  db: Kysely<Database>,
  author: Author,
  input: { company: ManagerCompany; manager: ManagerInput; review: ManagerReviewInput },
  settings: PublicationSettings = publicationSettings(),
  verificationToken?: string,
): Promise<Submission> {
  const company = input.company;
  const token = await checkBadge(
    db,
    verificationToken,
    async () => ["id" in company ? (await requireCompany(db, company.id)).website : company.company.website],
    "manager",
  );
  const payload: QueuedReview = {
    kind: "new-manager",
    author: authorTag(author.accountKey),
    // The receipt is keyed on the person as added, so it is known now, before the manager has an id: the row names
    // no account (a second addition of the same person by the same account waits under the same receipt).
    receipt: managerReviewReceipt(author, newManagerReference(input.manager)),
    ...input,
  };
  const check = async (trx: Trx) => {
    if ("id" in input.company) await requireCompany(trx, input.company.id);
    else await refuseExistingCompany(trx, input.company.company);
    if ((await publishedManagerId(trx, input.manager)) !== undefined) throw new ContributionError("manager-exists");
  };
  return submit(db, author, settings, payload, check, { token, receipt: payload.receipt });
}

export type CompanySuggestion = { id: number; name: string; city: string; country: string };

export const suggestionMinLength = 5;
export const suggestionLimit = 10;

/**
 * Companies whose name contains what was typed, or is contained in it (possible duplicates of
 * the company being added), by name, at most 10; nothing under 5 characters.
 */
export async function companySuggestions(db: Kysely<Database>, typed: string): Promise<CompanySuggestion[]> {
  const term = fold(typed);
  if (term.length < suggestionMinLength) return [];
  const pattern = `%${term.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
  return db
    .selectFrom("companies")
    .select(["id", "name", "city", "country"])
    .where((eb) =>
      eb.or([
        sql<boolean>`folded_name like ${pattern} escape '\\'`,
        // The stored name is the pattern here: its own %, _ and \ must match literally too.
        sql<boolean>`${term} like '%' || replace(replace(replace(folded_name, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%' escape '\\'`,
      ]),
    )
    .orderBy("folded_name")
    .orderBy("id")
    .limit(suggestionLimit)
    .execute();
}
