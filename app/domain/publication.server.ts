import { createHash, createHmac, randomInt } from "node:crypto";
import { type Kysely, sql, type Transaction } from "kysely";
import { truncateWal } from "#app/db/connection.server.ts";
import { claimTurn, type Turn } from "./jobs.server.ts";
import { isPostgres } from "#app/db/dialect.ts";
import type { Database } from "#app/db/schema.ts";
import { type ChangeScope, publicDataChanged } from "#app/lib/data-version.server.ts";
import { env } from "#app/lib/env.server.ts";
import { pooledRandomBytes } from "#app/lib/random.server.ts";
import {
  claimQueue,
  createQueueKey,
  destroyQueueKey,
  type QueueKey,
  QueueKeyMissingError,
  readQueueKey,
  seal,
  sweepQueueKeys,
  unseal,
} from "#app/lib/queue-keys.server.ts";
import type {
  CompanyInput,
  CompanyReviewInput,
  ManagerInput,
  ManagerReviewInput,
} from "./contribution-input.server.ts";
import { checkSubject, type SignalReview, starsOf } from "./signals.server.ts";

/**
 * The publication queue (docs/decisions/0013-publication-in-sealed-batches.md). Submissions only seal a review into
 * `pending_reviews`; a publication run, one transaction, opens every queued row, publishes what the two minimum rules
 * allow in a shuffled batch dated with the publication day, seals what it holds back under a new key, and destroys
 * the old key after commit. The key files live under QUEUE_KEY_DIR, outside the database.
 */

export type PublicationSettings = {
  /** Seconds between runs (0: each submission is published before its request is answered). */
  intervalSeconds: number;
  managerMinReviews: number;
  minAuthors: number;
  keyDir: string;
  /** Whether each batch is checked for manipulation signals (signals.server.ts); off when absent. */
  signalChecks?: boolean;
};

export function publicationSettings(): PublicationSettings {
  const { PUBLISH_INTERVAL, MANAGER_MIN_REVIEWS, PUBLISH_MIN_AUTHORS, QUEUE_KEY_DIR, MANIPULATION_CHECKS } = env();
  return {
    intervalSeconds: PUBLISH_INTERVAL,
    managerMinReviews: MANAGER_MIN_REVIEWS,
    minAuthors: PUBLISH_MIN_AUTHORS,
    keyDir: QUEUE_KEY_DIR,
    signalChecks: MANIPULATION_CHECKS === "on",
  };
}

/** A new manager's company: an existing one, or one added together with the manager. */
export type ManagerCompany = { id: number } | { company: CompanyInput };

/**
 * A review's "Verified" badge and the hash of the token that earned it: both travel sealed and are written only by
 * the batch that publishes the review, so the spend shares no transaction or time with the token's issuance.
 */
export type Badge = { domain: string; tokenHash: string };

/**
 * What a sealed row holds. `author` is a tag made with the account's own key, only for counting distinct authors
 * (authorTag); `receipt` is made with that key too; nothing in a row is the account's id or anything the server's
 * secret recomputes for an account (docs/decisions/0046-reviews-wait-under-a-key-only-the-author-holds.md). `keyHash`
 * is the SHA-256 of the review's one-time key (rows sealed before review keys existed have none).
 * `spentAtSubmission`: the tokens the row spends were written to `spent_tokens` by its submission (every row queued
 * since decision 0044); a row without it spends them when published.
 */
export type QueuedReview = { keyHash?: string; spentAtSubmission?: true } & (
  | { kind: "company-review"; author: string; companyId: number; review: CompanyReviewInput; badge?: Badge }
  | { kind: "new-company"; author: string; company: CompanyInput; review: CompanyReviewInput; badge?: Badge }
  | {
      kind: "manager-review";
      author: string;
      managerId: number;
      /** The account's receipt; none for a review that spends a one-review token (its receipt was written at issuance). */
      receipt?: string;
      /** The hash of the one-review token it spends, written to spent_tokens by the batch that publishes it. */
      reviewToken?: string;
      review: ManagerReviewInput;
      badge?: Badge;
    }
  | {
      kind: "new-manager";
      author: string;
      /** The account's receipt, keyed on the person as added (the manager has no id yet). */
      receipt?: string;
      /** Rows queued before account keys only: the account's id, from which the old receipt is computed at publication. */
      userId?: string;
      company: ManagerCompany;
      manager: ManagerInput;
      review: ManagerReviewInput;
      badge?: Badge;
    }
);

type Trx = Transaction<Database>;

/** The steps of publishing that write public rows; contributions.server.ts provides them. */
export type Publisher = {
  /** Creates the company, or finds the published one with the same name and website. */
  companyFor: (trx: Trx, company: CompanyInput, day: string) => Promise<number>;
  createManager: (trx: Trx, companyId: number, manager: ManagerInput, day: string) => Promise<number>;
  /** Writes the review with its subject's aggregates, its key's hash when it has one, and its badge's domain. */
  insertCompanyReview: (
    trx: Trx,
    companyId: number,
    review: CompanyReviewInput,
    day: string,
    keyHash: string | undefined,
    verifiedDomain?: string,
  ) => Promise<void>;
  insertManagerReview: (
    trx: Trx,
    managerId: number,
    review: ManagerReviewInput,
    day: string,
    keyHash: string | undefined,
    verifiedDomain?: string,
  ) => Promise<void>;
  insertReceipt: (trx: Trx, receipt: string) => Promise<void>;
  insertSpentToken: (trx: Trx, tokenHash: string) => Promise<void>;
  /** The receipt of a new manager's first review queued before account keys, from the account id it carries. */
  receiptFor: (userId: string, managerId: number) => string;
};

/**
 * The period an author tag belongs to: the calendar month (UTC). Tags of one account are equal within a month, so
 * a batch counts its accounts; across months they differ, so whoever opens the queue cannot follow one account's
 * waiting reviews from month to month.
 */
export function authorPeriod(now = new Date()): string {
  return now.toISOString().slice(0, 7);
}

/**
 * The tag of a review's author, only for counting the accounts in a batch: the period, and an HMAC of it under the
 * account's own key. Neither the server's secret nor anything the server keeps recomputes it for an account.
 */
export function authorTag(accountKey: string, now = new Date()): string {
  const period = authorPeriod(now);
  const tag = createHmac("sha256", Buffer.from(accountKey, "base64url"))
    .update(`queue-author\u0000${period}`)
    .digest("base64url");
  return `${period}.${tag}`;
}

/** The tag of a review that spends a one-review token (no account): the token stands in for its account. */
export function tokenAuthorTag(tokenHash: string): string {
  return `token.${createHash("sha256").update(`queue-author\u0000${tokenHash}`).digest("base64url")}`;
}

/**
 * How many different accounts a set of author tags shows, never more than there are: tags of different months may be
 * one account's, so only the largest month counts, with the tags of no month (one-review tokens, and rows queued
 * before account keys) added.
 */
export function countAuthors(tags: Iterable<string>): number {
  const byPeriod = new Map<string, Set<string>>();
  const other = new Set<string>();
  for (const tag of tags) {
    const match = /^(\d{4}-\d{2})\./.exec(tag);
    if (!match) {
      other.add(tag);
      continue;
    }
    const set = byPeriod.get(match[1]!) ?? new Set<string>();
    set.add(tag);
    byPeriod.set(match[1]!, set);
  }
  return Math.max(0, ...[...byPeriod.values()].map((set) => set.size)) + other.size;
}

function pendingReceiptKey(key: QueueKey, receipt: string): string {
  return createHmac("sha256", key.key).update(`pending-receipt\u0000${receipt}`).digest("base64url");
}

/**
 * A token spent by a review queued before decision 0044, keyed like a pending receipt and kept in the same table:
 * a second spend of it found it taken. Rows queued since spend their tokens in `spent_tokens` at submission.
 */
function pendingSpendKey(key: QueueKey, tokenHash: string): string {
  return pendingReceiptKey(key, `spent-token\u0000${tokenHash}`);
}

function newPendingId(): string {
  return pooledRandomBytes(16).toString("base64url");
}

/**
 * A queued row's place in the table: 53 random bits (a safe integer). Two rows of a queue share one once in about
 * 2 × 10^8 queues of 10,000 rows; the second's insert then fails as any failed write does, and nothing is stored.
 */
function newSlot(): number {
  return Number(pooledRandomBytes(8).readBigUInt64BE() >> 11n);
}

/** Fisher–Yates with the CSPRNG: the order rows are written in says nothing about the order they came in. */
export function shuffle<T>(items: readonly T[]): T[] {
  const result = [...items];
  for (let i = result.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [result[i], result[j]] = [result[j]!, result[i]!];
  }
  return result;
}

export function publicationDay(): string {
  return new Date().toISOString().slice(0, 10);
}

/**
 * A queued row that no key opens any more: it failed to open (damaged, or sealed wrongly) and stays set aside with
 * this key id, which names no key file, so nothing tries to open it again.
 */
const noKeyId = "";

type QueueState = { queueId: string; keyId: string | null };

async function readState(db: Kysely<Database>, share = false): Promise<QueueState> {
  let query = db.selectFrom("queue_state").select(["queue_id", "key_id"]).where("id", "=", 1);
  if (share && isPostgres(db)) query = query.forShare();
  const row = await query.executeTakeFirstOrThrow();
  return { queueId: row.queue_id, keyId: row.key_id };
}

/**
 * Where this database lives, as the queue's owner file records it (claimQueue): on PostgreSQL the cluster's system
 * identifier, the database's oid and name and the schema; on SQLite the file's path. A copy (a restore, a copied
 * file) lives elsewhere even though its rows, its queue id included, are the same.
 */
export async function databaseHome(db: Kysely<Database>): Promise<string> {
  if (isPostgres(db)) {
    const { rows } = await sql<{ system: string; oid: string; name: string; schema: string }>`select
        (select system_identifier::text from pg_control_system()) as system,
        (select oid::text from pg_database where datname = current_database()) as oid,
        current_database() as name, current_schema() as schema`.execute(db);
    const row = rows[0]!;
    return `postgresql cluster ${row.system}, database ${row.name} (oid ${row.oid}), schema ${row.schema}`;
  }
  const { rows } = await sql<{ file: string }>`select file from pragma_database_list where name = 'main'`.execute(db);
  return `sqlite file ${rows[0]?.file ?? ""}`;
}

/**
 * This database's random id (made by its first migration): it names the queue's key files, and keeps this site's
 * keys apart from others' in a shared Redis.
 */
export async function databaseId(db: Kysely<Database>): Promise<string> {
  return (await readState(db)).queueId;
}

// ---------------------------------------------------------------------------------------------------------------
// Submission

/**
 * How many `spent_tokens` rows every submission writes: its tokens' hashes (a one-review token, a verification
 * token, or both), and random ones up to this count, so that the rows do not tell which submission spent a token.
 */
export const spentRowsPerSubmission = 2;

/** A row of `spent_tokens` that no token will ever match: 256 random bits, written as a token's SHA-256 is. */
function fillerSpend(): string {
  return pooledRandomBytes(32).toString("base64url");
}

/**
 * Seals one review into the queue, in a transaction of its own that writes nothing else but, for a manager review,
 * its pending receipt, and the rows of `spent_tokens` (decision 0044): the tokens it spends, refused by the table's
 * primary key when spent already, waiting or published (TokenQueuedError), and random fillers, always
 * `spentRowsPerSubmission` rows in all. The primary key is the only judge: two submissions of one token, in any
 * processes, around any publication, cannot both commit. `check` runs first in that transaction (the subject
 * exists, no published receipt). Returns the queued row's id and the `spent_tokens` rows it wrote.
 */
export async function enqueueReview(
  db: Kysely<Database>,
  settings: PublicationSettings,
  payload: QueuedReview,
  check: (trx: Trx) => Promise<void>,
  options: { receipt?: string; spends?: readonly string[]; onId?: (id: string) => void } = {},
): Promise<{ id: string; spentRows: string[] }> {
  const id = newPendingId();
  options.onId?.(id);
  const spends = [...new Set(options.spends ?? [])];
  if (spends.length > spentRowsPerSubmission) throw new Error("A submission spends at most two tokens.");
  const spentRows = [...spends];
  while (spentRows.length < spentRowsPerSubmission) spentRows.push(fillerSpend());
  // On PostgreSQL the key's share lock keeps a publication from replacing it until this row is committed.
  await withCurrentKey(db, settings, async (trx, key) => {
    if (options.receipt !== undefined && !(await takePendingKey(trx, pendingReceiptKey(key, options.receipt)))) {
      throw new AlreadyQueuedError();
    }
    // In random order: the order of the writes does not tell the token from the filler.
    for (const hash of shuffle(spentRows)) {
      const written = await trx
        .insertInto("spent_tokens")
        .values({ token_hash: hash })
        .onConflict((conflict) => conflict.column("token_hash").doNothing())
        .returning("token_hash")
        .executeTakeFirst();
      if (!written) throw new TokenQueuedError(hash);
    }
    // After the pending keys: a receipt written meanwhile by a one-review token's issuance (takeReceiptNow) took
    // and released the same pending key in its committed transaction, and is seen here.
    await check(trx);
    const sealed: QueuedReview = { ...payload, spentAtSubmission: true };
    await trx
      .insertInto("pending_reviews")
      .values({ id, slot: newSlot(), key_id: key.id, sealed: seal(key, id, sealed) })
      .execute();
  });
  return { id, spentRows };
}

/** The queue has no key yet (a new database, or one whose unreadable queue was forgotten). */
class NoQueueKeyError extends Error {}

/**
 * Runs `work` in a transaction with the queue's current key, read with a share lock on PostgreSQL that keeps a
 * publication from replacing it meanwhile. A queue without a key gets its first one (made by whoever gets the lock
 * first; the others find it made) and the transaction runs again: only the first write to a queue pays for that.
 */
async function withCurrentKey(
  db: Kysely<Database>,
  settings: PublicationSettings,
  work: (trx: Trx, key: QueueKey) => Promise<void>,
): Promise<void> {
  const attempt = () =>
    db.transaction().execute(async (trx) => {
      const state = await readState(trx, true);
      if (state.keyId === null) throw new NoQueueKeyError();
      await work(trx, readQueueKey(settings.keyDir, state.queueId, state.keyId));
    });
  try {
    await attempt();
  } catch (error) {
    if (!(error instanceof NoQueueKeyError)) throw error;
    await withQueueLock(db, settings, true, async (trx, state) => {
      if (state.keyId === null) await rotate(trx, settings);
    });
    await attempt();
  }
}

/**
 * Writes the receipt "this account has its one review of this manager" now, outside any batch: for a one-review
 * token, whose review later arrives without an account. Refused (AlreadyQueuedError) when the receipt is published
 * or a review with it waits in the queue. The pending key is taken and released in the same transaction, so a
 * review queued at the same moment with this receipt either finds the key taken or, once this commits, the receipt.
 */
export async function takeReceiptNow(
  db: Kysely<Database>,
  settings: PublicationSettings,
  receipt: string,
): Promise<void> {
  await withCurrentKey(db, settings, async (trx, key) => {
    const pending = pendingReceiptKey(key, receipt);
    if (!(await takePendingKey(trx, pending))) throw new AlreadyQueuedError();
    const written = await trx
      .insertInto("review_receipts")
      .values({ receipt })
      .onConflict((conflict) => conflict.column("receipt").doNothing())
      .returning("receipt")
      .executeTakeFirst();
    if (!written) throw new AlreadyQueuedError();
    await trx.deleteFrom("pending_receipts").where("key", "=", pending).execute();
  });
}

/** Writes a pending key; false when it is taken already (the same receipt or token waits in the queue). */
async function takePendingKey(trx: Trx, key: string): Promise<boolean> {
  const taken = await trx
    .insertInto("pending_receipts")
    .values({ key })
    .onConflict((conflict) => conflict.column("key").doNothing())
    .returning("key")
    .executeTakeFirst();
  return taken !== undefined;
}

/** A review of this manager by this account is already waiting in the queue. */
export class AlreadyQueuedError extends Error {
  constructor() {
    super("already queued");
    this.name = "AlreadyQueuedError";
  }
}

/** A review carrying this verification token already waits in the queue. */
export class TokenQueuedError extends Error {
  /** The hash of the token that waits already. */
  readonly tokenHash: string;
  constructor(tokenHash: string) {
    super("token already queued");
    this.name = "TokenQueuedError";
    this.tokenHash = tokenHash;
  }
}

/** True when a review carrying this receipt waits in the queue. */
export async function isReceiptQueued(
  db: Kysely<Database>,
  settings: PublicationSettings,
  receipt: string,
): Promise<boolean> {
  const state = await readState(db);
  if (state.keyId === null) return false;
  const key = readQueueKey(settings.keyDir, state.queueId, state.keyId);
  const row = await db
    .selectFrom("pending_receipts")
    .select("key")
    .where("key", "=", pendingReceiptKey(key, receipt))
    .executeTakeFirst();
  return row !== undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Publication

/**
 * The PostgreSQL advisory lock that lets one process at a time publish or sweep keys: a fixed number and the schema,
 * since advisory locks span the whole database and several Candor schemas may share one.
 */
const publicationLockKey = 431_157_201;
const publicationLock = sql`${publicationLockKey}, hashtext(current_schema())`;

let exclusive: Promise<unknown> = Promise.resolve();

/**
 * Runs `work` in one transaction holding the queue lock: in this process a promise chain, and on PostgreSQL an
 * advisory transaction lock (`wait`: blocking; otherwise a try, answering undefined when another process holds it).
 * On SQLite the transaction's first statement writes, so it holds the database's write lock from the start.
 */
async function withQueueLock<T>(
  db: Kysely<Database>,
  settings: PublicationSettings,
  wait: boolean,
  work: (trx: Trx, state: QueueState) => Promise<T>,
): Promise<{ value: T; state: QueueState } | undefined> {
  const run = exclusive.then(() =>
    db.transaction().execute(async (trx) => {
      if (isPostgres(trx) && wait) {
        await sql`select pg_advisory_xact_lock(${publicationLock})`.execute(trx);
      } else if (isPostgres(trx)) {
        const { rows } = await sql<{
          locked: boolean;
        }>`select pg_try_advisory_xact_lock(${publicationLock}) as locked`.execute(trx);
        if (!rows[0]?.locked) return undefined;
      } else {
        await trx
          .updateTable("queue_state")
          .set((eb) => ({ key_id: eb.ref("key_id") }))
          .where("id", "=", 1)
          .execute();
      }
      const state = await readState(trx);
      // Before any key is made or destroyed: the keys in this directory are this database's, not a copy's.
      claimQueue(settings.keyDir, state.queueId, await databaseHome(trx));
      // Key files no row refers to: a run that failed after writing its new key, or died before destroying its old one.
      const used = await trx
        .selectFrom("pending_reviews")
        .select("key_id")
        .where("key_id", "!=", noKeyId)
        .distinct()
        .execute();
      const keep = new Set([...(state.keyId ? [state.keyId] : []), ...used.map((row) => row.key_id)]);
      sweepQueueKeys(settings.keyDir, state.queueId, keep);
      return { value: await work(trx, state), state };
    }),
  );
  exclusive = run.catch(() => {});
  return run;
}

/** Replaces the sealing key: what `rotate` leaves for after the commit. */
type Rotation = { newKey: QueueKey; oldKeyIds: string[] };

async function rotate(trx: Trx, settings: PublicationSettings): Promise<Rotation> {
  const state = await readState(trx);
  const newKey = createQueueKey(settings.keyDir, state.queueId);
  await trx.updateTable("queue_state").set({ key_id: newKey.id }).where("id", "=", 1).execute();
  return { newKey, oldKeyIds: state.keyId ? [state.keyId] : [] };
}

export type PublicationResult = {
  /** Reviews published by this run. */
  published: number;
  /** Reviews still waiting. */
  held: number;
  /** For each published queued row's id: the company or manager its review is about. */
  subjects: Map<string, number>;
  /** Manipulation alerts this run raised (signals.server.ts). */
  alerts: number;
  /** Queued reviews this run set aside: it could not write or open them (their reasons: setAsideReasons). */
  setAside: number;
  /** Queued reviews set aside now, by this run or before. */
  setAsideTotal: number;
  /** The rows `takeBack` named that could not be written, with why: gone from the queue, not set aside. */
  failed: Map<string, unknown>;
  /**
   * What the batch changed, for the page cache: the companies and managers whose pages now show more (a manager's
   * companies with the manager), or undefined when anything may have changed (an alert was raised).
   */
  scope: ChangeScope | undefined;
};

type Opened = { id: string; payload: QueuedReview };

/** The existing subject a queued review is about ("company:12", "manager:7"); none for a subject it adds. */
function subjectKeyOf(payload: QueuedReview): string | undefined {
  if (payload.kind === "company-review") return `company:${payload.companyId}`;
  if (payload.kind === "manager-review") return `manager:${payload.managerId}`;
  return undefined;
}

/**
 * The check at publication: each existing subject with queued reviews is tested with them beside its published
 * ones. Answers the subjects whose reviews wait (an alert open before, or raised now) and how many alerts it raised.
 * Only the subject is flagged: the queued reviews stay sealed together, none is singled out.
 */
async function watchedSubjects(trx: Trx, opened: readonly Opened[]): Promise<{ held: Set<string>; raised: number }> {
  const batches = new Map<string, { kind: "company" | "manager"; id: number; reviews: SignalReview[] }>();
  const today = publicationDay();
  const add = (kind: "company" | "manager", id: number, review: CompanyReviewInput | ManagerReviewInput) => {
    const key = `${kind}:${id}`;
    const batch = batches.get(key) ?? { kind, id, reviews: [] };
    batch.reviews.push({ day: today, stars: starsOf(review, kind), text: review.review_text });
    batches.set(key, batch);
  };
  for (const { payload } of opened) {
    if (payload.kind === "company-review") add("company", payload.companyId, payload.review);
    if (payload.kind === "manager-review") add("manager", payload.managerId, payload.review);
  }
  const held = new Set<string>();
  let raised = 0;
  for (const [key, batch] of batches) {
    const outcome = await checkSubject(trx, batch.kind, batch.id, batch.reviews, today);
    if (outcome.hold) held.add(key);
    raised += outcome.raised;
  }
  return { held, raised };
}

/** Which queued reviews this run publishes: the two minimum rules. */
export function choosePublishable(items: readonly Opened[], settings: PublicationSettings): Set<string> {
  const groups = new Map<number, Opened[]>();
  const chosen: Opened[] = [];
  for (const item of items) {
    if (item.payload.kind === "manager-review") {
      const group = groups.get(item.payload.managerId) ?? [];
      group.push(item);
      groups.set(item.payload.managerId, group);
    } else if (item.payload.kind === "new-manager") {
      // Nobody else can review a manager before it exists: the manager is published now, its first review joins
      // the manager's queue and waits for its group like any other.
      chosen.push(item);
    } else {
      chosen.push(item);
    }
  }
  for (const group of groups.values()) if (group.length >= settings.managerMinReviews) chosen.push(...group);
  if (countAuthors(chosen.map((item) => item.payload.author)) < settings.minAuthors) return new Set();
  return new Set(chosen.map((item) => item.id));
}

/** What the operator reads about a row set aside: the kind of failure, never a value from the review. */
export function setAsideReason(error: unknown): string {
  if (error instanceof Error && "kind" in error && typeof error.kind === "string")
    return `${error.name}: ${error.kind}`;
  const fields = error as { code?: unknown; constraint?: unknown; table?: unknown; name?: unknown; message?: unknown };
  // PostgreSQL's messages may quote a value; its code and the constraint's name never do.
  if (typeof fields.code === "string" && /^[0-9A-Z]{5}$/.test(fields.code)) {
    const where = [fields.table, fields.constraint].filter((part) => typeof part === "string").join(" ");
    return `database error ${fields.code}${where ? ` (${where})` : ""}`;
  }
  const message = typeof fields.message === "string" ? fields.message.split("\n")[0]! : String(error);
  return `${typeof fields.name === "string" ? fields.name : "Error"}: ${message}`.slice(0, 200);
}

/** Whether an opened row has the shape of a queued review; a row that does not is set aside before anything runs. */
function malformed(payload: unknown): string | undefined {
  const row = payload as Partial<Record<string, unknown>> | null;
  if (typeof row !== "object" || row === null) return "malformed: not an object";
  const review = row.review as Partial<Record<string, unknown>> | undefined;
  if (typeof review !== "object" || review === null || typeof review.review_text !== "string") {
    return "malformed: no review";
  }
  if (typeof row.author !== "string") return "malformed: no author";
  switch (row.kind) {
    case "company-review":
      return Number.isSafeInteger(row.companyId) ? undefined : "malformed: no company";
    case "manager-review":
      return Number.isSafeInteger(row.managerId) ? undefined : "malformed: no manager";
    case "new-company":
      return typeof row.company === "object" && row.company !== null ? undefined : "malformed: no company";
    case "new-manager":
      // The first review's receipt: made with the account key since decision 0046, from the user id in older rows.
      if (typeof row.manager !== "object" || row.manager === null) return "malformed: no manager";
      return typeof row.receipt === "string" || typeof row.userId === "string" ? undefined : "malformed: no receipt";
    default:
      return "malformed: unknown kind";
  }
}

export type PublishOptions = {
  settings: PublicationSettings;
  wait?: boolean;
  turn?: Turn;
  /**
   * Queued rows whose submitters wait for this run (PUBLISH_INTERVAL=0): one that cannot be written leaves the
   * queue and is answered in `failed`, so its submitter hears why and nothing of it stays.
   */
  takeBack?: (id: string) => boolean;
};

/** How publications went in this process, for the operator (publicationHealth). */
const health = {
  lastSuccessAt: undefined as Date | undefined,
  lastFailureAt: undefined as Date | undefined,
  consecutiveFailures: 0,
  setAside: 0,
};

export type PublicationHealth = {
  /** When a publication run last completed in this process (undefined: none since start). */
  lastSuccessAt: Date | undefined;
  /** When one last failed. */
  lastFailureAt: Date | undefined;
  /** Runs that failed since the last that completed: from 1 on, reviews may not be going out. */
  consecutiveFailures: number;
  /** Queued reviews set aside for the operator, as the last completed run found them (npm run admin -- set-aside). */
  setAside: number;
};

/**
 * How publication goes in this process, for readiness and metrics: when a run last completed and failed, how many
 * failed in a row since, and how many reviews wait set aside. Runs in other processes are not counted.
 */
export function publicationHealth(): PublicationHealth {
  return { ...health };
}

/** Forgets the figures (tests). */
export function resetPublicationHealth(): void {
  Object.assign(health, { lastSuccessAt: undefined, lastFailureAt: undefined, consecutiveFailures: 0, setAside: 0 });
}

/**
 * One publication run. Answers undefined when another process is publishing (and `wait` is false), or when `turn`
 * is given and another process has taken that turn of the schedule (jobs.server.ts). After the
 * commit it destroys the old key, invalidates cached pages when anything was published, and on SQLite truncates
 * the WAL so no superseded page survives there. A row that cannot be published is set aside with its reason
 * (`setAsideReason`) and the others are published: the batch is written as a whole first, and when that fails, once
 * more row by row, each in a savepoint of its own. Every run counts in `publicationHealth`.
 */
export async function publishQueued(
  db: Kysely<Database>,
  publisher: Publisher,
  options: PublishOptions,
): Promise<PublicationResult | undefined> {
  let result: PublicationResult | undefined;
  try {
    result = await publishOnce(db, publisher, options);
  } catch (error) {
    health.consecutiveFailures += 1;
    health.lastFailureAt = new Date();
    throw error;
  }
  if (result) {
    health.consecutiveFailures = 0;
    health.lastSuccessAt = new Date();
    health.setAside = result.setAsideTotal;
  }
  return result;
}

/** What publishing one queued row wrote, or is to write: applied with the batch, or alone in the fallback. */
type Unit = {
  writes: (() => Promise<void>)[];
  subject?: number;
  held?: QueuedReview;
  published: number;
  created: number;
  companies: number[];
  managers: number[];
  added: boolean;
};

async function publishOnce(
  db: Kysely<Database>,
  publisher: Publisher,
  options: PublishOptions,
): Promise<PublicationResult | undefined> {
  const { settings, turn } = options;
  const outcome = await withQueueLock(db, settings, options.wait ?? false, async (trx, state) => {
    if (turn && !(await claimTurn(trx, turn))) return undefined;
    // A key directory without the current key (not the one the other processes share) writes no key of its own.
    if (state.keyId) readQueueKey(settings.keyDir, state.queueId, state.keyId);
    // The rows are read after the rotation: its update waits for submissions still sealing under the old key.
    const rotation = await rotate(trx, settings);
    const rows = await trx.selectFrom("pending_reviews").selectAll().where("key_id", "!=", noKeyId).execute();
    const opened: Opened[] = [];
    /** Rows left out of this run, with why: set aside before, set aside now. */
    const setAside: { payload: QueuedReview; reason: string }[] = [];
    const unopenable: { id: string; reason: string }[] = [];
    for (const row of rows) {
      // A missing key file is the key directory's fault, not the row's: the run fails, nothing is set aside.
      const key = readQueueKey(settings.keyDir, state.queueId, row.key_id);
      let payload: QueuedReview;
      try {
        payload = unseal(key, row.id, row.sealed) as QueuedReview;
      } catch (error) {
        unopenable.push({ id: row.id, reason: `cannot be opened: ${setAsideReason(error)}` });
        continue;
      }
      const reason = row.set_aside ?? malformed(payload);
      if (reason !== undefined) setAside.push({ payload, reason });
      else opened.push({ id: row.id, payload });
    }
    for (const row of rows) if (!rotation.oldKeyIds.includes(row.key_id)) rotation.oldKeyIds.push(row.key_id);
    // Subjects with an open alert, or one this batch raises, keep their reviews in the queue for a moderator.
    const watched = settings.signalChecks ? await watchedSubjects(trx, opened) : { held: new Set<string>(), raised: 0 };
    const publishable = choosePublishable(
      opened.filter((item) => !watched.held.has(subjectKeyOf(item.payload) ?? "")),
      settings,
    );
    // A row no key opens stays, under no key, for the operator to see; its key goes with the others.
    for (const { id, reason } of unopenable) {
      await trx
        .updateTable("pending_reviews")
        .set({ key_id: noKeyId, set_aside: reason })
        .where("id", "=", id)
        .execute();
    }
    // Every other queued row goes, each in one statement: the published ones for good, the held and set-aside ones
    // to come back under the new key with new ids, so not even their ids or tuples outlive this run.
    if (rotation.oldKeyIds.length > 0) {
      await trx.deleteFrom("pending_reviews").where("key_id", "in", rotation.oldKeyIds).execute();
    }
    const receipts = state.keyId
      ? pendingReceiptsOf(readQueueKey(settings.keyDir, state.queueId, state.keyId), [...opened, ...setAside])
      : [];
    if (receipts.length > 0) await trx.deleteFrom("pending_receipts").where("key", "in", receipts).execute();

    const day = publicationDay();
    const held: { payload: QueuedReview; reason?: string }[] = [...setAside];
    const companies = new Map<string, Promise<number>>();
    // Two queued additions of one company (same name and website) become one company with both reviews.
    const cachedCompanyOf = (company: CompanyInput) => {
      const identity = JSON.stringify([company.name.toLowerCase(), company.website]);
      let id = companies.get(identity);
      if (!id) {
        id = publisher.companyFor(trx, company, day);
        companies.set(identity, id);
      }
      return id;
    };
    // Row by row, a company added by a row before is found published (companyFor looks it up).
    const plainCompanyOf = (company: CompanyInput) => publisher.companyFor(trx, company, day);
    // A badge's token is marked spent by the batch that publishes its review, among the batch's other writes, when
    // its submission did not (a row queued before decision 0044).
    const spend = (writes: Unit["writes"], payload: QueuedReview, tokenHash: string | undefined) => {
      if (tokenHash !== undefined && !payload.spentAtSubmission) {
        writes.push(() => publisher.insertSpentToken(trx, tokenHash));
      }
    };
    /** Subjects first (their ids are public and sequential anyway); the reviews' writes returned, to be shuffled. */
    async function plan(payload: QueuedReview, companyOf: (company: CompanyInput) => Promise<number>): Promise<Unit> {
      const unit: Unit = { writes: [], published: 0, created: 0, companies: [], managers: [], added: false };
      const { writes } = unit;
      switch (payload.kind) {
        case "company-review":
        case "new-company": {
          const companyId = payload.kind === "company-review" ? payload.companyId : await companyOf(payload.company);
          unit.subject = companyId;
          unit.companies.push(companyId);
          unit.added = payload.kind === "new-company";
          const badge = payload.badge;
          writes.push(() =>
            publisher.insertCompanyReview(trx, companyId, payload.review, day, payload.keyHash, badge?.domain),
          );
          spend(writes, payload, badge?.tokenHash);
          unit.published = 1;
          break;
        }
        case "manager-review": {
          unit.subject = payload.managerId;
          unit.managers.push(payload.managerId);
          const badge = payload.badge;
          writes.push(() =>
            publisher.insertManagerReview(trx, payload.managerId, payload.review, day, payload.keyHash, badge?.domain),
          );
          const { receipt, reviewToken } = payload;
          if (receipt !== undefined) writes.push(() => publisher.insertReceipt(trx, receipt));
          spend(writes, payload, reviewToken);
          spend(writes, payload, badge?.tokenHash);
          unit.published = 1;
          break;
        }
        case "new-manager": {
          const companyId = "id" in payload.company ? payload.company.id : await companyOf(payload.company.company);
          const managerId = await publisher.createManager(trx, companyId, payload.manager, day);
          unit.created = 1;
          unit.managers.push(managerId);
          unit.added = true;
          const receipt = payload.receipt ?? publisher.receiptFor(payload.userId ?? "", managerId);
          const firstReview: QueuedReview = {
            kind: "manager-review",
            author: payload.author,
            managerId,
            receipt,
            review: payload.review,
            ...(payload.keyHash ? { keyHash: payload.keyHash } : {}),
            ...(payload.badge ? { badge: payload.badge } : {}),
            ...(payload.spentAtSubmission ? { spentAtSubmission: true as const } : {}),
          };
          if (settings.managerMinReviews <= 1) {
            unit.subject = managerId;
            const badge = payload.badge;
            writes.push(() =>
              publisher.insertManagerReview(trx, managerId, payload.review, day, payload.keyHash, badge?.domain),
            );
            writes.push(() => publisher.insertReceipt(trx, receipt));
            spend(writes, payload, badge?.tokenHash);
            unit.published = 1;
          } else {
            unit.held = firstReview;
          }
          break;
        }
      }
      return unit;
    }

    const chosen: Opened[] = [];
    for (const item of opened) {
      if (publishable.has(item.id)) chosen.push(item);
      else held.push({ payload: item.payload });
    }
    let units: (Unit & { id: string })[] = [];
    let newlySetAside = 0;
    const failed = new Map<string, unknown>();
    // The whole batch at once, in queue order, its writes shuffled together.
    await sql`savepoint batch`.execute(trx);
    try {
      for (const { id, payload } of chosen) units.push({ id, ...(await plan(payload, cachedCompanyOf)) });
      for (const write of shuffle(units.flatMap((unit) => unit.writes))) await write();
      await sql`release savepoint batch`.execute(trx);
    } catch {
      // Some row cannot be written: the batch is undone, and written again row by row, in shuffled order, each row
      // in a savepoint of its own; the rows that fail are set aside with their reason.
      await sql`rollback to savepoint batch`.execute(trx);
      await sql`release savepoint batch`.execute(trx);
      units = [];
      for (const { id, payload } of shuffle(chosen)) {
        await sql`savepoint queued_row`.execute(trx);
        try {
          const unit = await plan(payload, plainCompanyOf);
          for (const write of shuffle(unit.writes)) await write();
          await sql`release savepoint queued_row`.execute(trx);
          units.push({ id, ...unit });
        } catch (error) {
          await sql`rollback to savepoint queued_row`.execute(trx);
          await sql`release savepoint queued_row`.execute(trx);
          if (options.takeBack?.(id)) {
            failed.set(id, error);
          } else {
            held.push({ payload, reason: setAsideReason(error) });
            newlySetAside += 1;
          }
        }
      }
    }
    const subjects = new Map<string, number>();
    const touched = { companies: new Set<number>(), managers: new Set<number>(), added: false };
    let published = 0;
    let created = 0;
    for (const unit of units) {
      if (unit.subject !== undefined && unit.published > 0) subjects.set(unit.id, unit.subject);
      for (const id of unit.companies) touched.companies.add(id);
      for (const id of unit.managers) touched.managers.add(id);
      touched.added ||= unit.added;
      if (unit.held) held.push({ payload: unit.held });
      published += unit.published;
      created += unit.created;
    }
    await reseal(trx, rotation.newKey, shuffle(held));
    const leftAside = await trx
      .selectFrom("pending_reviews")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .where("key_id", "=", noKeyId)
      .executeTakeFirstOrThrow();
    return {
      rotation,
      changed: published + created + watched.raised > 0,
      result: {
        published,
        held: held.filter((item) => item.reason === undefined).length,
        subjects,
        alerts: watched.raised,
        setAside: newlySetAside + unopenable.length,
        failed,
        setAsideTotal: held.filter((item) => item.reason !== undefined).length + Number(leftAside.count),
        scope: watched.raised > 0 ? undefined : await scopeOf(trx, touched),
      },
    };
  });
  if (!outcome?.value) return undefined;
  const { rotation, changed, result } = outcome.value;
  for (const keyId of rotation.oldKeyIds) {
    if (keyId !== rotation.newKey.id) destroyQueueKey(settings.keyDir, outcome.state.queueId, keyId);
  }
  // The only place reviews change the public pages: cached pages change per batch, never per submission, and only
  // those of the subjects the batch touched (and lists).
  if (changed) publicDataChanged(result.scope);
  await truncateWal(db);
  return result;
}

/** The touched companies and managers, with every company of a touched manager (its pages list the manager). */
async function scopeOf(
  trx: Kysely<Database>,
  touched: { companies: Set<number>; managers: Set<number>; added: boolean },
): Promise<ChangeScope> {
  const managers = [...touched.managers];
  const companies = new Set(touched.companies);
  for (let at = 0; at < managers.length; at += 500) {
    const links = await trx
      .selectFrom("manager_companies")
      .select("company_id")
      .where("manager_id", "in", managers.slice(at, at + 500))
      .execute();
    for (const link of links) companies.add(link.company_id);
  }
  return { companies: [...companies], managers, ...(touched.added ? { added: true } : {}) };
}

/**
 * The pending receipts of these queued reviews under `key`: one for each queued review of a known manager, and one
 * for each verification token a queued review spends.
 */
function pendingReceiptsOf(key: QueueKey, items: readonly { payload: QueuedReview }[]): string[] {
  return items.flatMap(({ payload }) => [
    ...((payload.kind === "manager-review" || payload.kind === "new-manager") && payload.receipt !== undefined
      ? [pendingReceiptKey(key, payload.receipt)]
      : []),
    // Tokens spent at submission wait in spent_tokens, not here.
    ...(payload.kind === "manager-review" && payload.reviewToken !== undefined && !payload.spentAtSubmission
      ? [pendingSpendKey(key, payload.reviewToken)]
      : []),
    ...(payload.badge && !payload.spentAtSubmission ? [pendingSpendKey(key, payload.badge.tokenHash)] : []),
  ]);
}

/**
 * Seals held reviews again under the new key, with new ids, and re-keys their pending receipts; a set-aside review
 * keeps its reason. A pending key two rows share (two set-aside copies of one spend) is written once.
 */
async function reseal(trx: Trx, key: QueueKey, held: { payload: QueuedReview; reason?: string }[]): Promise<void> {
  const rows = held.map(({ payload, reason }) => {
    const id = newPendingId();
    return { id, slot: newSlot(), key_id: key.id, sealed: seal(key, id, payload), set_aside: reason ?? null };
  });
  for (let start = 0; start < rows.length; start += 50) {
    await trx
      .insertInto("pending_reviews")
      .values(rows.slice(start, start + 50))
      .execute();
  }
  const receipts = [...new Set(pendingReceiptsOf(key, held))].map((receipt) => ({ key: receipt }));
  for (let start = 0; start < receipts.length; start += 500) {
    await trx
      .insertInto("pending_receipts")
      .values(receipts.slice(start, start + 500))
      .onConflict((conflict) => conflict.column("key").doNothing())
      .execute();
  }
}

/**
 * Runs `work` in one transaction holding the publication lock, or answers undefined at once when another process
 * holds it (PostgreSQL): for jobs that must run once however many processes run them, such as the daily signal scan.
 */
export async function withPublicationLock<T>(
  db: Kysely<Database>,
  settings: PublicationSettings,
  work: (trx: Trx) => Promise<T>,
): Promise<T | undefined> {
  const outcome = await withQueueLock(db, settings, false, (trx) => work(trx));
  return outcome?.value;
}

/**
 * At start-up: destroys the key files no queued row refers to (what a crash between commit and deletion left), makes
 * the queue's first key if it has none, and checks that every key the database names is in this process's key
 * directory. A process whose QUEUE_KEY_DIR is not the one the others use (another machine's local directory) thus
 * refuses to start with QueueKeyMissingError, instead of failing each submission it receives, or sealing reviews
 * with a key that the process which publishes cannot read.
 */
export async function prepareQueueKeys(db: Kysely<Database>, settings: PublicationSettings): Promise<void> {
  await withQueueLock(db, settings, true, async (trx, state) => {
    const current = state.keyId ?? (await rotate(trx, settings)).newKey.id;
    const used = await trx
      .selectFrom("pending_reviews")
      .select("key_id")
      .where("key_id", "!=", noKeyId)
      .distinct()
      .execute();
    for (const keyId of new Set([current, ...used.map((row) => row.key_id)])) {
      readQueueKey(settings.keyDir, state.queueId, keyId);
    }
  });
}

/**
 * After a restore from a backup: the queue's key files are never backed up (they stay in QUEUE_KEY_DIR, outside the
 * database), so a restored queue whose key is missing cannot be opened by anyone. Its rows are deleted and a new key
 * will be made by the next submission. Answers how many queued reviews were dropped.
 */
export async function forgetUnreadableQueue(db: Kysely<Database>, settings: PublicationSettings): Promise<number> {
  const state = await readState(db);
  if (state.keyId === null) return 0;
  try {
    readQueueKey(settings.keyDir, state.queueId, state.keyId);
    return 0;
  } catch (error) {
    if (!(error instanceof QueueKeyMissingError)) throw error;
    const dropped = await queuedCount(db);
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom("pending_reviews").where("id", "is not", null).execute();
      await trx.deleteFrom("pending_receipts").where("key", "is not", null).execute();
      await trx.updateTable("queue_state").set({ key_id: null }).where("id", "=", 1).execute();
    });
    return dropped;
  }
}

/** How many reviews wait in the queue (their content is sealed: only the count is known). */
export async function queuedCount(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom("pending_reviews")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The reasons queued reviews are set aside for, with how many share each (for `npm run admin -- set-aside`). */
export async function setAsideReasons(db: Kysely<Database>): Promise<{ reason: string; count: number }[]> {
  const rows = await db
    .selectFrom("pending_reviews")
    .select(["set_aside as reason", (eb) => eb.fn.countAll<number>().as("count")])
    .where("set_aside", "is not", null)
    .groupBy("set_aside")
    .orderBy("set_aside")
    .execute();
  return rows.map((row) => ({ reason: row.reason!, count: Number(row.count) }));
}

/**
 * Lets the next publication try the set-aside reviews again (once their cause is fixed); rows no key opens stay set
 * aside. Answers how many will be tried.
 */
export async function retrySetAside(db: Kysely<Database>): Promise<number> {
  const result = await db
    .updateTable("pending_reviews")
    .set({ set_aside: null })
    .where("set_aside", "is not", null)
    .where("key_id", "!=", noKeyId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Deletes the set-aside rows that no key opens any more (nobody can ever read them). Answers how many. */
export async function forgetUnopenable(db: Kysely<Database>): Promise<number> {
  const result = await db.deleteFrom("pending_reviews").where("key_id", "=", noKeyId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Gives this database a queue of its own, for a restored copy (`npm run db:restore`, `npm run queue:identity --
 * --new`): a new queue id, owned by this database. The queued reviews it copied were sealed with the
 * original queue's keys, which this copy must never destroy: when those keys are in QUEUE_KEY_DIR the reviews are
 * sealed again under the new key (the original's files are only read), otherwise they can never be opened and are
 * dropped. Answers how many queued reviews were kept and how many dropped.
 */
export async function newQueueIdentity(
  db: Kysely<Database>,
  settings: PublicationSettings,
): Promise<{ kept: number; dropped: number }> {
  return db.transaction().execute(async (trx) => {
    const state = await readState(trx);
    const rows = await trx.selectFrom("pending_reviews").select(["id", "key_id", "sealed", "set_aside"]).execute();
    // Rows no key opens (set aside as such) stay unopenable: they are dropped, as the original would forget them.
    const openable = rows.filter((row) => row.key_id !== noKeyId);
    let payloads: { payload: QueuedReview; reason?: string }[] | undefined = [];
    try {
      for (const row of openable) {
        const payload = unseal(readQueueKey(settings.keyDir, state.queueId, row.key_id), row.id, row.sealed);
        payloads.push({ payload: payload as QueuedReview, ...(row.set_aside ? { reason: row.set_aside } : {}) });
      }
    } catch (error) {
      if (!(error instanceof QueueKeyMissingError)) throw error;
      payloads = undefined;
    }
    await trx.deleteFrom("pending_reviews").where("id", "is not", null).execute();
    await trx.deleteFrom("pending_receipts").where("key", "is not", null).execute();
    const queueId = pooledRandomBytes(12).toString("base64url");
    if (!payloads || payloads.length === 0) {
      // No key yet: the first process to start (with its own QUEUE_KEY_DIR) claims the queue and makes one.
      await trx.updateTable("queue_state").set({ queue_id: queueId, key_id: null }).where("id", "=", 1).execute();
    } else {
      claimQueue(settings.keyDir, queueId, await databaseHome(trx));
      const key = createQueueKey(settings.keyDir, queueId);
      await trx.updateTable("queue_state").set({ queue_id: queueId, key_id: key.id }).where("id", "=", 1).execute();
      await reseal(trx, key, shuffle(payloads));
    }
    const kept = payloads?.length ?? 0;
    return { kept, dropped: rows.length - kept };
  });
}

/**
 * Makes this database the owner of its queue's keys in QUEUE_KEY_DIR (`npm run queue:identity -- --claim`), for a
 * database moved to another server or file, or restored after the original was lost for good: never while the
 * database it was copied from still runs on these keys.
 */
export async function claimQueueForThisDatabase(db: Kysely<Database>, settings: PublicationSettings): Promise<string> {
  const state = await readState(db);
  claimQueue(settings.keyDir, state.queueId, await databaseHome(db), true);
  return state.queueId;
}
