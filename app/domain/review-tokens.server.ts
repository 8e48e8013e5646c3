import { createHash, type KeyObject } from "node:crypto";
import type { Kysely } from "kysely";
import { z } from "zod";
import type { Database } from "#app/db/schema.ts";
import { keyIdOf } from "#app/lib/blind-rsa.server.ts";
import { verificationMessages as m } from "#app/lib/verification-messages.ts";
import { blindSignPartially, generatePbrsaKey, type PbrsaPublicKey, verifyPartially } from "#app/lib/pbrsa.server.ts";
import { createPrivateKey } from "node:crypto";
import { decodeReviewToken, encodeReviewToken, reviewTokenInfo, reviewTokenMessage } from "#app/lib/review-token.ts";
import { quarterOf } from "#app/lib/verification-token.ts";
import type { ManagerReviewInput } from "./contribution-input.server.ts";
import {
  type Author,
  ContributionError,
  isPublishedReceipt,
  receiptsOf,
  submitTokenReview,
  type Submission,
} from "./contributions.server.ts";
import {
  AlreadyQueuedError,
  isReceiptQueued,
  type PublicationSettings,
  publicationSettings,
  takeReceiptNow,
} from "./publication.server.ts";
import { openPrivate, sealPrivate, VerificationError } from "./verification.server.ts";

/**
 * One review per account per manager, without the account on the review (docs/decisions/0031-one-review-tokens.md).
 * While signed in, the browser obtains a partially blind RSA signature (draft-irtf-cfrg-partially-blind-rsa) on a
 * nonce it chose, with the manager and the quarter as public metadata; the account's receipt for the manager is
 * written then, so a second token, or a review by the receipt path, is refused. The review arrives later in a
 * request without a session, carrying the token: the server checks the signature for that manager and marks the
 * token spent when the review is published. Nothing stored or signed ties the token to the account.
 */

/** The scope under which one-review keys are sealed: not a registrable domain, so no verification key shares it. */
const sealingScope = "one-review";

export type ReviewTokenKey = { period: string; keyId: string; publicKey: PbrsaPublicKey };

async function keyRow(db: Kysely<Database>, period: string) {
  return db.selectFrom("review_token_keys").selectAll().where("period", "=", period).executeTakeFirst();
}

/**
 * The one-review key of a quarter, made on first use (two 1024-bit safe primes: a second or two). The primary key
 * (period) keeps it one, whoever makes it first; its public half is listed, so a key made for one person would show.
 */
export async function reviewTokenKey(db: Kysely<Database>, secret: string, now = new Date()): Promise<ReviewTokenKey> {
  const period = quarterOf(now);
  let row = await keyRow(db, period);
  if (!row) {
    // A new quarter: the past ones' private halves go first.
    await forgetPastReviewTokenKeys(db, now);
    const { privateDer, publicKey } = await generatePbrsaKey();
    const keyId = keyIdOf(publicKey);
    await db
      .insertInto("review_token_keys")
      .values({
        period,
        key_id: keyId,
        public_n: publicKey.n,
        public_e: publicKey.e,
        private_sealed: sealPrivate(secret, sealingScope, period, keyId, privateDer),
      })
      .onConflict((conflict) => conflict.column("period").doNothing())
      .execute();
    row = await keyRow(db, period);
    if (!row) throw new Error("The review token key could not be stored.");
  }
  return { period, keyId: row.key_id, publicKey: { kty: "RSA", n: row.public_n, e: row.public_e } };
}

/** Every one-review public key, newest first: tokens stay valid after their quarter, checked with these. */
export async function reviewTokenKeys(db: Kysely<Database>): Promise<ReviewTokenKey[]> {
  const rows = await db
    .selectFrom("review_token_keys")
    .select(["period", "key_id", "public_n", "public_e"])
    .orderBy("period", "desc")
    .execute();
  return rows.map((row) => ({
    period: row.period,
    keyId: row.key_id,
    publicKey: { kty: "RSA", n: row.public_n, e: row.public_e },
  }));
}

/** Erases the private halves of past quarters' keys: nobody can sign a token of a past quarter any more. */
export async function forgetPastReviewTokenKeys(db: Kysely<Database>, now = new Date()): Promise<void> {
  await db
    .updateTable("review_token_keys")
    .set({ private_sealed: null })
    .where("period", "!=", quarterOf(now))
    .where("private_sealed", "is not", null)
    .execute();
}

export const reviewTokenRequestSchema = z
  .object({
    blinded: z
      .string({ error: m.requestInvalid })
      .regex(/^[A-Za-z0-9_-]+$/, m.requestInvalid)
      .refine((value) => Buffer.from(value, "base64url").length === 256, m.requestInvalid)
      .describe("The blinded message (RSAPBSSA Blind, 256 bytes, base64url) for this manager and the key's period"),
    key_id: z.string({ error: m.requestInvalid }).max(100).describe("The key the message was blinded for"),
  })
  .strict();
export type ReviewTokenRequest = z.infer<typeof reviewTokenRequestSchema>;

export type IssuedReviewToken = { period: string; keyId: string; blindSignature: string };

/**
 * Signs the browser's blinded token for `managerId`, once per account per manager: the account's receipt is
 * written now (takeReceiptNow), and a second request, or an account that reviewed the manager already, is refused.
 * The signature is made first, so a refusal leaves nothing behind.
 */
export async function issueReviewToken(
  db: Kysely<Database>,
  author: Author,
  managerId: number,
  input: ReviewTokenRequest,
  settings: PublicationSettings = publicationSettings(),
  now = new Date(),
): Promise<IssuedReviewToken> {
  const manager = await db
    .selectFrom("managers")
    .select(["id", "receipt_ref"])
    .where("id", "=", managerId)
    .executeTakeFirst();
  if (!manager) throw new ContributionError("manager-not-found");
  const { receipt, legacy } = receiptsOf(author, manager);
  const key = await reviewTokenKey(db, author.secret, now);
  // A key the browser did not blind for (a new quarter began meanwhile) would give a token it cannot finalize.
  if (input.key_id !== key.keyId) throw new VerificationError("code-expired", m.requestInvalid);
  const row = await keyRow(db, key.period);
  if (!row?.private_sealed) throw new Error("The review token key has no private half.");
  const privateKey: KeyObject = createPrivateKey({
    key: openPrivate(author.secret, sealingScope, key.period, key.keyId, Buffer.from(row.private_sealed)),
    format: "der",
    type: "pkcs8",
  });
  let signature: Buffer;
  try {
    signature = await blindSignPartially(
      privateKey,
      Buffer.from(input.blinded, "base64url"),
      reviewTokenInfo(managerId, key.period),
    );
  } catch {
    throw new VerificationError("request-invalid");
  }
  // A review of the old scheme (a receipt under the server secret) published or waiting counts as the account's.
  if ((await isPublishedReceipt(db, [legacy])) || (await isReceiptQueued(db, settings, legacy))) {
    throw new VerificationError("review-token-taken");
  }
  try {
    await takeReceiptNow(db, settings, receipt);
  } catch (error) {
    if (error instanceof AlreadyQueuedError) throw new VerificationError("review-token-taken");
    throw error;
  }
  return { period: key.period, keyId: key.keyId, blindSignature: signature.toString("base64url") };
}

/** What the server keeps of a spent one-review token: a hash of its metadata and message, no signature. */
export function reviewTokenHash(managerId: number, period: string, nonce: string): string {
  return createHash("sha256").update(`one-review\u0000${managerId}\u0000${period}\u0000${nonce}`).digest("base64url");
}

/**
 * Queues a review of `managerId` that spends a one-review token, from a request without an account: the token must
 * be of this manager, signed by its period's key under that metadata, and not spent (published or waiting: the
 * queue's transaction refuses it). A
 * verification token may come too, for the badge, as with any manager review.
 */
export async function recordTokenReview(
  db: Kysely<Database>,
  secret: string,
  managerId: number,
  review: ManagerReviewInput,
  token: string,
  settings: PublicationSettings = publicationSettings(),
  verificationToken?: string,
): Promise<Submission> {
  const decoded = decodeReviewToken(token);
  if (!decoded) throw new VerificationError("review-token-invalid");
  if (decoded.managerId !== managerId) throw new VerificationError("review-token-manager");
  const row = await keyRow(db, decoded.period);
  if (!row) throw new VerificationError("review-token-invalid");
  const valid = await verifyPartially(
    { kty: "RSA", n: row.public_n, e: row.public_e },
    reviewTokenMessage(decoded.nonce),
    reviewTokenInfo(decoded.managerId, decoded.period),
    Buffer.from(decoded.signature, "base64url"),
  );
  if (!valid) throw new VerificationError("review-token-invalid");
  const hash = reviewTokenHash(decoded.managerId, decoded.period, decoded.nonce);
  // Spent or not is decided by the primary key of spent_tokens in the transaction that queues the review, never by a
  // read before it (decision 0044).
  return submitTokenReview(db, secret, managerId, review, hash, settings, verificationToken);
}

export { encodeReviewToken };
