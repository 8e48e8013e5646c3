import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import fs from "node:fs";
import { after, describe, it } from "node:test";
import { summaryMessages, toastTexts, voteMessages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { closeVisit, launchBrowser, openVisit, waitForHydration } from "./support/browser.ts";
import { companyDraft, companyEntries, companyReviewEntries, postEntries } from "./support/contribute.ts";
import { alertText, newClientIp, newEmail, sameOrigin, Visitor } from "./support/http.ts";
import { type Engine, newSecret, readDatabase, startServer } from "../support/server.ts";

// Helpful votes on both engines (docs/decisions/0016-helpful-votes-with-a-key-only-the-account-holds.md): in
// Chromium with and without JavaScript (vote, a second vote refused, most helpful first, the way back after
// signing in), over the API with the vote key, and an attacker who holds the database, its files and AUTH_SECRET
// and the request log tries to tell who voted for which review.

const browser = await launchBrowser();
after(() => browser.close());

const password = "a long and private passphrase";
const texts = [
  "Clear goals, fair reviews and a team that helps each other out.",
  "Long meetings, but the leads listen and change course when asked.",
  "Pay is fair, the office is far, the people are kind and direct.",
];

/** A company with three published reviews (each by another account); answers its id and review ids by text. */
async function companyWithReviews(baseURL: string): Promise<{ id: number; reviews: string[] }> {
  const founder = new Visitor(baseURL, newClientIp());
  await founder.signUp(newEmail("founder"), password);
  const added = await postEntries(founder, paths.addCompany(), [
    ...companyEntries(companyDraft("Voted Co")),
    ...companyReviewEntries({ tags: ["Stable"], text: texts[0]! }),
  ]);
  await added.body?.cancel();
  assert.equal(added.status, 302);
  const id = Number(added.headers.get("location")?.split("/").at(-1));
  for (const text of texts.slice(1)) {
    const author = new Visitor(baseURL, newClientIp());
    await author.signUp(newEmail("author"), password);
    const response = await postEntries(
      author,
      paths.reviewCompany(id),
      companyReviewEntries({ tags: ["Stable"], text }),
    );
    await response.body?.cancel();
    assert.equal(response.status, 302, `review "${text}" answered ${response.status}`);
  }
  return { id, reviews: [] };
}

async function reviewIds(database: { engine: Engine; url: string }, companyId: number): Promise<string[]> {
  const rows = await readDatabase(
    database,
    `select id, review_text from company_reviews where company_id = ${companyId}`,
  );
  return texts.map((text) => String(rows.find((row) => row.review_text === text)?.id));
}

async function countOf(database: { engine: Engine; url: string }, review: string): Promise<number> {
  const [row] = await readDatabase(database, `select helpful_votes from company_reviews where id = '${review}'`);
  return Number(row?.helpful_votes);
}

for (const engine of ["sqlite", "postgres"] as Engine[]) {
  describe(`helpful votes (${engine})`, async () => {
    const secret = newSecret();
    const server = await startServer(engine, {
      env: { DEMO_DATA: "never", TRUSTED_PROXIES: "127.0.0.1", AUTH_SECRET: secret, LOG_LEVEL: "info" },
    });
    after(async () => {
      assert.equal(await server.stop(), 0, `the server did not shut down cleanly:\n${server.output()}`);
    });
    const database = { engine, url: server.databaseUrl };
    const company = await companyWithReviews(server.baseURL);
    company.reviews = await reviewIds(database, company.id);
    const [first, second, third] = company.reviews as [string, string, string];
    const companyPath = paths.company(company.id);
    /** Ground truth, for the attacker test: each voter's id, vote key and the reviews they voted for. */
    const voters: Array<{ email: string; voteKey: string; voted: string[] }> = [];

    it("signed out shows the count and Sign in to vote, which comes back to the page; signed in votes, once", async () => {
      const email = newEmail("reader");
      const visitor = new Visitor(server.baseURL, newClientIp());
      await visitor.signUp(email, password);
      const visit = await openVisit(browser, server.baseURL);
      try {
        const { page } = visit;
        await page.goto(companyPath);
        await waitForHydration(page);
        const card = page.locator(`#review-${second}`);
        await card.getByText(voteMessages.count(0), { exact: true }).waitFor();
        assert.equal(await card.getByRole("button", { name: voteMessages.vote }).count(), 0);
        await card.getByRole("link", { name: voteMessages.signInToVote }).click();
        await page.waitForURL((url) => url.pathname === paths.signIn().split("?")[0]);
        await page.getByLabel("Email").fill(email);
        await page.getByLabel("Password").fill(password);
        await page.getByRole("main").getByRole("button", { name: "Sign In" }).click();
        await page.waitForURL((url) => url.pathname === companyPath);

        await card.getByRole("button", { name: voteMessages.vote }).click();
        await card.getByText(voteMessages.count(1), { exact: true }).waitFor();
        await page.getByText(toastTexts.voted, { exact: true }).waitFor();
        await card.getByRole("button", { name: voteMessages.unvote }).waitFor();
        assert.equal(await countOf(database, second), 1);

        // The same form from a stale tab: refused, nothing counted twice.
        const cookies = (await visit.context.cookies()).map((cookie) => `${cookie.name}=${cookie.value}`).join("; ");
        const stale = await fetch(new URL(paths.helpful(), server.baseURL), {
          method: "POST",
          headers: { ...sameOrigin(server.baseURL), Cookie: cookies, "X-Forwarded-For": newClientIp() },
          body: new URLSearchParams({ review: second, vote: "add", returnTo: companyPath }),
          redirect: "manual",
        });
        assert.equal(stale.status, 409);
        assert.equal(alertText(await stale.text()), voteMessages.alreadyVoted);
        assert.equal(await countOf(database, second), 1);

        const voteKey = (await visit.context.cookies()).find((cookie) => cookie.name === "candor.vote_key")?.value;
        assert.match(voteKey ?? "", /^[A-Za-z0-9_-]{43}$/);
        voters.push({ email, voteKey: voteKey!, voted: [second] });
      } finally {
        assert.deepEqual(await closeVisit(visit), []);
      }
    });

    it("without JavaScript: votes by form, refuses a second vote, takes it back, and sorts by most helpful", async () => {
      const email = newEmail("no-js");
      const visitor = new Visitor(server.baseURL, newClientIp());
      await visitor.signUp(email, password);
      const visit = await openVisit(browser, server.baseURL, { javaScriptEnabled: false });
      try {
        const { page } = visit;
        await page.goto(paths.signIn(companyPath));
        await page.getByLabel("Email").fill(email);
        await page.getByLabel("Password").fill(password);
        await page.getByRole("main").getByRole("button", { name: "Sign In" }).click();
        await page.waitForURL((url) => url.pathname === companyPath);

        // A second tab, opened before the votes: its buttons still offer the vote.
        const staleTab = await visit.context.newPage();
        await staleTab.goto(companyPath);
        for (const review of [second, third]) {
          await page.locator(`#review-${review}`).getByRole("button", { name: voteMessages.vote }).click();
          await page.waitForURL((url) => url.hash === `#review-${review}`);
          await page.locator(`#review-${review}`).getByRole("button", { name: voteMessages.unvote }).waitFor();
        }
        assert.equal(await countOf(database, second), 2);
        assert.equal(await countOf(database, third), 1);

        // The same button in the stale tab: refused, with the way back.
        await staleTab.locator(`#review-${third}`).getByRole("button", { name: voteMessages.vote }).click();
        await staleTab.getByRole("alert").getByText(voteMessages.alreadyVoted, { exact: true }).waitFor();
        assert.equal(await countOf(database, third), 1);
        await staleTab.getByRole("link", { name: "Back to the reviews" }).click();
        await staleTab.waitForURL((url) => url.pathname === companyPath);
        await staleTab.close();

        // Most helpful first, by the page's GET form: 2 votes, 1 vote, then none.
        await page.getByText(summaryMessages.filterReviews, { exact: true }).click();
        await page.getByLabel(summaryMessages.sortBy).selectOption("helpful");
        await page.getByRole("button", { name: summaryMessages.showReviews }).click();
        await page.waitForURL((url) => url.searchParams.get("sort") === "helpful");
        const order = await page.locator(".review-list article").evaluateAll((cards) => cards.map((card) => card.id));
        assert.deepEqual(order, [`review-${second}`, `review-${third}`, `review-${first}`]);

        // Taking a vote back: the count goes down and the button offers the vote again.
        await page.locator(`#review-${third}`).getByRole("button", { name: voteMessages.unvote }).click();
        await page.locator(`#review-${third}`).getByRole("button", { name: voteMessages.vote }).waitFor();
        assert.equal(await countOf(database, third), 0);
        const voteKey = (await visit.context.cookies()).find((cookie) => cookie.name === "candor.vote_key")?.value;
        voters.push({ email, voteKey: voteKey!, voted: [second] });
        visit.problems.splice(0); // the refused vote answered 409 on purpose
      } finally {
        assert.deepEqual(await closeVisit(visit), []);
      }
    });

    it("over the API: the password grant answers the vote key; a vote needs it, counts once, and the list sorts by it", async () => {
      const email = newEmail("api");
      const visitor = new Visitor(server.baseURL, newClientIp());
      await visitor.signUp(email, password);
      const token = await fetch(new URL("/api/v1/auth/token", server.baseURL), {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": newClientIp() },
        body: JSON.stringify({ grant_type: "password", email, password }),
      });
      const grant = (await token.json()) as { access_token: string; vote_key: string };
      assert.equal(token.status, 200);
      assert.match(grant.vote_key, /^[A-Za-z0-9_-]{43}$/);
      const api = (body: unknown, headers: Record<string, string> = {}) =>
        fetch(new URL("/api/v1/helpful-votes", server.baseURL), {
          method: "POST",
          headers: {
            "Content-Type": "application/json",
            "X-Forwarded-For": newClientIp(),
            authorization: `Bearer ${grant.access_token}`,
            ...headers,
          },
          body: JSON.stringify(body),
        });
      const withKey = { "Candor-Account-Key": grant.vote_key };

      const noKey = await api({ review_id: first, helpful: true });
      assert.equal(noKey.status, 401);
      assert.equal(((await noKey.json()) as { code: string }).code, "account-key-required");
      const cast = await api({ review_id: first, helpful: true }, withKey);
      assert.equal(cast.status, 200);
      assert.deepEqual(await cast.json(), { review_id: first, helpful_votes: 1, voted: true });
      // The older header name still carries the key.
      const oldHeader = await api({ review_id: first, helpful: true }, { "Candor-Vote-Key": grant.vote_key });
      assert.equal(oldHeader.status, 409);

      // One account, one vote: made-up keys are no new voters, 30 by API and 10 by form (the attack that once counted
      // 40). Proved live: with the check against the account removed, the first made-up key was counted (200, not 401).
      const madeUp = () => randomBytes(32).toString("base64url");
      for (let attempt = 0; attempt < 30; attempt++) {
        const forged = await api({ review_id: first, helpful: true }, { "Candor-Account-Key": madeUp() });
        assert.equal(forged.status, 401);
        assert.equal(((await forged.json()) as { code: string }).code, "account-key-required");
      }
      const ownKey = visitor.cookies.get("candor.vote_key")!;
      assert.ok(ownKey);
      for (let attempt = 0; attempt < 10; attempt++) {
        visitor.cookies.set("candor.vote_key", madeUp());
        const forged = await visitor.post(paths.helpful(), { review: first, vote: "add", returnTo: companyPath });
        assert.equal(forged.status, 403);
      }
      visitor.cookies.set("candor.vote_key", ownKey);
      assert.equal(await countOf(database, first), 1);
      const again = await api({ review_id: first, helpful: true }, withKey);
      assert.equal(again.status, 409);
      assert.equal(((await again.json()) as { detail: string }).detail, voteMessages.alreadyVoted);
      const unknown = await api({ review_id: "no-such-review", helpful: true }, withKey);
      assert.equal(unknown.status, 404);
      const signedOut = await fetch(new URL("/api/v1/helpful-votes", server.baseURL), {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": newClientIp(), ...withKey },
        body: JSON.stringify({ review_id: first, helpful: true }),
      });
      assert.equal(signedOut.status, 401);

      // The same account on a second device (a new password grant) has the same key: its vote is already there.
      const secondDevice = await fetch(new URL("/api/v1/auth/token", server.baseURL), {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": newClientIp() },
        body: JSON.stringify({ grant_type: "password", email, password }),
      });
      assert.equal(((await secondDevice.json()) as { vote_key: string }).vote_key, grant.vote_key);

      const list = await fetch(new URL(`/api/v1/companies/${company.id}/reviews?sort=helpful`, server.baseURL));
      const page = (await list.json()) as { items: Array<{ id: string; helpfulVotes: number }> };
      assert.deepEqual(
        page.items.map((item) => [item.id, item.helpfulVotes]),
        [
          [second, 2],
          [first, 1],
          [third, 0],
        ],
      );
      voters.push({ email, voteKey: grant.vote_key, voted: [first] });

      // The form without JavaScript: signed out, a vote leads to sign in and back; a session without the vote key
      // cookie (opened before votes existed) is told to sign in again; neither counts anything.
      const form = { review: third, vote: "add", returnTo: companyPath };
      const stranger = await new Visitor(server.baseURL, newClientIp()).post(paths.helpful(), form);
      assert.equal(stranger.status, 302);
      assert.equal(stranger.headers.get("location"), paths.signIn(companyPath));
      assert.ok(visitor.cookies.has("candor.vote_key"));
      visitor.cookies.delete("candor.vote_key");
      const keyless = await visitor.post(paths.helpful(), form);
      assert.equal(keyless.status, 403);
      assert.equal(alertText(await keyless.text()), voteMessages.keyMissing);
      assert.equal(await countOf(database, third), 0);
    });

    it("an attacker with the database files, AUTH_SECRET and the request log cannot tell who voted for what", async () => {
      assert.equal(voters.length, 3, "the tests above left three voters");
      const tables = ["users", "sessions", "accounts", "api_tokens", "vote_keys", "vote_receipts", "vote_totals"];
      const dump: Record<string, Array<Record<string, unknown>>> = {};
      for (const table of tables) dump[table] = await readDatabase(database, `select * from ${table}`);
      const receipts = new Set(dump.vote_receipts!.map((row) => String(row.receipt)));
      assert.equal(
        receipts.size,
        3,
        "3 votes stand: 2 on the second review, 1 on the first (the third's was taken back)",
      );
      assert.deepEqual(Object.keys(dump.vote_receipts![0]!), ["receipt"]);

      // a. Enumeration: every account × review under every key the attacker holds: the secret, and every value a
      //    row stores (ids, tokens, hashes, salts, wrapped keys), as HMAC keys over the likely messages.
      const reviews = await readDatabase(
        database,
        "select id from company_reviews union select id from manager_reviews",
      );
      const keys: Buffer[] = [Buffer.from(secret)];
      for (const table of tables.filter((name) => name !== "vote_receipts")) {
        for (const row of dump[table]!) {
          for (const value of Object.values(row)) {
            if (value === null || value === undefined) continue;
            keys.push(
              Buffer.isBuffer(value) || value instanceof Uint8Array ? Buffer.from(value) : Buffer.from(String(value)),
            );
            if (typeof value === "string" && /^[A-Za-z0-9_-]{43}$/.test(value))
              keys.push(Buffer.from(value, "base64url"));
          }
        }
      }
      const userIds = dump.users!.map((row) => String(row.id));
      let tried = 0;
      let matched = 0;
      for (const key of keys) {
        for (const { id } of reviews) {
          const messages = [
            `helpful-vote\u0000${id}`,
            String(id),
            ...userIds.flatMap((user) => [`${user}${id}`, `helpful-vote${user}${id}`]),
          ];
          for (const message of messages) {
            tried += 1;
            if (receipts.has(createHmac("sha256", key).update(message).digest("base64url"))) matched += 1;
          }
        }
      }
      assert.ok(tried > 1000, `the enumeration tried ${tried} receipts`);
      assert.equal(matched, 0, `${matched} of ${tried} candidate receipts matched a stored one`);

      // The same attack with the voters' own keys (which only their browsers and clients hold) names every vote:
      // the enumeration above would have found them had any stored value been a vote key.
      const withKeys = voters.flatMap((voter) =>
        reviews
          .map(({ id }) => String(id))
          .filter((id) =>
            receipts.has(
              createHmac("sha256", Buffer.from(voter.voteKey, "base64url"))
                .update(`helpful-vote\u0000${id}`)
                .digest("base64url"),
            ),
          ),
      );
      assert.deepEqual(withKeys.toSorted(), voters.flatMap((voter) => voter.voted).toSorted());

      // b. No vote key anywhere in what is stored or logged: not in a row, not in the raw SQLite file and WAL.
      const stored = JSON.stringify(dump, (_key, value: unknown) =>
        value instanceof Uint8Array ? Buffer.from(value).toString("base64url") : value,
      );
      const log = server.output();
      assert.match(log, /"path":"\/helpful"/, "the request log holds the vote requests");
      for (const voter of voters) {
        assert.ok(!stored.includes(voter.voteKey), "a vote key is stored in a row");
        assert.ok(!log.includes(voter.voteKey), "a vote key is in the log");
        if (engine === "sqlite") {
          const raw = Buffer.from(voter.voteKey, "base64url");
          for (const file of [server.databaseUrl, `${server.databaseUrl}-wal`].filter((name) => fs.existsSync(name))) {
            const bytes = fs.readFileSync(file);
            assert.ok(!bytes.includes(raw) && !bytes.includes(Buffer.from(voter.voteKey)), `a vote key in ${file}`);
          }
        }
      }
      // c. The request log names no voted review: every vote went to one address with the review in the body.
      for (const review of company.reviews) {
        assert.ok(!log.split("\n").some((line) => line.includes('"method":"POST"') && line.includes(review)));
      }
    });
  });
}
