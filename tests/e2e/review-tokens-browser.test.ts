import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { AxeBuilder } from "@axe-core/playwright";
import type { Page, Request } from "playwright-core";
import { guidelineMessages } from "#app/lib/guidelines.ts";
import { contributionMessages, reviewKeyTexts, toastTexts } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { reviewTokenTexts } from "#app/lib/review-token-client.ts";
import { closeVisit, launchBrowser, openVisit, type Visit, waitForHydration } from "./support/browser.ts";
import {
  companyDraft,
  companyEntries,
  companyReviewEntries,
  fillManagerReview,
  managerDraft,
  managerEntries,
  managerReviewEntries,
  postEntries,
  shareCookies,
} from "./support/contribute.ts";
import { newClientIp, newEmail, Visitor } from "./support/http.ts";
import { type Engine, readDatabase, startServer } from "../support/server.ts";

// The manager review page in Chromium, on both engines: with JavaScript the page obtains the account's one-review
// token when the review is submitted (not before: starting to write and leaving keeps the review), keeps it in the tab, and sends the review with fetch(credentials: "omit"), so
// the request carrying the review carries no cookie; refusals keep what was typed and the token; a second review by
// the same account is refused. Without JavaScript the form posts with the session, as before. The server publishes
// each submission at once here (PUBLISH_INTERVAL=0, MANAGER_MIN_REVIEWS=1, the test servers' default).

const browser = await launchBrowser();
after(() => browser.close());

const password = "a long and private passphrase";
const goodText = "Clear goals, fair feedback and a calm hand when things go wrong.";

const submitButton = (page: Page) => page.getByRole("main").getByRole("button", { name: "Submit", exact: true });
const alert = (page: Page, text: string) => page.getByRole("alert").getByText(text, { exact: true });
const status = (page: Page, text: string) => page.locator(".token-review-status").getByText(text, { exact: true });

/** Axe's serious and critical findings on the page as it is now. */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.help} (${violation.nodes[0]?.target})`);
}

async function open(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await waitForHydration(page);
}

/** A manager of a new company, added and published over HTTP with a first review by someone else. */
async function newManager(baseURL: string, first: string): Promise<{ id: number; name: string }> {
  const founder = new Visitor(baseURL, newClientIp());
  await founder.signUp(newEmail("founder"), password);
  const company = await postEntries(founder, paths.addCompany(), [
    ...companyEntries(companyDraft(`${first} Co`)),
    ...companyReviewEntries({ tags: ["Stable"], text: "A company review to start with." }),
  ]);
  await company.body?.cancel();
  assert.equal(company.status, 302);
  const companyId = Number(company.headers.get("location")?.split("/").at(-1));
  const draft = managerDraft(first);
  const added = await postEntries(founder, paths.addManager(companyId), [
    ...managerEntries(draft),
    ...managerReviewEntries({ tags: ["Supportive"], text: "The founder's first review of this manager." }),
  ]);
  await added.body?.cancel();
  assert.equal(added.status, 302);
  return {
    id: Number(added.headers.get("location")?.split("/").at(-1)),
    name: `${draft.first_name} ${draft.last_name}`,
  };
}

/** A signed-in member in a fresh browser context (its own client address). */
async function member(baseURL: string, options: { javaScriptEnabled?: boolean } = {}): Promise<Visit> {
  const ip = newClientIp();
  const visitor = new Visitor(baseURL, ip);
  await visitor.signUp(newEmail("member"), password);
  const visit = await openVisit(browser, baseURL, { extraHTTPHeaders: { "X-Forwarded-For": ip }, ...options });
  await shareCookies(visitor, visit.context);
  return visit;
}

/** The requests a context sends to `pathname` with `method`, with the headers as they went on the wire. */
function recordRequests(visit: Visit, method: string, pathname: string) {
  const seen: Promise<{ request: Request; headers: Record<string, string> }>[] = [];
  visit.context.on("request", (request) => {
    if (request.method() === method && new URL(request.url()).pathname === pathname) {
      seen.push(request.allHeaders().then((headers) => ({ request, headers })));
    }
  });
  return { all: () => Promise.all(seen), count: () => seen.length };
}

const heldToken = (page: Page, managerId: number) =>
  page.evaluate((id) => sessionStorage.getItem(`candor-review-token:${id}`), managerId);

for (const engine of ["sqlite", "postgres"] as Engine[]) {
  describe(`the manager review page with a one-review token (${engine})`, async () => {
    const server = await startServer(engine, { env: { DEMO_DATA: "never", TRUSTED_PROXIES: "127.0.0.1" } });
    after(async () => {
      assert.equal(await server.stop(), 0, `the server did not shut down cleanly:\n${server.output()}`);
    });
    const database = { engine, url: server.databaseUrl };

    it("obtains the token at Submit, keeps it over a reload and refusals, and sends the review without a cookie", async () => {
      const manager = await newManager(server.baseURL, "Tess");
      const visit = await member(server.baseURL);
      const issued = recordRequests(visit, "POST", `/api/v1/managers/${manager.id}/review-tokens`);
      const spent = recordRequests(visit, "POST", `/api/v1/managers/${manager.id}/token-reviews`);
      try {
        const { page } = visit;
        // A second tab of the same account, opened before anything is written.
        const other = await visit.context.newPage();
        await open(other, paths.reviewManager(manager.id));
        await open(page, paths.reviewManager(manager.id));

        // The page says what starting to write does, before anything is written; opening it took nothing.
        await page.getByText(reviewTokenTexts.howItWorks, { exact: true }).waitFor();
        assert.equal(issued.count(), 0, "opening the form asked for a token");

        // With an e-mail address in the text: the token comes at Submit, the server refuses the text.
        const refusedText = `Fair, but write to boss.${process.pid}@example.com for anything.`;
        await fillManagerReview(page, { tags: ["Fair"], text: refusedText });
        assert.equal(issued.count(), 0, "writing asked for a token before Submit");
        await submitButton(page).click();
        await alert(page, guidelineMessages.email).waitFor();
        await status(page, reviewTokenTexts.held).waitFor();
        assert.equal(issued.count(), 1);
        assert.ok(await heldToken(page, manager.id), "the tab keeps the token");
        // Said once, in the message box; the text is marked and described by it.
        assert.equal(await page.getByText(guidelineMessages.email).count(), 1);
        await page.locator('#review_text[aria-invalid="true"][aria-describedby~="form-message"]').waitFor();
        assert.equal(await page.locator('[name="review_text"]').inputValue(), refusedText);
        assert.deepEqual(await seriousViolations(page), [], "the form with the token's note and a refusal");
        visit.problems.splice(0); // the refusal answered 400 on purpose

        // A reload keeps the token and the draft: the form is offered although the account's review is taken.
        await open(page, paths.reviewManager(manager.id));
        await status(page, reviewTokenTexts.held).waitFor();
        assert.equal(await page.locator('[name="review_text"]').inputValue(), refusedText);

        // The second tab, which held no token, is refused one at Submit: the account has taken its review of this
        // manager, said in the product's words.
        await fillManagerReview(other, { tags: ["Mentor"], text: "Written in a second tab of the same account." });
        await submitButton(other).click();
        await alert(other, contributionMessages.alreadyReviewed).waitFor();
        assert.equal(
          await other.locator('[name="review_text"]').inputValue(),
          "Written in a second tab of the same account.",
        );
        assert.equal(issued.count(), 2);
        visit.problems.splice(0); // the refusal answered 409 on purpose

        // The network fails when the review is sent: the page says so and keeps the text and the token.
        await page.locator('[name="review_text"]').fill(goodText);
        await page.route(`**/api/v1/managers/${manager.id}/token-reviews`, (route) =>
          route.abort("internetdisconnected"),
        );
        await submitButton(page).click();
        await alert(page, contributionMessages.network).waitFor();
        assert.equal(await page.locator('[name="review_text"]').inputValue(), goodText);
        assert.ok(await heldToken(page, manager.id));
        await page.unroute(`**/api/v1/managers/${manager.id}/token-reviews`);
        visit.problems.splice(0); // the aborted request

        await submitButton(page).click();
        const done = page.getByRole("heading", { level: 2, name: toastTexts["manager-reviewed"] });
        await done.waitFor();
        assert.ok(await done.evaluate((heading) => heading === document.activeElement), "focus is on the confirmation");
        const key = await page.getByRole("region", { name: reviewKeyTexts.title }).locator("code").textContent();
        assert.ok(key && key.length > 10, "the review key is shown");
        assert.equal(await heldToken(page, manager.id), null, "the spent token left the tab");
        assert.equal(issued.count(), 2, "no other token was asked for");
        assert.deepEqual(await seriousViolations(page), [], "the confirmation");

        // On the wire: the token was asked for with the session, and every review request went without a cookie.
        const issuance = await issued.all();
        assert.match(
          issuance[0]!.headers.cookie ?? "",
          /candor\.session_token=/,
          "the token request carried the session",
        );
        const reviews = await spent.all();
        assert.equal(reviews.length, 3, "the refused, the aborted and the accepted review requests");
        for (const { headers } of reviews) {
          assert.equal(headers.cookie, undefined, "a review request carried a cookie");
          assert.equal(headers.authorization, undefined);
        }
        const stored = await readDatabase(database, "select * from manager_reviews");
        assert.ok(!JSON.stringify(stored).includes(key!), "the review key is stored in the clear");

        // Published: the manager's page shows it.
        await page
          .getByRole("main")
          .getByRole("link", { name: `Back to ${manager.name}` })
          .click();
        await page.waitForURL((url) => url.pathname === paths.manager(manager.id));
        await page
          .locator(".review-card")
          .filter({ has: page.getByText(goodText, { exact: true }) })
          .waitFor();

        // A second review of the same manager by the same account is refused, in either tab.
        await open(page, paths.reviewManager(manager.id));
        await alert(page, contributionMessages.alreadyReviewed).waitFor();
        assert.equal(await submitButton(page).count(), 0);
        const refusedAgain = other.waitForResponse(
          (response) => new URL(response.url()).pathname === `/api/v1/managers/${manager.id}/review-tokens`,
        );
        await submitButton(other).click();
        assert.equal((await refusedAgain).status(), 409);
        await alert(other, contributionMessages.alreadyReviewed).waitFor();
        assert.equal(spent.count(), 3, "a review went without a token");
        visit.problems.splice(0);
      } finally {
        assert.deepEqual(await closeVisit(visit), [], "the browser reported problems");
      }
    });

    it("takes the account's one review only at Submit: starting, leaving and coming back, the review can still be written; a second tab is told the product's words", async () => {
      // Proven live: on the code before the fix this failed twice over: the first change asked for the token (the
      // account's one review was gone when the author left), and a second tab showed the token's own refusal ("This
      // account has already taken its one review of this manager…") instead of the product's message.
      const manager = await newManager(server.baseURL, "Lena");
      const visit = await member(server.baseURL);
      const keyAsked = recordRequests(visit, "GET", "/api/v1/review-tokens/key");
      const issued = recordRequests(visit, "POST", `/api/v1/managers/${manager.id}/review-tokens`);
      try {
        // Start a review, change every kind of field, and leave: back to the manager, then the tab is closed.
        const first = visit.page;
        await open(first, paths.reviewManager(manager.id));
        await fillManagerReview(first, { tags: ["Fair"], text: "Started, then left before submitting." });
        await first.locator(".breadcrumb").getByRole("link", { name: manager.name }).click();
        await first.waitForURL((url) => url.pathname === paths.manager(manager.id));
        await first.close();
        assert.equal(keyAsked.count() + issued.count(), 0, "starting to write asked for the review token");

        // Come back in a new tab (and a second one beside it): the form is offered, and the review goes through.
        const back = await visit.context.newPage();
        await open(back, paths.reviewManager(manager.id));
        const other = await visit.context.newPage();
        await open(other, paths.reviewManager(manager.id));
        await fillManagerReview(back, { tags: ["Fair"], text: goodText });
        await submitButton(back).click();
        await back.getByRole("heading", { level: 2, name: toastTexts["manager-reviewed"] }).waitFor();
        assert.equal(issued.count(), 1);

        // The second tab, opened before the review was sent, is refused at Submit in the product's exact words.
        await fillManagerReview(other, { tags: ["Mentor"], text: "Written in a second tab of the same account." });
        await submitButton(other).click();
        await alert(other, contributionMessages.alreadyReviewed).waitFor();
        assert.equal(await other.getByText(contributionMessages.alreadyReviewed, { exact: true }).count(), 1);
        visit.problems.splice(0); // the refusal answered 409 on purpose
      } finally {
        assert.deepEqual(await closeVisit(visit), [], "the browser reported problems");
      }
    });

    it("without JavaScript, posts the form with the session as before, and the account's review is then taken", async () => {
      const manager = await newManager(server.baseURL, "Noah");
      const visit = await member(server.baseURL, { javaScriptEnabled: false });
      try {
        const { page } = visit;
        await page.goto(paths.reviewManager(manager.id));
        assert.equal(await page.getByText(reviewTokenTexts.howItWorks).count(), 0, "the token note without scripts");
        const text = "Written without scripts: steady, clear and fair.";
        await fillManagerReview(page, { tags: ["Fair"], text });
        await submitButton(page).click();
        await page.waitForURL((url) => url.pathname === paths.manager(manager.id));
        await page.locator(".toast").getByText(toastTexts["manager-reviewed"], { exact: true }).waitFor();
        await page
          .locator(".review-card")
          .filter({ has: page.getByText(text, { exact: true }) })
          .waitFor();
        await page.goto(paths.reviewManager(manager.id));
        await alert(page, contributionMessages.alreadyReviewed).waitFor();
      } finally {
        assert.deepEqual(await closeVisit(visit), [], "the browser reported problems");
      }
    });
  });
}
