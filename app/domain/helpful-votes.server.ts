import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  type KeyObject,
  randomBytes,
  timingSafeEqual,
} from "node:crypto";
import { hashRaw } from "@node-rs/argon2";
import { type Kysely, sql, type Transaction } from "kysely";
import { z } from "zod";
import type { Database } from "#app/db/schema.ts";
import { voteMessages } from "#app/lib/messages.ts";

/**
 * Helpful votes, one per account per review, without a stored link between them
 * (docs/decisions/0016-helpful-votes-with-a-key-only-the-account-holds.md). Each account has a random vote key that
 * the server stores only wrapped under argon2id(password, salt), opens only while the password is at hand, and hands
 * to the client (a cookie, or the API's `vote_key`). A vote stores HMAC(vote key, review id) and counts 1 on the
 * review, in one transaction.
 */

const keyBytes = 32;
/** The password hash's own argon2id parameters (app/domain/auth.server.ts): guessing costs as much here as there. */
const argon2id = 2;
const wrapKdf = { algorithm: argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1, outputLen: 32 } as const;
const voteKeyPattern = /^[A-Za-z0-9_-]{43}$/;

/** A review id as the lists give it (random base64url). */
export const reviewIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

/** The API's vote: the review, and whether to cast (true) or take back (false) the account's vote on it. */
export const helpfulVoteSchema = z
  .object({
    review_id: z.string().regex(reviewIdPattern, voteMessages.reviewNotFound),
    helpful: z.boolean(),
  })
  .strict();

export type VoteFailure = "already-voted" | "not-voted" | "review-not-found";

export class VoteError extends Error {
  readonly kind: VoteFailure;
  readonly status: number;
  constructor(kind: VoteFailure) {
    const answers: Record<VoteFailure, [string, number]> = {
      "already-voted": [voteMessages.alreadyVoted, 409],
      "not-voted": [voteMessages.notVoted, 409],
      "review-not-found": [voteMessages.reviewNotFound, 404],
    };
    const [message, status] = answers[kind];
    super(message);
    this.name = "VoteError";
    this.kind = kind;
    this.status = status;
  }
}

/** A vote key as a client sends it back (43 base64url characters), or null for anything else. */
export function parseVoteKey(value: string | null | undefined): string | null {
  return value && voteKeyPattern.test(value) ? value : null;
}

async function wrappingKey(password: string, salt: Uint8Array): Promise<Buffer> {
  return hashRaw(password, { ...wrapKdf, salt: Buffer.from(salt) });
}

async function wrap(password: string, salt: Uint8Array, voteKey: Buffer): Promise<Buffer> {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", await wrappingKey(password, salt), iv);
  const sealed = Buffer.concat([cipher.update(voteKey), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
}

async function unwrap(password: string, salt: Uint8Array, wrapped: Uint8Array): Promise<Buffer | null> {
  const bytes = Buffer.from(wrapped);
  try {
    const decipher = createDecipheriv("aes-256-gcm", await wrappingKey(password, salt), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    const key = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
    return key.length === keyBytes ? key : null;
  } catch {
    // Another password (a reset since) opens nothing.
    return null;
  }
}

/**
 * What the server keeps to recognise an account's key (docs/decisions/0046-reviews-wait-under-a-key-only-the-author-holds.md):
 * an HMAC under the key itself, with a label no receipt or author tag uses. It tells whether a presented key is the
 * account's; it cannot be turned back into the key, so it recomputes no vote receipt, review receipt or author tag.
 */
export function accountKeyCheck(accountKey: string): string {
  return createHmac("sha256", receiptKey(accountKey)).update("account-key-check").digest("base64url");
}

/**
 * Whether `accountKey` is the key of `userId` (a read, in no transaction of the vote or review it allows). An account
 * whose check is not stored yet (no sign-in since the change) has no key that passes: it signs in again.
 */
export async function isAccountKeyOf(db: Kysely<Database>, userId: string, accountKey: string): Promise<boolean> {
  const row = await db.selectFrom("vote_keys").select("key_check").where("user_id", "=", userId).executeTakeFirst();
  if (!row?.key_check) return false;
  const stored = Buffer.from(row.key_check, "utf8");
  const presented = Buffer.from(accountKeyCheck(accountKey), "utf8");
  return stored.length === presented.length && timingSafeEqual(stored, presented);
}

async function storeWrapped(db: Kysely<Database>, userId: string, password: string, voteKey: Buffer): Promise<void> {
  const salt = randomBytes(16);
  const wrapped = await wrap(password, salt, voteKey);
  const key_check = accountKeyCheck(voteKey.toString("base64url"));
  await db
    .insertInto("vote_keys")
    .values({ user_id: userId, salt, wrapped, key_check })
    .onConflict((conflict) => conflict.column("user_id").doUpdateSet({ salt, wrapped, key_check }))
    .execute();
}

/**
 * The account's vote key, opened with the password just checked (sign-in, sign-up): the stored one, or a new one
 * when the account has none yet or its wrapping no longer opens (the password was reset since).
 */
export async function unlockVoteKey(db: Kysely<Database>, userId: string, password: string): Promise<string> {
  const row = await db
    .selectFrom("vote_keys")
    .select(["salt", "wrapped", "key_check"])
    .where("user_id", "=", userId)
    .executeTakeFirst();
  const opened = row ? await unwrap(password, row.salt, row.wrapped) : null;
  if (opened) {
    const key = opened.toString("base64url");
    // A key made before its check was kept: the check is written now, at sign-in, never beside a vote or review.
    if (row?.key_check !== accountKeyCheck(key)) {
      await db
        .updateTable("vote_keys")
        .set({ key_check: accountKeyCheck(key) })
        .where("user_id", "=", userId)
        .execute();
    }
    return key;
  }
  const fresh = randomBytes(keyBytes);
  await storeWrapped(db, userId, password, fresh);
  return fresh.toString("base64url");
}

/** After a password change: the same vote key, wrapped under the new password (a new one if the old did not open). */
export async function rewrapVoteKey(
  db: Kysely<Database>,
  userId: string,
  passwords: { currentPassword: string; newPassword: string },
): Promise<string> {
  const row = await db
    .selectFrom("vote_keys")
    .select(["salt", "wrapped"])
    .where("user_id", "=", userId)
    .executeTakeFirst();
  const key = (row ? await unwrap(passwords.currentPassword, row.salt, row.wrapped) : null) ?? randomBytes(keyBytes);
  await storeWrapped(db, userId, passwords.newPassword, key);
  return key.toString("base64url");
}

/**
 * The receipt of a vote: what the table keeps, and all it keeps. For several reviews, pass the key made once by
 * `receiptKey`: preparing the key costs about three times the HMAC itself.
 */
export function voteReceipt(voteKey: string | KeyObject, reviewId: string): string {
  return createHmac("sha256", typeof voteKey === "string" ? receiptKey(voteKey) : voteKey)
    .update(`helpful-vote\u0000${reviewId}`)
    .digest("base64url");
}

function receiptKey(voteKey: string): KeyObject {
  return createSecretKey(Buffer.from(voteKey, "base64url"));
}

type Trx = Transaction<Database>;

/** The table of a review that stands (not removed), or null. */
async function standingReviewTable(trx: Trx, reviewId: string) {
  const removed = await trx
    .selectFrom("removed_reviews")
    .select("review_id")
    .where("review_id", "=", reviewId)
    .executeTakeFirst();
  if (removed) return null;
  for (const table of ["company_reviews", "manager_reviews"] as const) {
    const row = await trx.selectFrom(table).select("id").where("id", "=", reviewId).executeTakeFirst();
    if (row) return table;
  }
  return null;
}

export type VoteOutcome = { reviewId: string; helpfulVotes: number; voted: boolean };

/**
 * Casts (`helpful` true) or takes back (false) the vote of the key's holder on a review that stands: the receipt and
 * the review's count change in one transaction, so the count is exact at every commit. A second vote, or taking back
 * a vote never cast, is refused and changes nothing.
 */
export async function setHelpfulVote(
  db: Kysely<Database>,
  voteKey: string,
  reviewId: string,
  helpful: boolean,
): Promise<VoteOutcome> {
  const receipt = voteReceipt(voteKey, reviewId);
  return db.transaction().execute(async (trx) => {
    const table = await standingReviewTable(trx, reviewId);
    if (!table) throw new VoteError("review-not-found");
    if (helpful) {
      const inserted = await trx
        .insertInto("vote_receipts")
        .values({ receipt })
        .onConflict((conflict) => conflict.column("receipt").doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) throw new VoteError("already-voted");
    } else {
      const deleted = await trx.deleteFrom("vote_receipts").where("receipt", "=", receipt).executeTakeFirst();
      if (Number(deleted.numDeletedRows) !== 1) throw new VoteError("not-voted");
    }
    const row = await (trx as Kysely<any>)
      .updateTable(table)
      .set({ helpful_votes: sql`helpful_votes ${sql.raw(helpful ? "+" : "-")} 1` })
      .where("id", "=", reviewId)
      .returning("helpful_votes")
      .executeTakeFirstOrThrow();
    return { reviewId, helpfulVotes: Number(row.helpful_votes), voted: helpful };
  });
}

/** Which of `reviewIds` the key's holder voted for: their receipts recomputed and looked up (a read). */
export async function votedAmong(
  db: Kysely<Database>,
  voteKey: string,
  reviewIds: readonly string[],
): Promise<Set<string>> {
  if (reviewIds.length === 0) return new Set();
  const key = receiptKey(voteKey);
  const byReceipt = new Map(reviewIds.map((id) => [voteReceipt(key, id), id]));
  const rows = await db
    .selectFrom("vote_receipts")
    .select("receipt")
    .where("receipt", "in", [...byReceipt.keys()])
    .execute();
  return new Set(rows.map((row) => byReceipt.get(row.receipt)!));
}

/**
 * A withdrawn review's votes stay as receipts nothing can find: they are counted in `vote_totals.orphaned`, in the
 * withdrawal's transaction, so receipts and counts keep adding up.
 */
export async function orphanVotes(trx: Trx | Kysely<Database>, helpfulVotes: number): Promise<void> {
  if (helpfulVotes === 0) return;
  await trx
    .insertInto("vote_totals")
    .values({ id: 1, orphaned: helpfulVotes })
    .onConflict((conflict) =>
      conflict.column("id").doUpdateSet({ orphaned: sql`vote_totals.orphaned + ${helpfulVotes}` }),
    )
    .execute();
}
