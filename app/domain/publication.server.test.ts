import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, expect, it } from "vitest";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { countRows, insertCompany, insertManager } from "#tests/support/test-fixtures.ts";
import { today } from "#app/lib/ids.server.ts";
import { fieldLengths, maxTagsPerReview, reviewTextLength } from "#app/lib/limits.ts";
import { managerTags } from "#app/lib/tags.ts";
import { QueueKeyMissingError, QueueSharedError, sealedBytes } from "#app/lib/queue-keys.server.ts";
import {
  addCompany,
  addManager,
  contributionPublisher,
  hasReviewedManager,
  recordCompanyReview,
  recordManagerReview,
} from "./contributions.server.ts";
import {
  forgetUnreadableQueue,
  newQueueIdentity,
  prepareQueueKeys,
  type PublicationSettings,
  type Publisher,
  publishQueued,
  queuedCount,
} from "./publication.server.ts";
import {
  author,
  company,
  companyReview,
  expectRefusal,
  manager,
  managerReview,
  testReceiptSecret,
} from "#tests/support/test-contributions.ts";

let keyDir: string;
let settings: PublicationSettings;
beforeEach(() => {
  keyDir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-queue-keys-"));
  settings = { intervalSeconds: 1800, managerMinReviews: 3, minAuthors: 3, keyDir };
});
afterEach(() => fs.rmSync(keyDir, { recursive: true, force: true }));

const publisher = contributionPublisher(testReceiptSecret);
const people = ["alice", "bob", "carol", "dave", "erin"].map((name) => author(`user-${name}`));
/** A queued submission: not published yet, and the author's one-time review key (22 base64url characters). */
const queuedWithKey = { published: false, reviewKey: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) };
/** The key files in `dir` (beside them, each queue's owner file: claimQueue). */
const keysIn = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((name) => name.endsWith(".key"))
    .sort();
const keyFiles = () => keysIn(keyDir);

describeEachEngine("the publication queue", (database, engine) => {
  it("keeps queued reviews invisible until a batch publishes them", async () => {
    const { db } = database();
    const acme = await insertCompany(db, { name: "Acme" });
    for (const person of people.slice(0, 3)) {
      expect(await recordCompanyReview(db, person, acme, companyReview(), settings)).toEqual(queuedWithKey);
    }
    expect(await addCompany(db, people[3]!, company({ name: "Globex" }), companyReview(), settings)).toEqual(
      queuedWithKey,
    );

    expect(await countRows(db, "company_reviews")).toBe(0);
    expect(await countRows(db, "companies")).toBe(1);
    const stored = await db.selectFrom("companies").select("review_count").where("id", "=", acme).executeTakeFirst();
    expect(stored?.review_count).toBe(0);
    expect(await queuedCount(db)).toBe(4);

    const result = await publishQueued(db, publisher, { settings });
    expect(result).toMatchObject({ published: 4, held: 0 });
    expect(await countRows(db, "company_reviews")).toBe(4);
    expect(await countRows(db, "companies")).toBe(2);
    expect(await queuedCount(db)).toBe(0);
  });

  it("dates a batch with the publication day and writes reviews and receipts in shuffled order", async () => {
    const { db } = database();
    const managerId = await insertManager(db, { first_name: "Jane", last_name: "Doe" });
    const many = Array.from({ length: 10 }, (_, index) => author(`user-${index}`));
    for (const person of many) await recordManagerReview(db, person, managerId, managerReview(), settings);
    const writes: string[] = [];
    const recording: Publisher = {
      ...publisher,
      insertManagerReview: async (...args) => {
        writes.push("review");
        await publisher.insertManagerReview(...args);
      },
      insertReceipt: async (...args) => {
        writes.push("receipt");
        await publisher.insertReceipt(...args);
      },
    };

    await publishQueued(db, recording, { settings });

    const reviews = await db.selectFrom("manager_reviews").select("created_on").execute();
    expect(reviews.map((review) => review.created_on)).toEqual(Array(10).fill(today()));
    expect(writes.filter((write) => write === "receipt")).toHaveLength(10);
    // Unshuffled, every review would sit right before or after its receipt: strictly alternating. A shuffle of 20
    // writes alternates once in about 92,000 runs.
    const alternating = writes.every((write, index) => index === 0 || write !== writes[index - 1]);
    expect(alternating).toBe(false);
  });

  it("publishes a manager's reviews only in groups of MANAGER_MIN_REVIEWS, re-sealing held ones under a new key", async () => {
    const { db } = database();
    const companyId = await insertCompany(db, { name: "Acme" });
    const jane = await insertManager(db, { first_name: "Jane", last_name: "Doe" }, [companyId]);
    // Three authors write about the company, so the batch rule is met and only the group rule holds Jane's reviews.
    for (const person of people.slice(2, 5))
      await recordCompanyReview(db, person, companyId, companyReview(), settings);
    await recordManagerReview(db, people[0]!, jane, managerReview(), settings);
    await recordManagerReview(db, people[1]!, jane, managerReview(), settings);
    const before = await db.selectFrom("pending_reviews").selectAll().execute();
    const receiptsBefore = await db.selectFrom("pending_receipts").selectAll().execute();
    const keysBefore = keyFiles();

    expect(await publishQueued(db, publisher, { settings })).toMatchObject({ published: 3, held: 2 });
    expect(await countRows(db, "manager_reviews")).toBe(0);
    expect(await countRows(db, "review_receipts")).toBe(0);
    const after = await db.selectFrom("pending_reviews").selectAll().execute();
    const receiptsAfter = await db.selectFrom("pending_receipts").selectAll().execute();
    expect(after).toHaveLength(2);
    expect(receiptsAfter).toHaveLength(2);
    const beforeIds = new Set(before.map((row) => row.id));
    for (const row of after) expect(beforeIds.has(row.id)).toBe(false);
    expect(new Set(after.map((row) => row.key_id)).size).toBe(1);
    expect(before.map((row) => row.key_id)).not.toContain(after[0]!.key_id);
    expect(receiptsAfter.map((row) => row.key).sort()).not.toEqual(receiptsBefore.map((row) => row.key).sort());
    // The old key file is gone; only the new one, which the held rows name, is left.
    expect(keysBefore).toHaveLength(1);
    expect(keyFiles()).toEqual([expect.stringContaining(`.${after[0]!.key_id}.key`)]);
    // Held, the account's review still counts: a second one is refused.
    expect(await hasReviewedManager(db, people[0]!, jane, settings)).toBe(true);

    await recordManagerReview(db, people[2]!, jane, managerReview(), settings);
    expect(await publishQueued(db, publisher, { settings })).toMatchObject({ published: 3, held: 0 });
    expect(await countRows(db, "manager_reviews")).toBe(3);
    expect(await countRows(db, "review_receipts")).toBe(3);
    expect(await countRows(db, "pending_receipts")).toBe(0);
  });

  it("holds a batch whose reviews come from fewer than PUBLISH_MIN_AUTHORS accounts", async () => {
    const { db } = database();
    const acme = await insertCompany(db, { name: "Acme" });
    await recordCompanyReview(db, people[0]!, acme, companyReview(), settings);
    await recordCompanyReview(db, people[0]!, acme, companyReview(), settings);
    await recordCompanyReview(db, people[1]!, acme, companyReview(), settings);

    expect(await publishQueued(db, publisher, { settings })).toMatchObject({ published: 0, held: 3 });
    expect(await countRows(db, "company_reviews")).toBe(0);

    await recordCompanyReview(db, people[2]!, acme, companyReview(), settings);
    expect(await publishQueued(db, publisher, { settings })).toMatchObject({ published: 4, held: 0 });
    expect(await countRows(db, "company_reviews")).toBe(4);
  });

  it("publishes a new manager with the next batch and holds its first review for the manager's group", async () => {
    const { db } = database();
    const companyId = await insertCompany(db, { name: "Acme" });
    for (const person of people.slice(2, 4))
      await recordCompanyReview(db, person, companyId, companyReview(), settings);
    await addManager(
      db,
      people[0]!,
      { company: { id: companyId }, manager: manager(), review: managerReview() },
      settings,
    );

    expect(await publishQueued(db, publisher, { settings })).toMatchObject({ published: 2, held: 1 });
    const jane = await db.selectFrom("managers").select(["id", "review_count"]).executeTakeFirstOrThrow();
    expect(jane.review_count).toBe(0);
    expect(await hasReviewedManager(db, people[0]!, jane.id, settings)).toBe(true);
    await expectRefusal(recordManagerReview(db, people[0]!, jane.id, managerReview(), settings), "already-reviewed");

    await recordManagerReview(db, people[1]!, jane.id, managerReview(), settings);
    await recordManagerReview(db, people[2]!, jane.id, managerReview(), settings);
    expect(await publishQueued(db, publisher, { settings })).toMatchObject({ published: 3, held: 0 });
    expect(await countRows(db, "manager_reviews")).toBe(3);
  });

  it("attaches the review of a second queued addition of one company to the first", async () => {
    const { db } = database();
    const lenient = { ...settings, minAuthors: 1 };
    await addCompany(db, people[0]!, company({ name: "Initech" }), companyReview(), lenient);
    await addCompany(db, people[1]!, company({ name: "INITECH" }), companyReview(), lenient);

    expect(await publishQueued(db, publisher, { settings: lenient })).toMatchObject({ published: 2, held: 0 });
    const companies = await db.selectFrom("companies").select(["id", "review_count"]).execute();
    expect(companies).toEqual([{ id: companies[0]!.id, review_count: 2 }]);
  });

  it("refuses a second review of a manager by one account while the first is queued", async () => {
    const { db } = database();
    const jane = await insertManager(db, { first_name: "Jane", last_name: "Doe" });
    await recordManagerReview(db, people[0]!, jane, managerReview(), settings);

    await expectRefusal(recordManagerReview(db, people[0]!, jane, managerReview(), settings), "already-reviewed");
    expect(await queuedCount(db)).toBe(1);
    expect(await hasReviewedManager(db, people[0]!, jane, settings)).toBe(true);
    expect(await hasReviewedManager(db, people[1]!, jane, settings)).toBe(false);
  });

  it("seals every queued review into a row of one size, whatever it holds", async () => {
    const { db } = database();
    const acme = await insertCompany(db, { name: "Acme" });
    const jane = await insertManager(db, { first_name: "Jane", last_name: "Doe" });
    await recordCompanyReview(db, people[0]!, acme, companyReview({ review_text: "Short." }), settings);
    await recordCompanyReview(db, people[1]!, acme, companyReview({ review_text: "€".repeat(4999) + "." }), settings);
    await recordManagerReview(db, people[2]!, jane, managerReview(), settings);
    await addManager(
      db,
      people[3]!,
      {
        company: { company: company({ name: "G".repeat(200), website: `example.com/${"a".repeat(480)}` }) },
        manager: manager(),
        review: managerReview(),
      },
      settings,
    );
    // The largest legitimate submission: a new manager of a new company, every field at its longest in characters of
    // three UTF-8 bytes (the most a UTF-16 unit takes in JSON), web addresses of them (percent-encoded, nine bytes).
    const wide = (length: number) => "語".repeat(length);
    const address = (host: string, length: number) => `${host}/${wide(length - host.length - 1)}`;
    await addManager(
      db,
      people[4]!,
      {
        company: {
          company: company({
            name: wide(fieldLengths.name),
            state: wide(fieldLengths.state),
            city: wide(fieldLengths.city),
            website: address("example.com", fieldLengths.website),
            glassdoor_url: address("reviews.example.com", fieldLengths.glassdoor_url),
          }),
        },
        manager: manager({
          first_name: wide(fieldLengths.first_name),
          last_name: wide(fieldLengths.last_name),
          title: wide(fieldLengths.title),
          city: wide(fieldLengths.city),
          state: wide(fieldLengths.state),
          department: wide(fieldLengths.department),
          linkedin_url: address("linkedin.com/in", fieldLengths.linkedin_url),
        }),
        review: managerReview({
          review_text: wide(reviewTextLength.max),
          tags: [...managerTags].sort((a, b) => b.length - a.length).slice(0, maxTagsPerReview),
        }),
      },
      settings,
    );

    const rows = await db.selectFrom("pending_reviews").selectAll().execute();
    expect(rows).toHaveLength(5);
    for (const row of rows) expect(Buffer.from(row.sealed).length).toBe(sealedBytes);
    const columns =
      engine === "sqlite"
        ? (await sql<{ name: string }>`select name from pragma_table_info('pending_reviews')`.execute(db)).rows
        : (
            await sql<{ name: string }>`select column_name as name from information_schema.columns
              where table_schema = current_schema() and table_name = 'pending_reviews'`.execute(db)
          ).rows;
    expect(columns.map((column) => column.name).sort()).toEqual(["id", "key_id", "sealed", "set_aside", "slot"]);
  });

  it("keeps queued rows in the order of their random slots, not in the order they came", async () => {
    const { db } = database();
    const acme = await insertCompany(db, { name: "Acme" });
    const queued: string[] = [];
    for (let i = 0; i < 12; i++) {
      await recordCompanyReview(db, people[i % 5]!, acme, companyReview(), settings);
      const ids = await db.selectFrom("pending_reviews").select("id").execute();
      queued.push(ids.map((row) => row.id).find((id) => !queued.includes(id))!);
    }
    const slots = await db.selectFrom("pending_reviews").select(["id", "slot"]).orderBy("slot").execute();
    expect(new Set(slots.map((row) => row.slot)).size).toBe(12);
    for (const { slot } of slots) expect(Number.isSafeInteger(slot) && slot >= 0).toBe(true);
    // 12 rows in the order they came (or its reverse) once in about 2 × 10^8 runs.
    const bySlot = slots.map((row) => row.id);
    expect(bySlot).not.toEqual(queued);
    expect(bySlot).not.toEqual([...queued].reverse());
    if (engine === "sqlite") {
      // The slot is the table's key (its rowid): a plain scan, the order on disk, follows the slots.
      const scanned = await sql<{ id: string; place: number; slot: number }>`
        select id, rowid as place, slot from pending_reviews not indexed`.execute(db);
      expect(scanned.rows.map((row) => row.id)).toEqual(bySlot);
      for (const row of scanned.rows) expect(row.place).toBe(row.slot);
    }
  });

  it("loses no queued review when the publishing process is killed (SIGKILL) at any moment", async () => {
    const { db, url } = database();
    const acme = await insertCompany(db, { name: "Acme" });
    const lenient = { ...settings, managerMinReviews: 1, minAuthors: 1 };
    let submitted = 0;
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 10; i++) {
        await recordCompanyReview(
          db,
          people[i % 5]!,
          acme,
          companyReview({ review_text: `Round ${round}, review ${i}.` }),
          settings,
        );
        submitted += 1;
      }
      // Killed somewhere between start-up and well after the commit: before, inside or after the transaction.
      const child = spawn(process.execPath, ["scripts/publish.ts"], {
        cwd: path.resolve(import.meta.dirname, "../.."),
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: url,
          QUEUE_KEY_DIR: keyDir,
          AUTH_SECRET: testReceiptSecret,
          MANAGER_MIN_REVIEWS: "1",
          PUBLISH_MIN_AUTHORS: "1",
        },
        stdio: "ignore",
      });
      // Listened for at once: a fast machine may finish the run before the kill comes.
      const exited = once(child, "exit");
      await new Promise((resolve) => setTimeout(resolve, 300 + round * 250));
      if (child.exitCode === null) child.kill("SIGKILL");
      await exited;
    }
    await publishQueued(db, publisher, { settings: lenient, wait: true });

    expect(await countRows(db, "company_reviews")).toBe(submitted);
    expect(await queuedCount(db)).toBe(0);
    const stored = await db.selectFrom("companies").select("review_count").where("id", "=", acme).executeTakeFirst();
    expect(stored?.review_count).toBe(submitted);
    const state = await db.selectFrom("queue_state").selectAll().executeTakeFirstOrThrow();
    expect(keyFiles()).toEqual([`${state.queue_id}.${state.key_id}.key`]);
  });

  it("refuses a process whose QUEUE_KEY_DIR lacks the key the database names, and lets one that shares it start", async () => {
    const { db } = database();
    // The first process to start makes the queue's first key, so every later one has a key to find.
    await prepareQueueKeys(db, settings);
    const state = await db.selectFrom("queue_state").selectAll().executeTakeFirstOrThrow();
    expect(keyFiles()).toEqual([`${state.queue_id}.${state.key_id}.key`]);
    await prepareQueueKeys(db, settings);
    expect(keyFiles()).toEqual([`${state.queue_id}.${state.key_id}.key`]);

    // Another machine with a directory of its own: it refuses to start, and to seal or publish.
    const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-other-keys-"));
    try {
      const other = { ...settings, keyDir: otherDir };
      const refusal = prepareQueueKeys(db, other);
      await expect(refusal).rejects.toBeInstanceOf(QueueKeyMissingError);
      await expect(refusal).rejects.toThrow(`is not in QUEUE_KEY_DIR (${path.resolve(otherDir)})`);
      await expect(
        recordCompanyReview(db, people[0]!, await insertCompany(db, { name: "Acme" }), companyReview(), other),
      ).rejects.toThrow(QueueKeyMissingError);
      await recordCompanyReview(
        db,
        people[1]!,
        await insertCompany(db, { name: "Initech" }),
        companyReview(),
        settings,
      );
      await expect(publishQueued(db, publisher, { settings: other, wait: true })).rejects.toThrow(QueueKeyMissingError);
      expect(keysIn(otherDir)).toEqual([]);
    } finally {
      fs.rmSync(otherDir, { recursive: true, force: true });
    }
    // Nothing was lost: the process with the shared directory publishes the queued review.
    expect(await queuedCount(db)).toBe(1);
    await publishQueued(db, publisher, { settings: { ...settings, minAuthors: 1 }, wait: true });
    expect(await countRows(db, "company_reviews")).toBe(1);
  });

  // A restored copy beside the live database: the copy is played here by the same database after its queue got a
  // new identity, the live one by the key files it leaves. Proved live: with newQueueIdentity keeping the queue id,
  // this test failed (on both engines).
  it("gives a restored copy a queue of its own, resealing what it can open and leaving the original keys alone", async () => {
    const { db } = database();
    await prepareQueueKeys(db, settings);
    await recordCompanyReview(db, people[0]!, await insertCompany(db, { name: "Acme" }), companyReview(), settings);
    const original = await db.selectFrom("queue_state").selectAll().executeTakeFirstOrThrow();
    const originalKey = `${original.queue_id}.${original.key_id}.key`;

    expect(await newQueueIdentity(db, settings)).toEqual({ kept: 1, dropped: 0 });
    const copy = await db.selectFrom("queue_state").selectAll().executeTakeFirstOrThrow();
    expect(copy.queue_id).not.toBe(original.queue_id);
    expect(await queuedCount(db)).toBe(1);
    await publishQueued(db, publisher, { settings: { ...settings, minAuthors: 1 }, wait: true });
    expect(await countRows(db, "company_reviews")).toBe(1);
    expect(keyFiles()).toContain(originalKey);

    // The original's queue id again (a copy made by hand, not restored): refused before it touches a key.
    await db
      .updateTable("queue_state")
      .set({ queue_id: original.queue_id, key_id: original.key_id })
      .where("id", "=", 1)
      .execute();
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "candor-owner-"));
    try {
      fs.copyFileSync(path.join(keyDir, originalKey), path.join(elsewhere, originalKey));
      fs.writeFileSync(path.join(elsewhere, `${original.queue_id}.owner`), "another database\n");
      await expect(prepareQueueKeys(db, { ...settings, keyDir: elsewhere })).rejects.toBeInstanceOf(QueueSharedError);
      expect(keysIn(elsewhere)).toEqual([originalKey]);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("after the key directory is lost, drops the queue nobody can open and lets processes start again", async () => {
    const { db } = database();
    await prepareQueueKeys(db, settings);
    await recordCompanyReview(db, people[0]!, await insertCompany(db, { name: "Acme" }), companyReview(), settings);
    const lost = fs.mkdtempSync(path.join(os.tmpdir(), "candor-lost-keys-"));
    try {
      const replacement = { ...settings, keyDir: lost };
      await expect(prepareQueueKeys(db, replacement)).rejects.toThrow(QueueKeyMissingError);
      expect(await forgetUnreadableQueue(db, replacement)).toBe(1);
      expect(await queuedCount(db)).toBe(0);
      expect(await countRows(db, "pending_receipts")).toBe(0);
      await prepareQueueKeys(db, replacement);
      const state = await db.selectFrom("queue_state").selectAll().executeTakeFirstOrThrow();
      expect(keysIn(lost)).toEqual([`${state.queue_id}.${state.key_id}.key`]);
      expect(await forgetUnreadableQueue(db, replacement)).toBe(0);
    } finally {
      fs.rmSync(lost, { recursive: true, force: true });
    }
  });

  if (engine === "sqlite") {
    it("runs SQLite with secure_delete on, so deleted rows are zeroed in the file", async () => {
      const { db } = database();
      const { rows } = await sql<{ secure_delete: number }>`pragma secure_delete`.execute(db);
      expect(rows[0]?.secure_delete).toBe(1);
    });
  }
});
