import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { readQueueKey, seal, sealedBytes } from "#app/lib/queue-keys.server.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { countRows, insertCompany, insertManager } from "#tests/support/test-fixtures.ts";
import {
  author,
  companyReview,
  managerReview,
  testReceiptSecret as secret,
} from "#tests/support/test-contributions.ts";
import { VerificationError } from "./verification.server.ts";
import { contributionPublisher, recordCompanyReview, submitTokenReview } from "./contributions.server.ts";
import {
  forgetUnopenable,
  prepareQueueKeys,
  publicationHealth,
  type PublicationSettings,
  publishQueued,
  type QueuedReview,
  queuedCount,
  resetPublicationHealth,
  retrySetAside,
  setAsideReasons,
} from "./publication.server.ts";

/**
 * Publication that one row cannot stop (decision 0044). Proved live: with enqueueReview's spend put back to the old
 * pending key, the first two tests failed (the token sent again after its publication was queued; one spent row per
 * token and none per plain submission); with the row-by-row fallback removed, the unwritable-row and legacy-duplicate
 * tests failed (the whole batch rolled back). On the code before the fix an unopenable row failed every run too.
 */

let keyDir: string;
let settings: PublicationSettings;
beforeEach(() => {
  keyDir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-set-aside-"));
  settings = { intervalSeconds: 1800, managerMinReviews: 1, minAuthors: 1, keyDir };
  resetPublicationHealth();
});
afterEach(() => fs.rmSync(keyDir, { recursive: true, force: true }));

const publisher = contributionPublisher(secret);
const people = ["alice", "bob", "carol"].map((name) => author(`user-${name}`));

describeEachEngine("publication that one row cannot stop", (database) => {
  it("refuses a token sent again after the publication of its first review, at the queueing itself", async () => {
    const { db } = database();
    const company = await insertCompany(db, { name: "Initech", website: "https://initech.example.org" });
    const managerId = await insertManager(db, { first_name: "Ada", last_name: "One" }, [company]);
    const tokenHash = "a-one-review-token-hash-of-43-characters-xx";
    await submitTokenReview(db, secret, managerId, managerReview(), tokenHash, settings);
    expect((await publishQueued(db, publisher, { settings }))?.published).toBe(1);
    // What the race did: a check made before that publication committed, the queueing after it.
    const error: unknown = await submitTokenReview(db, secret, managerId, managerReview(), tokenHash, settings).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(VerificationError);
    expect((error as VerificationError).kind).toBe("review-token-spent");
    expect(await queuedCount(db)).toBe(0);
    await recordCompanyReview(db, people[0]!, company, companyReview(), settings);
    expect((await publishQueued(db, publisher, { settings }))?.published).toBe(1);
    expect(publicationHealth()).toMatchObject({ consecutiveFailures: 0, setAside: 0 });
  });

  it("writes two rows to spent_tokens for every submission, with a token or without", async () => {
    const { db } = database();
    const company = await insertCompany(db, { name: "Initech" });
    const managerId = await insertManager(db, { first_name: "Ada", last_name: "One" }, [company]);
    await recordCompanyReview(db, people[0]!, company, companyReview(), settings);
    expect(await countRows(db, "spent_tokens")).toBe(2);
    await submitTokenReview(db, secret, managerId, managerReview(), "token-hash-one", settings);
    expect(await countRows(db, "spent_tokens")).toBe(4);
    const rows = await db.selectFrom("spent_tokens").select("token_hash").execute();
    expect(rows).toContainEqual({ token_hash: "token-hash-one" });
    // The fillers look like a token's SHA-256 in base64url (43 characters).
    for (const { token_hash: hash } of rows) {
      if (hash !== "token-hash-one") expect(hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }
  });

  it("sets aside a row it cannot write, with its reason, and publishes the others", async () => {
    const { db } = database();
    const acme = await insertCompany(db, { name: "Acme" });
    const gone = await insertCompany(db, { name: "Gone" });
    for (const person of people) await recordCompanyReview(db, person, acme, companyReview(), settings);
    await recordCompanyReview(db, author("user-dave"), gone, companyReview(), settings);
    // The company disappears while its review waits: that review cannot be written any more.
    await db.deleteFrom("companies").where("id", "=", gone).execute();

    const first = await publishQueued(db, publisher, { settings });
    expect(first).toMatchObject({ published: 3, held: 0, setAside: 1, setAsideTotal: 1 });
    expect(await countRows(db, "company_reviews")).toBe(3);
    expect(await setAsideReasons(db)).toEqual([{ reason: "ContributionError: company-not-found", count: 1 }]);
    expect(publicationHealth()).toMatchObject({ consecutiveFailures: 0, setAside: 1 });
    expect(publicationHealth().lastSuccessAt).toBeInstanceOf(Date);

    // The next runs leave it aside and publish what comes.
    await recordCompanyReview(db, people[0]!, acme, companyReview(), settings);
    expect(await publishQueued(db, publisher, { settings })).toMatchObject({
      published: 1,
      setAside: 0,
      setAsideTotal: 1,
    });
    expect(await queuedCount(db)).toBe(1);
    // Retried by the operator: its cause is still there, so it is set aside again, and nothing else is stopped.
    expect(await retrySetAside(db)).toBe(1);
    expect(await publishQueued(db, publisher, { settings })).toMatchObject({ published: 0, setAside: 1 });
    expect(await countRows(db, "company_reviews")).toBe(4);
  });

  it("sets aside a row no key opens, forgets its key, and starts again", async () => {
    const { db } = database();
    const acme = await insertCompany(db, { name: "Acme" });
    await recordCompanyReview(db, people[0]!, acme, companyReview(), settings);
    const state = await db.selectFrom("queue_state").selectAll().executeTakeFirstOrThrow();
    await db
      .insertInto("pending_reviews")
      .values({ id: "damaged", slot: 7, key_id: state.key_id!, sealed: Buffer.alloc(sealedBytes, 1) })
      .execute();
    expect(await publishQueued(db, publisher, { settings })).toMatchObject({ published: 1, setAside: 1 });
    const [reason] = await setAsideReasons(db);
    expect(reason?.reason).toMatch(/^cannot be opened: /);
    // Its key went with the batch; a process still starts, and later runs go on.
    await prepareQueueKeys(db, settings);
    await recordCompanyReview(db, people[1]!, acme, companyReview(), settings);
    expect(await publishQueued(db, publisher, { settings })).toMatchObject({ published: 1, setAsideTotal: 1 });
    expect(await retrySetAside(db)).toBe(0);
    expect(await forgetUnopenable(db)).toBe(1);
    expect(await setAsideReasons(db)).toEqual([]);
  });

  it("publishes one of two copies of a token queued before spends were written at submission, and sets the other aside", async () => {
    const { db } = database();
    const company = await insertCompany(db, { name: "Initech" });
    const managerId = await insertManager(db, { first_name: "Ada", last_name: "One" }, [company]);
    // Two rows sealed the way the code before decision 0044 sealed them: the spend left to the batch.
    await recordCompanyReview(db, people[0]!, company, companyReview(), settings);
    const state = await db.selectFrom("queue_state").selectAll().executeTakeFirstOrThrow();
    const key = readQueueKey(keyDir, state.queue_id, state.key_id!);
    for (const id of ["copy-1", "copy-2"]) {
      const payload: QueuedReview = {
        kind: "manager-review",
        author: `token-${id}`,
        managerId,
        reviewToken: "the-same-token",
        review: managerReview(),
      };
      await db
        .insertInto("pending_reviews")
        .values({ id, slot: id === "copy-1" ? 11 : 12, key_id: key.id, sealed: seal(key, id, payload) })
        .execute();
    }
    const result = await publishQueued(db, publisher, { settings });
    expect(result).toMatchObject({ published: 2, setAside: 1 });
    const [reason] = await setAsideReasons(db);
    expect(reason?.reason).toMatch(/spent_tokens/);
    expect(await countRows(db, "manager_reviews")).toBe(1);
  });

  it("counts failed runs in a row until one succeeds", async () => {
    const { db } = database();
    const acme = await insertCompany(db, { name: "Acme" });
    await recordCompanyReview(db, people[0]!, acme, companyReview(), settings);
    const elsewhere = { ...settings, keyDir: fs.mkdtempSync(path.join(os.tmpdir(), "candor-no-keys-")) };
    for (let run = 0; run < 2; run++)
      await expect(publishQueued(db, publisher, { settings: elsewhere })).rejects.toThrow();
    expect(publicationHealth()).toMatchObject({ consecutiveFailures: 2, lastSuccessAt: undefined });
    expect(publicationHealth().lastFailureAt).toBeInstanceOf(Date);
    fs.rmSync(elsewhere.keyDir, { recursive: true, force: true });
    await publishQueued(db, publisher, { settings });
    expect(publicationHealth()).toMatchObject({ consecutiveFailures: 0 });
  });
});
