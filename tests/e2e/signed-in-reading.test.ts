import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { messages, toastTexts, voteMessages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { ApiClient, companyReview } from "./support/api.ts";
import { closeVisit, launchBrowser, openVisit, waitForHydration } from "./support/browser.ts";
import { headlineReviewCount, newClientIp, newEmail, Visitor } from "./support/http.ts";
import { type Engine, startServer } from "../support/server.ts";

// Signed-in readers of company and manager pages get the page kept for every signed-in reader (decision 0034):
// rendered once without any reader's cookies, so no account can be in it. Readers who voted for a review it shows,
// and page views with a one-view cookie (a toast), get their own page rendered. These tests alternate two accounts
// and a signed-out reader on the same pages, and check that each sees only what is theirs, before and after
// hydration, that a new review and a vote show as before, and that a session that ended gets the signed-out page at
// once.

const browser = await launchBrowser();
after(() => browser.close());

const password = "a long and private passphrase";

/** What a page shows of its reader, read from its HTML as a browser without JavaScript gets it. */
function readerView(html: string) {
  const forms = [...html.matchAll(/<form[^>]*action="\/helpful"[^>]*>([\s\S]*?)<\/form>/g)].map((match) => match[1]!);
  const pressed = forms
    .filter((form) => /aria-pressed="true"/.test(form))
    .map((form) => /name="review" value="([^"]+)"/.exec(form)?.[1]);
  return {
    signedInHeader: html.includes(`>${messages.signOut}</button>`) && html.includes(">Account</a>"),
    signedOutHeader: html.includes(`>${messages.signIn}</a>`),
    addReview: html.includes(`>${messages.addReview}</a>`),
    writeReview: html.includes(`>${messages.writeReview}</a>`),
    voteForms: forms.length,
    signInToVote: html.includes(voteMessages.signInToVote),
    pressed: pressed.sort(),
    toast: Object.values(toastTexts).some((text) => html.includes(`class="toast">${text}`)),
  };
}

/** The count of helpful votes a page shows for a review. */
function helpfulCount(html: string, review: string): number {
  const text = new RegExp(`id="helpful-count-${review}">([\\d,]+) found this helpful<`).exec(html)?.[1];
  assert.ok(text !== undefined, `the page shows the count of review ${review}`);
  return Number(text.replaceAll(",", ""));
}

/** The review ids a company or manager page shows, in order. */
function reviewIdsOf(html: string): string[] {
  return [...html.matchAll(/<article class="card review-card" id="review-([^"]+)"/g)].map((match) => match[1]!);
}

for (const engine of ["sqlite", "postgres"] as Engine[]) {
  describe(`signed-in reading from the page cache (${engine})`, async () => {
    // LOG_LEVEL=info: the request log is read by a test below.
    const server = await startServer(engine, {
      env: { DEMO_DATA: "always", TRUSTED_PROXIES: "127.0.0.1", LOG_LEVEL: "info" },
    });
    after(async () => {
      assert.equal(await server.stop(), 0, `the server did not shut down cleanly:\n${server.output()}`);
    });
    const api = await ApiClient.connect(server.baseURL);
    const writer = await api.newAccount(server.databaseUrl, engine);

    /** A new account, signed in over HTTP, its sign-in toast already shown (so its next views are ordinary). */
    async function reader(label: string, email = newEmail(label)): Promise<Visitor> {
      const visitor = new Visitor(server.baseURL, newClientIp());
      await visitor.signUp(email, password);
      await (await visitor.get(paths.guidelines())).body?.cancel();
      assert.ok(![...visitor.cookies.keys()].some((name) => name.startsWith("candor_toast")), "the toast is shown");
      return visitor;
    }

    async function view(visitor: Visitor | null, path: string) {
      const response = visitor
        ? await visitor.get(path)
        : await fetch(new URL(path, server.baseURL), { headers: { "X-Forwarded-For": newClientIp() } });
      assert.equal(response.status, 200);
      const html = await response.text();
      return { html, cache: response.headers.get("x-cache"), ...readerView(html) };
    }

    /** A demo company whose page shows at least two reviews. */
    async function companyWithReviews(from: number): Promise<{ path: string; reviews: string[] }> {
      for (let id = from; id < from + 20; id++) {
        const page = await view(null, paths.company(id));
        const reviews = reviewIdsOf(page.html);
        if (reviews.length >= 2) return { path: paths.company(id), reviews };
      }
      throw new Error("no demo company with two reviews");
    }

    /**
     * Where the server's output stands once everything asked so far is logged: a request to an address of its own,
     * whose log line follows every line of the requests answered before it. The log writes route patterns, so every
     * mark is logged alike (four unknown segments, `/:id/:id/:id/:id`, which no other request here has): the n-th
     * mark is the n-th such line.
     */
    let marks = 0;
    const markLine = `"path":"/:id/:id/:id/:id"`;
    async function logMark(): Promise<number> {
      marks += 1;
      const mark = `/log-mark/${crypto.randomUUID()}/here/${marks}`;
      // Read whole: a body cancelled early can end the answer before it finishes, and then it is not logged.
      await (await fetch(new URL(mark, server.baseURL), { headers: { "X-Forwarded-For": newClientIp() } })).text();
      const deadline = Date.now() + 10_000;
      for (;;) {
        const output = server.output();
        let at = -1;
        for (let seen = 0; seen < marks; seen++) {
          at = output.indexOf(markLine, at + 1);
          if (at < 0) break;
        }
        if (at >= 0) return at;
        assert.ok(Date.now() < deadline, `the request to ${mark} was not logged`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }

    async function vote(visitor: Visitor, review: string, returnTo: string, add = true) {
      const response = await visitor.post(paths.helpful(), { review, vote: add ? "add" : "remove", returnTo });
      await response.body?.cancel();
      assert.equal(response.status, 302, `the vote was answered ${response.status}`);
    }

    it("shows two accounts and a signed-out reader, alternating on one page, only what is theirs", async () => {
      const { path, reviews } = await companyWithReviews(10);
      const voterEmail = newEmail("voter");
      const [voter, other] = await Promise.all([reader("voter", voterEmail), reader("other")]);
      await vote(voter, reviews[0]!, path);
      const afterVote = await view(voter, path);
      assert.ok(afterVote.toast, "the vote's toast is shown on the voter's own page");
      assert.deepEqual(afterVote.pressed, [reviews[0]]);

      for (let round = 0; round < 3; round++) {
        for (const who of ["voter", "other", "anonymous", "other", "voter", "anonymous"] as const) {
          const page = await view(who === "voter" ? voter : who === "other" ? other : null, path);
          const label = `${who}, round ${round}`;
          assert.equal(page.toast, false, `${label}: no toast`);
          if (who === "anonymous") {
            assert.ok(page.signedOutHeader && !page.signedInHeader, `${label}: the signed-out header`);
            assert.ok(page.writeReview && !page.addReview, `${label}: Write a review`);
            assert.ok(page.signInToVote, `${label}: Sign in to vote`);
            assert.equal(page.voteForms, 0, `${label}: no vote form`);
            if (round > 0) assert.equal(page.cache, "hit", `${label}: the page kept for readers without cookies`);
            continue;
          }
          assert.ok(page.signedInHeader && !page.signedOutHeader, `${label}: the signed-in header`);
          assert.ok(page.addReview && !page.writeReview, `${label}: Add review`);
          assert.ok(!page.signInToVote, `${label}: vote buttons, not sign-in links`);
          assert.equal(page.voteForms, reviews.length, `${label}: a vote form per review`);
          if (who === "voter") {
            assert.deepEqual(page.pressed, [reviews[0]], `${label}: the voter's own vote`);
            assert.notEqual(page.cache, "hit", `${label}: a reader who voted on the page gets their own page`);
          } else {
            assert.deepEqual(page.pressed, [], `${label}: none of the voter's votes`);
            if (round > 0) assert.equal(page.cache, "hit", `${label}: the page kept for signed-in readers`);
          }
        }
      }

      // A one-view cookie (the sign-in toast of the voter's second device) is shown to that view alone.
      const secondDevice = new Visitor(server.baseURL, newClientIp());
      const signedIn = await secondDevice.signIn(voterEmail, password);
      await signedIn.body?.cancel();
      assert.equal(signedIn.status, 302);
      assert.ok((await view(secondDevice, path)).toast, "the sign-in toast on the second device");
      for (const visitor of [other, null, other]) {
        const page = await view(visitor, path);
        assert.equal(page.toast, false, "nobody else sees it");
      }
    });

    it("keeps the signed-in page compressed as well, sent as stored once its forms are made", async () => {
      const { path } = await companyWithReviews(30);
      const visitor = await reader("compressed");
      const first = await visitor.get(path);
      const html = await first.text();
      assert.equal(first.headers.get("x-cache"), "miss");
      // Kept here for every signed-in reader, never by a shared cache in between (which has no notion of sessions).
      assert.equal(first.headers.get("cache-control"), "private, no-cache");
      // fetch asks for gzip (and br): the kept copy's compressed forms are made in zlib's threads, then served.
      for (;;) {
        const again = await visitor.get(path);
        const body = await again.text();
        assert.equal(again.headers.get("x-cache"), "hit");
        assert.equal(again.headers.get("cache-control"), "private, no-cache");
        const etag = again.headers.get("etag") ?? "";
        if (/-(br|gzip)"$/.test(etag)) {
          assert.equal(again.headers.get("content-encoding"), etag.endsWith('-br"') ? "br" : "gzip");
          assert.equal(body, html.replaceAll(/ nonce="[^"]+"/g, ""));
          break;
        }
        assert.equal(again.headers.get("content-encoding"), null, "sent as kept until the forms are stored");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // The signed-out copy of the same page stays for everyone, shared caches included.
      const signedOut = await fetch(new URL(path, server.baseURL), { headers: { "X-Forwarded-For": newClientIp() } });
      await signedOut.body?.cancel();
      assert.doesNotMatch(signedOut.headers.get("cache-control") ?? "", /private|no-store|no-cache/);
    });

    it("shows a new review to signed-in readers at their next view, and a reader's own votes at once", async () => {
      const { path, reviews } = await companyWithReviews(20);
      const logFrom = await logMark();
      const [voter, other] = await Promise.all([reader("voter"), reader("other")]);
      await view(other, path);
      const kept = await view(other, path);
      assert.equal(kept.cache, "hit");
      const id = Number(path.split("/").at(-1));
      const posted = await api.post(`/api/v1/companies/${id}/reviews`, companyReview(), {
        token: writer.accessToken,
      });
      assert.equal(posted.status, 201, posted.text);
      for (const visitor of [other, voter]) {
        const fresh = await view(visitor, path);
        assert.equal(headlineReviewCount(fresh.html), headlineReviewCount(kept.html) + 1, "the new review counts");
      }
      assert.equal((await view(other, path)).cache, "hit", "kept again after it");

      const target = reviews[1]!;
      const countBefore = helpfulCount((await view(voter, path)).html, target);
      await vote(voter, target, path);
      await view(voter, path); // the toast's view
      const voted = await view(voter, path);
      assert.deepEqual(voted.pressed, [target], "the voter's vote, from their own page");
      assert.equal(helpfulCount(voted.html, target), countBefore + 1, "with the count that includes it");
      assert.deepEqual((await view(other, path)).pressed, [], "not on another reader's page");
      await vote(voter, target, path, false);
      await view(voter, path);
      const removed = await view(voter, path);
      assert.deepEqual(removed.pressed, [], "the vote removed");
      assert.equal(removed.voteForms, reviewIdsOf(removed.html).length);

      // The log cannot tell the voter's own page from the kept one: no duration, no cache state for a signed-in view.
      const logged = server
        .output()
        .slice(logFrom, await logMark())
        .split("\n")
        // Logged by its route's pattern (decision 0051): these are the lines of company pages.
        .filter((line) => line.includes('"msg":"request"') && line.includes(`"path":"/company/:id"`));
      assert.ok(logged.length >= 10, `the signed-in views of ${path} were logged: ${logged.length} lines`);
      assert.deepEqual(
        logged.filter((line) => /"(ms|cache)":/.test(line)),
        [],
        "a signed-in view's log line shows how its page was made",
      );
    });

    it("gives a session that ended the signed-out page at once: sign-out, and a password changed elsewhere", async () => {
      const { path } = await companyWithReviews(30);
      const leaving = await reader("leaving");
      await view(leaving, path);
      assert.equal((await view(leaving, path)).cache, "hit", "the session was checked and the kept page served");
      const oldCookie = leaving.cookieHeader();
      const signedOut = await leaving.post(paths.signOut(), {});
      await signedOut.body?.cancel();
      assert.equal(signedOut.status, 302);
      const replayed = await fetch(new URL(path, server.baseURL), {
        headers: { Cookie: oldCookie, "X-Forwarded-For": newClientIp() },
      });
      const replayedView = readerView(await replayed.text());
      assert.ok(replayedView.signedOutHeader && !replayedView.signedInHeader, "the old cookie is signed out");
      assert.notEqual(replayed.headers.get("x-cache"), "hit");

      const email = newEmail("two-devices");
      const laptop = await reader("laptop", email);
      const phone = new Visitor(server.baseURL, newClientIp());
      await (await phone.signIn(email, password)).body?.cancel();
      await view(phone, path); // the toast's view
      await view(phone, path);
      assert.equal((await view(phone, path)).cache, "hit");
      const changed = await laptop.post(paths.account(), {
        intent: "change-password",
        currentPassword: password,
        newPassword: `${password} changed`,
      });
      await changed.body?.cancel();
      assert.equal(changed.status, 200);
      const phoneView = await view(phone, path);
      assert.ok(phoneView.signedOutHeader && !phoneView.signedInHeader, "the other session ended with the change");
      const laptopView = await view(laptop, path);
      assert.ok(laptopView.signedInHeader, "the session that changed it stays signed in");
    });

    it("hydrates a kept signed-in page in Chromium without a mismatch, its header the reader's", async () => {
      const { path } = await companyWithReviews(40);
      const visitor = await reader("browser");
      await view(visitor, path);
      const visit = await openVisit(browser, server.baseURL);
      try {
        await visit.context.addCookies(
          [...visitor.cookies].map(([name, value]) => ({ name, value, url: server.baseURL })),
        );
        const response = await visit.page.goto(path);
        assert.equal(response?.headers()["x-cache"], "hit", "the kept page for signed-in readers");
        const served = readerView((await response?.text()) ?? "");
        assert.ok(served.signedInHeader && served.addReview, "signed in before hydration (the HTML itself)");
        await waitForHydration(visit.page);
        const nav = visit.page.getByRole("navigation", { name: "Main" });
        await nav.getByRole("button", { name: messages.signOut }).waitFor();
        assert.equal(await nav.getByRole("link", { name: "Account" }).count(), 1);
        assert.equal(await nav.getByRole("link", { name: messages.signIn }).count(), 0);
        assert.equal(await visit.page.getByRole("link", { name: messages.addReview }).count(), 1);
      } finally {
        assert.deepEqual(await closeVisit(visit), [], "no console error (no hydration mismatch), no CSP violation");
      }
    });
  });
}
