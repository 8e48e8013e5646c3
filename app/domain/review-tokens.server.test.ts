import { RSAPBSSA } from "@cloudflare/blindrsa-ts";
import type { Kysely } from "kysely";
import { expect, it } from "vitest";
import type { Database } from "#app/db/schema.ts";
import { keyIdOf } from "#app/lib/blind-rsa.server.ts";
import { generatePbrsaKey } from "#app/lib/pbrsa.server.ts";
import { finalizeReviewToken, reviewTokenInfo, reviewTokenMessage } from "#app/lib/review-token.ts";
import { importPublicKey, quarterOf, toBase64url } from "#app/lib/verification-token.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { insertCompany, insertManager } from "#tests/support/test-fixtures.ts";
import {
  author,
  expectRefusal,
  managerReview,
  testReceiptSecret as secret,
} from "#tests/support/test-contributions.ts";
import { contributionPublisher, recordManagerReview } from "./contributions.server.ts";
import { type PublicationSettings, publicationSettings, publishQueued } from "./publication.server.ts";
import { issueReviewToken, recordTokenReview, reviewTokenHash, reviewTokenKey } from "./review-tokens.server.ts";
import { sealPrivate, VerificationError, type VerificationFailure } from "./verification.server.ts";

type Db = Kysely<Database>;

// One key for the whole file: making one (two 1024-bit safe primes) takes a second or more.
const fixedKey = await generatePbrsaKey();

async function installKey(db: Db): Promise<void> {
  const period = quarterOf(new Date());
  const keyId = keyIdOf(fixedKey.publicKey);
  await db
    .insertInto("review_token_keys")
    .values({
      period,
      key_id: keyId,
      public_n: fixedKey.publicKey.n,
      public_e: fixedKey.publicKey.e,
      private_sealed: sealPrivate(secret, "one-review", period, keyId, fixedKey.privateDer),
    })
    .execute();
}

const queued: PublicationSettings = {
  intervalSeconds: 1800,
  managerMinReviews: 1,
  minAuthors: 1,
  keyDir: publicationSettings().keyDir,
};

/** What the browser does: blind a fresh nonce for the manager, have it signed while signed in, finalize it. */
async function obtainToken(db: Db, userId: string, managerId: number): Promise<string> {
  const key = await reviewTokenKey(db, secret);
  const nonce = toBase64url(crypto.getRandomValues(new Uint8Array(32)));
  const suite = RSAPBSSA.SHA384.PSS.Deterministic();
  const { blindedMsg, inv } = await suite.blind(
    await importPublicKey(key.publicKey),
    reviewTokenMessage(nonce),
    reviewTokenInfo(managerId, key.period),
  );
  const issued = await issueReviewToken(
    db,
    author(userId),
    managerId,
    { blinded: toBase64url(blindedMsg), key_id: key.keyId },
    queued,
  );
  return finalizeReviewToken({
    publicKey: key.publicKey,
    managerId,
    period: key.period,
    nonce,
    blinded: blindedMsg,
    inverse: inv,
    blindSignature: issued.blindSignature,
  });
}

async function refusal(work: Promise<unknown>, kind: VerificationFailure): Promise<VerificationError> {
  const error = await work.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(VerificationError);
  expect((error as VerificationError).kind).toBe(kind);
  return error as VerificationError;
}

describeEachEngine("one-review tokens", (database) => {
  async function twoManagers(db: Db): Promise<[number, number]> {
    await installKey(db);
    const company = await insertCompany(db, { name: "Initech", website: "https://initech.example.org" });
    const a = await insertManager(db, { first_name: "Ada", last_name: "One", linkedin_url: "https://l.example/a" }, [
      company,
    ]);
    const b = await insertManager(db, { first_name: "Bob", last_name: "Two", linkedin_url: "https://l.example/b" }, [
      company,
    ]);
    return [a, b];
  }

  it("spends a token of manager A on A, never on B, and refuses spending it twice, waiting or published", async () => {
    const { db } = database();
    const [a, b] = await twoManagers(db);
    const token = await obtainToken(db, "user-1", a);
    const foreign = await refusal(
      recordTokenReview(db, secret, b, managerReview(), token, queued),
      "review-token-manager",
    );
    expect(foreign.message).toBe("This review token is for another manager.");
    // A token rewritten to name B does not carry B's signature: the metadata selects another key.
    const parts = token.split("~");
    parts[1] = String(b);
    await refusal(recordTokenReview(db, secret, b, managerReview(), parts.join("~"), queued), "review-token-invalid");

    const submission = await recordTokenReview(db, secret, a, managerReview(), token, queued);
    expect(submission.published).toBe(false);
    const waiting = await refusal(
      recordTokenReview(db, secret, a, managerReview(), token, queued),
      "review-token-spent",
    );
    expect(waiting.message).toBe("This review token has already been used: each account can review a manager once.");
    await publishQueued(db, contributionPublisher(secret), { settings: queued });
    await refusal(recordTokenReview(db, secret, a, managerReview(), token, queued), "review-token-spent");
    expect(await db.selectFrom("manager_reviews").select("manager_id").execute()).toEqual([{ manager_id: a }]);
    const decoded = token.split("~");
    // Its hash, written by the submission beside one random filler (decision 0044): two rows, as every submission.
    const spent = await db.selectFrom("spent_tokens").select("token_hash").execute();
    expect(spent).toHaveLength(2);
    expect(spent).toContainEqual({ token_hash: reviewTokenHash(a, decoded[2]!, decoded[3]!) });
    // One receipt, written at issuance: the batch wrote none for this review.
    expect(await db.selectFrom("review_receipts").selectAll().execute()).toHaveLength(1);
  });

  it("issues one token per account per manager, and shares the one review with the receipt path", async () => {
    const { db } = database();
    const [a, b] = await twoManagers(db);
    await obtainToken(db, "user-1", a);
    const second = await refusal(obtainToken(db, "user-1", a), "review-token-taken");
    expect(second.status).toBe(409);
    // The same account may take a token for another manager, and another account for the same one.
    await obtainToken(db, "user-1", b);
    await obtainToken(db, "user-2", a);
    // With a token taken, the form without JavaScript refuses too: the account has its one review of A.
    await expectRefusal(recordManagerReview(db, author("user-1"), a, managerReview(), queued), "already-reviewed");
    // An account that reviewed (or whose review waits) gets no token.
    await recordManagerReview(db, author("user-3"), a, managerReview(), queued);
    await refusal(obtainToken(db, "user-3", a), "review-token-taken");
    await publishQueued(db, contributionPublisher(secret), { settings: queued });
    await refusal(obtainToken(db, "user-3", a), "review-token-taken");
  });

  it("refuses a malformed token and a forged signature", async () => {
    const { db } = database();
    const [a] = await twoManagers(db);
    await refusal(recordTokenReview(db, secret, a, managerReview(), "r1~nonsense", queued), "review-token-invalid");
    const token = await obtainToken(db, "user-1", a);
    const parts = token.split("~");
    parts[3] = toBase64url(crypto.getRandomValues(new Uint8Array(32)));
    await refusal(recordTokenReview(db, secret, a, managerReview(), parts.join("~"), queued), "review-token-invalid");
    expect(await db.selectFrom("pending_reviews").selectAll().execute()).toEqual([]);
  });
});
