import { createHmac } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Kysely } from "kysely";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { Database } from "#app/db/schema.ts";
import { readQueueKey, unseal } from "#app/lib/queue-keys.server.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { insertCompany, insertManager } from "#tests/support/test-fixtures.ts";
import {
  author,
  company,
  companyReview,
  manager,
  managerReview,
  testReceiptSecret,
} from "#tests/support/test-contributions.ts";
import {
  addCompany,
  addManager,
  type Author,
  contributionPublisher,
  legacyManagerReviewReceipt,
  managerReference,
  managerReviewReceipt,
  newManagerReference,
  recordCompanyReview,
  recordManagerReview,
} from "./contributions.server.ts";
import {
  authorPeriod,
  authorTag,
  countAuthors,
  databaseId,
  enqueueReview,
  type PublicationSettings,
  publishQueued,
  type QueuedReview,
} from "./publication.server.ts";

/**
 * A copy of the server taken while reviews wait (docs/decisions/0046-reviews-wait-under-a-key-only-the-author-holds.md):
 * the database, the queue's key directory and the server secret. Every waiting and held row is opened with the key
 * on disk, and whatever in it could name its author is recomputed for every account × manager from what the copy
 * holds. The same search given the accounts' own keys names every row (so the search is live), and a row planted with
 * the old payload (the account id and the tag under the server secret) is named (so the check would fail if a row
 * named its author again).
 */

let keyDir: string;
let settings: PublicationSettings;
beforeEach(() => {
  keyDir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-seizure-keys-"));
  settings = { intervalSeconds: 1800, managerMinReviews: 3, minAuthors: 3, keyDir };
});
afterEach(() => fs.rmSync(keyDir, { recursive: true, force: true }));

const publisher = contributionPublisher(testReceiptSecret);
const people = ["alice", "bob", "carol", "dave"].map((name) => author(`user-${name}`));

type Opened = { id: string; payload: QueuedReview };

/** What a seizure reads: every queued row, opened with the key file its row names. */
async function openQueue(db: Kysely<Database>): Promise<Opened[]> {
  const queueId = await databaseId(db);
  const rows = await db.selectFrom("pending_reviews").selectAll().execute();
  return rows.map((row) => ({
    id: row.id,
    payload: unseal(readQueueKey(keyDir, queueId, row.key_id), row.id, row.sealed) as QueuedReview,
  }));
}

/** The tag and receipt formulas an attacker can compute from a key: the server secret, or an account's own key. */
function tagsFor(key: string | Buffer, userId: string | undefined): string[] {
  const period = authorPeriod();
  const hmac = (text: string) => createHmac("sha256", key).update(text).digest("base64url");
  return [
    ...(userId ? [hmac(`queue-author\u0000${userId}`), hmac(`queue-author\u0000${userId}\u0000${period}`)] : []),
    hmac(`queue-author\u0000${period}`),
    `${period}.${hmac(`queue-author\u0000${period}`)}`,
  ];
}

/**
 * Which accounts a seizure names for each opened row, knowing `keys` for each account (the server secret for all, in
 * a real seizure), every account id, every manager's id and reference.
 */
async function nameAuthors(
  db: Kysely<Database>,
  opened: Opened[],
  keysOf: (person: Author) => Array<string | Buffer>,
): Promise<Map<string, Set<string>>> {
  const managers = await db.selectFrom("managers").select(["id", "receipt_ref"]).execute();
  const named = new Map<string, Set<string>>();
  for (const { id, payload } of opened) {
    const found = new Set<string>();
    const text = JSON.stringify(payload);
    for (const person of people) {
      if (text.includes(person.userId)) found.add(person.userId);
      for (const key of keysOf(person)) {
        if (tagsFor(key, person.userId).includes(payload.author)) found.add(person.userId);
        const receipt = "receipt" in payload ? payload.receipt : undefined;
        if (receipt === undefined) continue;
        const references = [
          ...managers.flatMap((m) => [managerReference(m), `id:${m.id}`]),
          ...(payload.kind === "new-manager" ? [newManagerReference(payload.manager)] : []),
        ];
        for (const reference of references) {
          const candidates = [
            createHmac("sha256", key).update(`manager-review\u0000${reference}`).digest("base64url"),
            createHmac("sha256", key)
              .update(`manager-review\u0000${person.userId}\u0000${reference}`)
              .digest("base64url"),
          ];
          if (candidates.includes(receipt)) found.add(person.userId);
        }
        for (const m of managers) {
          if (
            typeof key === "string" &&
            receipt === legacyManagerReviewReceipt({ userId: person.userId, secret: key }, m.id)
          ) {
            found.add(person.userId);
          }
        }
      }
    }
    named.set(id, found);
  }
  return named;
}

const withServerSecret = () => [testReceiptSecret];
const withAccountKey = (person: Author) => [Buffer.from(person.accountKey, "base64url")];

describeEachEngine("a copy of the server while reviews wait", (database) => {
  /** Waiting rows of every kind, and held ones: a manager's group short of 3, and a new manager's first review. */
  async function queueEveryKind(db: Kysely<Database>) {
    const acme = await insertCompany(db, { name: "Acme" });
    const jane = await insertManager(db, { first_name: "Jane", last_name: "Doe" }, [acme]);
    const [alice, bob, carol, dave] = people as [Author, Author, Author, Author];
    await recordCompanyReview(db, alice, acme, companyReview(), settings);
    await recordCompanyReview(db, bob, acme, companyReview(), settings);
    await addCompany(db, carol, company({ name: "Globex", website: "globex.example.com" }), companyReview(), settings);
    await recordManagerReview(db, alice, jane, managerReview(), settings);
    await addManager(db, dave, { company: { id: acme }, manager: manager(), review: managerReview() }, settings);
    // The batch publishes the company reviews and the new manager; jane's 1 review and the new manager's first wait.
    expect(await publishQueued(db, publisher, { settings })).toMatchObject({ published: 3, held: 2 });
    await recordManagerReview(db, bob, jane, managerReview(), settings);
    await recordCompanyReview(db, dave, acme, companyReview(), settings);
    const created = await db.selectFrom("managers").select("id").where("id", "!=", jane).executeTakeFirstOrThrow();
    await recordManagerReview(db, carol, created.id, managerReview(), settings);
    // A new manager waiting for its first batch.
    const max = manager({ first_name: "Max", last_name: "Mustermann", linkedin_url: "linkedin.com/in/max" });
    await addManager(db, bob, { company: { id: acme }, manager: max, review: managerReview() }, settings);
    return { acme, jane };
  }

  it("opens every waiting and held row with the key on disk and the server secret, and names no author", async () => {
    const { db } = database();
    await queueEveryKind(db);
    const opened = await openQueue(db);
    expect(opened).toHaveLength(6);
    expect(opened.filter((row) => row.payload.kind === "manager-review")).toHaveLength(4);
    expect(opened.filter((row) => row.payload.kind === "new-manager")).toHaveLength(1);

    const bySecret = await nameAuthors(db, opened, withServerSecret);
    // Proved live: with the account id put back into a new manager's row (as before), this finds 1 and fails.
    expect([...bySecret.values()].map((set) => set.size)).toEqual([0, 0, 0, 0, 0, 0]);

    // The same search with the accounts' own keys names every row: it is live, and only the account key makes them.
    const byAccountKey = await nameAuthors(db, opened, withAccountKey);
    expect([...byAccountKey.values()].map((set) => set.size)).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it("names a row planted with the old payload (account id and tag under the server secret): the check is live", async () => {
    const { db } = database();
    const acme = await insertCompany(db, { name: "Acme" });
    const planted: QueuedReview = {
      kind: "new-manager",
      author: createHmac("sha256", testReceiptSecret)
        .update(`queue-author\u0000${people[0]!.userId}`)
        .digest("base64url"),
      userId: people[0]!.userId,
      company: { id: acme },
      manager: manager(),
      review: managerReview(),
    };
    await enqueueReview(db, settings, planted, async () => {});
    const named = await nameAuthors(db, await openQueue(db), withServerSecret);
    expect([...named.values()].map((set) => [...set])).toEqual([[people[0]!.userId]]);
  });

  it("keeps no pending receipt that the server secret recomputes for an account, and still refuses a second review", async () => {
    const { db } = database();
    const { jane } = await queueEveryKind(db);
    const pending = new Set((await db.selectFrom("pending_receipts").select("key").execute()).map((row) => row.key));
    expect(pending.size).toBe(5);
    const queueId = await databaseId(db);
    const keyIds = (await db.selectFrom("queue_state").select("key_id").execute()).map((row) => row.key_id!);
    const managers = await db.selectFrom("managers").select(["id", "receipt_ref"]).execute();
    let matched = 0;
    let matchedWithAccountKeys = 0;
    for (const keyId of keyIds) {
      const queueKey = readQueueKey(keyDir, queueId, keyId);
      const keyed = (receipt: string) =>
        createHmac("sha256", queueKey.key).update(`pending-receipt\u0000${receipt}`).digest("base64url");
      for (const person of people) {
        for (const m of managers) {
          if (pending.has(keyed(legacyManagerReviewReceipt(person, m.id)))) matched += 1;
          if (pending.has(keyed(managerReviewReceipt(person, managerReference(m))))) matchedWithAccountKeys += 1;
        }
      }
    }
    expect(matched).toBe(0);
    // Alice and Bob wait for Jane, Dave and Carol for the new manager: 4 of 5 with the account keys (Max has no
    // row yet; his pending receipt is keyed on the person as added).
    expect(matchedWithAccountKeys).toBe(4);
    await expect(recordManagerReview(db, people[1]!, jane, managerReview(), settings)).rejects.toMatchObject({
      kind: "already-reviewed",
    });
  });

  it("counts accounts by month, never more than there are", () => {
    const [alice, bob] = people as [Author, Author];
    const january = new Date("2027-01-31T23:59:00Z");
    const february = new Date("2027-02-01T00:01:00Z");
    // One account in two months could be two: the count stays 1 (the largest month), not 2.
    expect(countAuthors([authorTag(alice.accountKey, january), authorTag(alice.accountKey, february)])).toBe(1);
    expect(countAuthors([authorTag(alice.accountKey, january), authorTag(bob.accountKey, january)])).toBe(2);
    expect(countAuthors([authorTag(alice.accountKey, january), authorTag(alice.accountKey, january)])).toBe(1);
    expect(countAuthors([authorTag(alice.accountKey, january), "token.abc", "token.def"])).toBe(3);
    expect(authorTag(alice.accountKey, january)).not.toBe(authorTag(alice.accountKey, february));
  });
});
