import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { openDatabase } from "#app/db/connection.server.ts";
import {
  legacyManagerReviewReceipt,
  managerReference,
  managerReviewReceipt,
} from "#app/domain/contributions.server.ts";
import { authorTag, type QueuedReview } from "#app/domain/publication.server.ts";
import { readQueueKey, unseal } from "#app/lib/queue-keys.server.ts";
import { paths } from "#app/lib/paths.ts";
import { managerReviewJson } from "../support/payloads.ts";
import {
  companyDraft,
  companyEntries,
  companyReviewEntries,
  managerDraft,
  managerEntries,
  managerReviewEntries,
  postEntries,
} from "./support/contribute.ts";
import { readDemoFacts } from "./support/demo-facts.ts";
import { newClientIp, newEmail, Visitor } from "./support/http.ts";
import { type Engine, startServer } from "../support/server.ts";

// A copy of the server taken while reviews wait, on both engines
// (docs/decisions/0046-reviews-wait-under-a-key-only-the-author-holds.md): the database, the queue's key directory
// and AUTH_SECRET. Four accounts send reviews by form and by API; a publication holds some back (a manager's group
// short of 3, a new manager's first review); more wait after it. Every waiting and held row is opened with the key
// on disk, and each account is looked for in it: its id or e-mail in the clear, its author tag and receipt under the
// server secret (the old scheme), and its pending receipt. None is found. Proved live: the same search given each
// account's own key (which only its client holds) names the author of every row; and a build that put the account id
// back into a new manager's row failed here on both engines ("rows named with the server secret": 1).

const review = { ratings: 4, answer: "Yes" as const, tags: ["Fair Pay"], text: "Steady work and honest leads." };
const managerTags = { ...review, tags: ["Supportive"] };
const password = "a long and private passphrase";

for (const engine of ["sqlite", "postgres"] as Engine[]) {
  describe(`a copy of the server while reviews wait (${engine})`, async () => {
    const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-seizure-e2e-"));
    const secret = randomBytes(32).toString("hex");
    const settings = { PUBLISH_INTERVAL: "1800", MANAGER_MIN_REVIEWS: "3", PUBLISH_MIN_AUTHORS: "3" };
    const server = await startServer(engine, {
      env: {
        DEMO_DATA: "always",
        TRUSTED_PROXIES: "127.0.0.1",
        QUEUE_KEY_DIR: keyDir,
        AUTH_SECRET: secret,
        ...settings,
      },
    });
    const store = openDatabase(server.databaseUrl, { poolSize: 1 });
    after(async () => {
      await store.close();
      assert.equal(await server.stop(), 0, `the server did not shut down cleanly:\n${server.output()}`);
      fs.rmSync(keyDir, { recursive: true, force: true });
    });

    function publish(): string {
      return execFileSync(process.execPath, ["scripts/publish.ts"], {
        cwd: path.resolve(import.meta.dirname, "../.."),
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: server.databaseUrl,
          QUEUE_KEY_DIR: keyDir,
          AUTH_SECRET: secret,
          ...settings,
        },
        encoding: "utf8",
      }).trim();
    }

    type Member = { email: string; visitor: Visitor; userId: string; accountKey: string };
    async function member(): Promise<Member> {
      const email = newEmail("seized");
      const visitor = new Visitor(server.baseURL, newClientIp());
      await visitor.signUp(email, password);
      const accountKey = visitor.cookies.get("candor.vote_key");
      assert.ok(accountKey, "signing up gives the browser its account key");
      const user = await store.db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow();
      return { email, visitor, userId: user.id, accountKey };
    }

    const sent = async (response: Response) => assert.equal(response.status, 302, await response.text());

    it("opens every waiting and held row with the key directory and AUTH_SECRET, and names no author", async () => {
      const facts = await readDemoFacts(server.databaseUrl);
      const people = [await member(), await member(), await member(), await member()];
      const [ann, ben, cai, dee] = people as [Member, Member, Member, Member];
      const companyId = facts.manager.companyId;

      // Before the batch: company reviews and a new company by form, a manager review by form and one by API, and a
      // new manager with its first review.
      for (const person of [ann, ben, cai]) {
        await sent(await postEntries(person.visitor, paths.reviewCompany(companyId), companyReviewEntries(review)));
      }
      await sent(
        await postEntries(dee.visitor, paths.addCompany(), [
          ...companyEntries(companyDraft("Seized")),
          ...companyReviewEntries(review),
        ]),
      );
      await sent(
        await postEntries(ann.visitor, paths.reviewManager(facts.manager.id), managerReviewEntries(managerTags)),
      );
      await sent(
        await postEntries(ben.visitor, paths.addManager(companyId), [
          ...managerEntries(managerDraft("Sasha")),
          ...managerReviewEntries(managerTags),
        ]),
      );
      const grant = await fetch(new URL("/api/v1/auth/token", server.baseURL), {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": newClientIp() },
        body: JSON.stringify({ grant_type: "password", email: cai.email, password }),
      });
      const pair = (await grant.json()) as { access_token: string; vote_key: string };
      assert.equal(pair.vote_key, cai.accountKey, "the API client gets the same account key as the browser");
      const viaApi = (headers: Record<string, string>) =>
        fetch(new URL(`/api/v1/managers/${facts.manager.id}/reviews`, server.baseURL), {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            "X-Forwarded-For": newClientIp(),
            authorization: `Bearer ${pair.access_token}`,
            ...headers,
          },
          body: JSON.stringify(managerReviewJson({ tags: ["Supportive"], review_text: review.text })),
        });
      const keyless = await viaApi({});
      assert.equal(keyless.status, 401);
      assert.equal(((await keyless.json()) as { code: string }).code, "account-key-required");
      const othersKey = await viaApi({ "Candor-Account-Key": ann.accountKey });
      assert.equal(othersKey.status, 401, "another account's key is no key");
      assert.equal((await viaApi({ "Candor-Account-Key": cai.accountKey })).status, 202);

      assert.match(publish(), /^Published 4 reviews; 3 held\.$/);

      // After it: more wait.
      await sent(
        await postEntries(dee.visitor, paths.reviewManager(facts.manager.id), managerReviewEntries(managerTags)),
      );
      await sent(await postEntries(ann.visitor, paths.reviewCompany(companyId), companyReviewEntries(review)));
      await sent(
        await postEntries(cai.visitor, paths.addManager(companyId), [
          ...managerEntries(managerDraft("Noor")),
          ...managerReviewEntries(managerTags),
        ]),
      );

      // The seizure: every row, opened with the key file it names; every account's id, e-mail, and what the server
      // secret makes of it; every manager's id and reference.
      const state = await store.db.selectFrom("queue_state").select("queue_id").executeTakeFirstOrThrow();
      const rows = await store.db.selectFrom("pending_reviews").selectAll().execute();
      const opened = rows.map(
        (row) => unseal(readQueueKey(keyDir, state.queue_id, row.key_id), row.id, row.sealed) as QueuedReview,
      );
      assert.equal(
        opened.length,
        6,
        "3 held (Ann's and Cai's reviews of the manager, Ben's new manager's first) and 3 new",
      );
      const users = await store.db.selectFrom("users").select(["id", "email"]).execute();
      assert.ok(users.length >= 4);
      const managers = await store.db.selectFrom("managers").select(["id", "receipt_ref"]).execute();
      const pending = new Set(
        (await store.db.selectFrom("pending_receipts").select("key").execute()).map((r) => r.key),
      );
      const keyIds = [...new Set(rows.map((row) => row.key_id))];
      const pendingKey = (receipt: string) =>
        keyIds.map((keyId) =>
          createHmac("sha256", readQueueKey(keyDir, state.queue_id, keyId).key)
            .update(`pending-receipt\u0000${receipt}`)
            .digest("base64url"),
        );

      const namedBySecret = new Set<number>();
      opened.forEach((payload, index) => {
        const text = JSON.stringify(payload);
        for (const user of users) {
          const tag = createHmac("sha256", secret).update(`queue-author\u0000${user.id}`).digest("base64url");
          if (text.includes(user.id) || text.includes(user.email) || payload.author === tag) namedBySecret.add(index);
          for (const m of managers) {
            const old = legacyManagerReviewReceipt({ userId: user.id, secret }, m.id);
            if ("receipt" in payload && payload.receipt === old) namedBySecret.add(index);
          }
        }
      });
      let pendingNamedBySecret = 0;
      for (const user of users) {
        for (const m of managers) {
          const old = legacyManagerReviewReceipt({ userId: user.id, secret }, m.id);
          if (pendingKey(old).some((key) => pending.has(key))) pendingNamedBySecret += 1;
        }
      }
      assert.equal(namedBySecret.size, 0, "rows named with the server secret");
      assert.equal(pendingNamedBySecret, 0, "pending receipts named with the server secret");

      // The same search with each account's own key: every row is named, each by its one author (the search is live).
      const namedByAccountKey = opened.map((payload) =>
        people
          .filter((person) => {
            if (payload.author === authorTag(person.accountKey)) return true;
            const receipt = "receipt" in payload ? payload.receipt : undefined;
            return managers.some((m) => receipt === managerReviewReceipt(person, managerReference(m)));
          })
          .map((person) => person.email),
      );
      assert.deepEqual(
        namedByAccountKey.map((names) => names.length),
        [1, 1, 1, 1, 1, 1],
      );
      let pendingNamedByAccountKey = 0;
      for (const person of people) {
        for (const m of managers) {
          if (pendingKey(managerReviewReceipt(person, managerReference(m))).some((key) => pending.has(key))) {
            pendingNamedByAccountKey += 1;
          }
        }
      }
      // Ann, Cai and Dee wait for the demo manager, Ben for his new manager (Noor has no row yet).
      assert.equal(pendingNamedByAccountKey, 4);
      console.info(
        `${engine}: ${opened.length} waiting or held rows and ${pending.size} pending receipts opened; named with AUTH_SECRET: ` +
          `${namedBySecret.size} rows, ${pendingNamedBySecret} receipts; with the account keys: ` +
          `${namedByAccountKey.filter((n) => n.length > 0).length} rows, ${pendingNamedByAccountKey} receipts`,
      );
    });
  });
}
