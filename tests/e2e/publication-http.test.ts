import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { sql } from "kysely";
import { openDatabase } from "#app/db/connection.server.ts";
import { publicationNote, toastTexts } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import {
  companyDraft,
  companyEntries,
  companyReviewEntries,
  managerReviewEntries,
  postEntries,
} from "./support/contribute.ts";
import { readDemoFacts } from "./support/demo-facts.ts";
import { newClientIp, newEmail, Visitor } from "./support/http.ts";
import { startServer } from "../support/server.ts";

// Reviews in batched mode, the default: what an author sees after submitting (the spec's toast and redirect, and the
// note of when the review will appear), and that nothing public changes, not even the page cache, until a batch is
// published (`npm run reviews:publish`).
const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-e2e-keys-"));
const secret = randomBytes(32).toString("hex");
const settings = { PUBLISH_INTERVAL: "1800", MANAGER_MIN_REVIEWS: "3", PUBLISH_MIN_AUTHORS: "3" };
const server = await startServer("sqlite", {
  env: { DEMO_DATA: "always", TRUSTED_PROXIES: "127.0.0.1", QUEUE_KEY_DIR: keyDir, AUTH_SECRET: secret, ...settings },
});
const facts = await readDemoFacts(server.databaseUrl);
const store = openDatabase(server.databaseUrl, { poolSize: 1 });
const noteOf = (kind: Parameters<typeof publicationNote>[0]) =>
  publicationNote(kind, { intervalSeconds: 1800, managerMinReviews: 3 });
const review = {
  ratings: 4,
  answer: "Yes" as const,
  tags: ["Fair Pay"],
  text: "Steady work and honest leads, all in all.",
};

after(async () => {
  await store.close();
  assert.equal(await server.stop(), 0, `the server did not shut down cleanly on SIGTERM:\n${server.output()}`);
  assert.doesNotMatch(server.output(), /"level":(50|60)/, "the server logged errors");
  fs.rmSync(keyDir, { recursive: true, force: true });
});

const password = "a long and private passphrase";

async function member(email = newEmail("batched")): Promise<Visitor> {
  const visitor = new Visitor(server.baseURL, newClientIp());
  await visitor.signUp(email, password);
  // The page after signing up shows (and spends) the sign-in toast, as a browser would.
  await (await visitor.get(paths.home())).text();
  return visitor;
}

/** Follows a form's redirect: where it led, and the page there (with its toast and note). */
async function landing(visitor: Visitor, response: Response): Promise<{ location: string; html: string }> {
  assert.equal(response.status, 302, await response.text());
  const location = response.headers.get("location") ?? "";
  const page = await visitor.get(location);
  assert.equal(page.status, 200);
  const html = await page.text();
  return { location, html };
}

async function companyReviewCount(id: number): Promise<number> {
  const row = await store.db.selectFrom("companies").select("review_count").where("id", "=", id).executeTakeFirst();
  return row?.review_count ?? -1;
}

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

describe("submitting while reviews are published in batches", () => {
  it("keeps the spec's toast and redirect, adds the note of when the review appears, and changes nothing public until published", async () => {
    const companyId = facts.manager.companyId;
    const count = await companyReviewCount(companyId);
    const reader = new Visitor(server.baseURL, newClientIp());
    const before = await (await reader.get(paths.company(companyId))).text();
    assert.ok(!before.includes(review.text), "the review's text is not on the page yet");
    assert.equal((await reader.get(paths.company(companyId))).headers.get("x-cache"), "hit");

    const authors = [await member(), await member(), await member()];
    for (const author of authors) {
      const sent = await postEntries(author, paths.reviewCompany(companyId), companyReviewEntries(review));
      const { location, html } = await landing(author, sent);
      assert.equal(location, paths.company(companyId));
      assert.ok(html.includes(toastTexts["company-reviewed"]), "the spec's toast");
      assert.ok(html.includes(noteOf("review")), "the note of when the review appears");
    }
    // Nothing public moved: not the count, and not the cached page, which a write would have made stale.
    assert.equal(await companyReviewCount(companyId), count);
    assert.equal((await reader.get(paths.company(companyId))).headers.get("x-cache"), "hit");

    const added = await postEntries(authors[0]!, paths.addCompany(), [
      ...companyEntries(companyDraft("Batched")),
      ...companyReviewEntries(review),
    ]);
    const addedPage = await landing(authors[0]!, added);
    assert.equal(addedPage.location, paths.search());
    assert.ok(addedPage.html.includes(toastTexts["company-added"]));
    assert.ok(addedPage.html.includes(noteOf("company")));

    const managerSent = await postEntries(
      authors[1]!,
      paths.reviewManager(facts.manager.id),
      managerReviewEntries({ ...review, tags: ["Supportive"] }),
    );
    const managerPage = await landing(authors[1]!, managerSent);
    assert.equal(managerPage.location, paths.manager(facts.manager.id));
    assert.ok(managerPage.html.includes(toastTexts["manager-reviewed"]));
    assert.ok(managerPage.html.includes(noteOf("manager")));
    // The note shows once: the next page has none.
    assert.ok(!(await (await authors[1]!.get(paths.manager(facts.manager.id))).text()).includes(noteOf("manager")));

    // Three accounts: the company reviews and the new company are published; the lone manager review waits.
    assert.equal(publish(), "Published 4 reviews; 1 held.");
    assert.equal(await companyReviewCount(companyId), count + 3);
    // The server hears of the command's publication, made by another process (decision 0045): it lets the kept page
    // go and shows the new reviews. Proved live: without the server's look at the file (hearChangesWith removed),
    // this answer was the kept page, a "hit" without the reviews.
    const after = await reader.get(paths.company(companyId));
    assert.notEqual(after.headers.get("x-cache"), "hit", "the page kept from before the publication was served");
    assert.ok((await after.text()).includes(review.text), "the published reviews are on the page");
  });
});

describe("deleting an account", () => {
  it("leaves no copy of its e-mail, id or password hash in the SQLite file or its WAL", async () => {
    const email = newEmail("leaving");
    const person = await member(email);
    const { rows } = await sql<{ id: string; password: string }>`select users.id, accounts.password from users
      join accounts on accounts.userId = users.id where users.email = ${email}`.execute(store.db);
    const [account] = rows;
    assert.ok(account?.password, "the account and its password hash are stored");
    const secrets = [email, account.id, account.password];
    const files = [server.databaseUrl, `${server.databaseUrl}-wal`];
    const raw = () => Buffer.concat(files.filter((file) => fs.existsSync(file)).map((file) => fs.readFileSync(file)));
    assert.ok(
      secrets.every((secret) => raw().includes(secret)),
      "the raw files hold the account before deletion",
    );

    const deleted = await person.post(paths.account(), { intent: "delete-account", password, confirm: "yes" });
    assert.equal(deleted.status, 302, await deleted.text());

    const bytes = raw();
    for (const secret of secrets) assert.ok(!bytes.includes(secret), `${secret.slice(0, 12)}… is still in the files`);
  });
});
