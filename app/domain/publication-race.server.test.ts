import { RSAPBSSA } from "@cloudflare/blindrsa-ts";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Kysely } from "kysely";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "#app/db/schema.ts";
import { keyIdOf } from "#app/lib/blind-rsa.server.ts";
import { generatePbrsaKey } from "#app/lib/pbrsa.server.ts";
import { finalizeReviewToken, reviewTokenInfo, reviewTokenMessage } from "#app/lib/review-token.ts";
import { importPublicKey, quarterOf, toBase64url } from "#app/lib/verification-token.ts";
import { createTestDatabase, type TestDatabase } from "#tests/support/test-database.ts";
import { insertCompany, insertManager } from "#tests/support/test-fixtures.ts";
import { author, managerReview, testReceiptSecret as secret } from "#tests/support/test-contributions.ts";
import { contributionPublisher, recordManagerReview } from "./contributions.server.ts";
import { type PublicationSettings, publishQueued } from "./publication.server.ts";
import { issueReviewToken, reviewTokenKey } from "./review-tokens.server.ts";
import { sealPrivate } from "./verification.server.ts";

/**
 * The race of one token against publication, with two processes on PostgreSQL: each sends the same one-review token
 * 300 times, four at a time, while publishing the queue over and over. Before spends were written by the submitting
 * transaction (decision 0044), a publication that committed between the check of spent_tokens and the queueing let a
 * second copy in, and every publication after it failed on the duplicate key. Proved live twice: with the three
 * domain modules as they were before the fix, this test failed with 18 publications failing on "duplicate key value
 * violates unique constraint spent_tokens_pkey"; with only enqueueReview's spent_tokens insert put back to the old
 * pending key and read (publication setting rows aside already), it failed with 2 copies accepted.
 */

const attemptsPerProcess = 300;
const fixedKey = await generatePbrsaKey();

async function installKey(db: Kysely<Database>): Promise<void> {
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

/** What the browser does: blind a fresh nonce for the manager, have it signed while signed in, finalize it. */
async function obtainToken(db: Kysely<Database>, userId: string, managerId: number, settings: PublicationSettings) {
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
    settings,
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

type Seen = {
  accepted: number;
  refused: number;
  otherErrors: string[];
  publications: number;
  publicationFailures: string[];
};

function runChild(env: Record<string, string>): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["tests/support/token-race-child.ts"], {
      cwd: path.resolve(import.meta.dirname, "../.."),
      env: { PATH: process.env.PATH, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) reject(new Error(`the race process ended with ${code}: ${err}`));
      else resolve(JSON.parse(out.trim().split("\n").at(-1)!) as Seen);
    });
  });
}

describe("one token sent again and again around publications, by two processes (postgres)", () => {
  let database: TestDatabase;
  let keyDir: string;
  beforeAll(async () => {
    database = await createTestDatabase("postgres");
  });
  afterAll(() => database.drop());
  beforeEach(() => {
    keyDir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-race-keys-"));
  });
  afterEach(() => fs.rmSync(keyDir, { recursive: true, force: true }));

  it("accepts the token once in 600 attempts, keeps every publication succeeding, and publishes an ordinary review after", async () => {
    const { db, url } = database;
    const settings: PublicationSettings = { intervalSeconds: 1800, managerMinReviews: 1, minAuthors: 1, keyDir };
    await installKey(db);
    const company = await insertCompany(db, { name: "Initech", website: "https://initech.example.org" });
    const managerId = await insertManager(
      db,
      { first_name: "Ada", last_name: "Race", linkedin_url: "https://l.example/race" },
      [company],
    );
    const token = await obtainToken(db, "user-race", managerId, settings);
    const env = {
      DATABASE_URL: url,
      QUEUE_KEY_DIR: keyDir,
      AUTH_SECRET: secret,
      TOKEN: token,
      MANAGER_ID: String(managerId),
      ATTEMPTS: String(attemptsPerProcess),
    };
    const seen = await Promise.all([runChild(env), runChild(env)]);

    const total = (pick: (one: Seen) => number) => seen.reduce((sum, one) => sum + pick(one), 0);
    expect(seen.flatMap((one) => one.otherErrors)).toEqual([]);
    expect(seen.flatMap((one) => one.publicationFailures)).toEqual([]);
    expect(total((one) => one.accepted)).toBe(1);
    expect(total((one) => one.refused)).toBe(2 * attemptsPerProcess - 1);
    // Publications ran all along, in both processes (not one after the other's attempts were over).
    for (const one of seen) expect(one.publications).toBeGreaterThan(5);

    // An ordinary review still publishes, and the token's review is published once.
    await recordManagerReview(db, author("user-ordinary"), managerId, managerReview(), settings);
    const result = await publishQueued(db, contributionPublisher(secret), { settings, wait: true });
    expect(result?.setAsideTotal).toBe(0);
    const reviews = await db.selectFrom("manager_reviews").select("id").where("manager_id", "=", managerId).execute();
    expect(reviews).toHaveLength(2);
    const waiting = await db.selectFrom("pending_reviews").select("id").execute();
    expect(waiting).toEqual([]);
  }, 180_000);
});
