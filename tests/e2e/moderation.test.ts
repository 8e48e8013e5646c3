import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { after, afterEach, describe, it } from "node:test";
import { AxeBuilder } from "@axe-core/playwright";
import type { Page } from "playwright-core";
import { formatMonth } from "#app/lib/format.ts";
import { moderationMessages, removalMarker, reportReasons, signalMessages } from "#app/lib/moderation.ts";
import { companyJson, companyReviewJson } from "../support/payloads.ts";
import { paths } from "#app/lib/paths.ts";
import { closeVisit, launchBrowser, openVisit, type Visit, waitForHydration } from "./support/browser.ts";
import { fillCompanyReview, shareCookies } from "./support/contribute.ts";
import { readDemoFacts } from "./support/demo-facts.ts";
import { newClientIp, newEmail, sameOrigin, Visitor } from "./support/http.ts";
import { waitForMail } from "../support/outbox.ts";
import {
  checkAggregates,
  type Engine,
  newSecret,
  readDatabase,
  root,
  type RunningServer,
  startServer,
} from "../support/server.ts";

// Reporting, moderating and the public log, in Chromium, on both engines: a reader reports a review, a normal
// account is refused the moderators' pages, an account granted the role from the command line removes the review
// with a statement, the page shows the marker and the log the decision, and a restore puts the review back.
const run = promisify(execFile);
const password = "a long and private passphrase";
/** Where reports go while no moderator is configured. */
const operatorEmail = "operator@example.com";
const browser = await launchBrowser();
const servers = await Promise.all(
  (["sqlite", "postgres"] as const).map((engine) =>
    startServer(engine, {
      env: {
        DEMO_DATA: "always",
        TRUSTED_PROXIES: "127.0.0.1",
        CONTACT_EMAIL: operatorEmail,
        MANIPULATION_CHECKS: "on",
      },
    }),
  ),
);

let visits: Visit[] = [];
after(async () => {
  await browser.close();
  for (const server of servers) {
    assert.equal(await server.stop(), 0, `the server did not shut down cleanly:\n${server.output()}`);
    assert.doesNotMatch(server.output(), /"level":(50|60)/, "the server logged errors");
  }
});
afterEach(async () => {
  const problems: string[] = [];
  for (const visit of visits) problems.push(...(await closeVisit(visit)));
  visits = [];
  // The moderators' page answers 403 to a normal account on purpose.
  const unexpected = problems.filter((problem) => !/status of 403/.test(problem));
  assert.deepEqual(unexpected, [], "the browser reported console errors, page errors or failed requests");
});

/** `npm run admin -- …` against the server's database, as the operator runs it. */
async function admin(server: RunningServer, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ["scripts/admin.ts", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, DATABASE_URL: server.databaseUrl, AUTH_SECRET: newSecret(), LOG_LEVEL: "warn" },
  });
  return stdout;
}

async function member(server: RunningServer): Promise<{ visitor: Visitor; email: string }> {
  const visitor = new Visitor(server.baseURL, newClientIp());
  const email = newEmail("moderation");
  await visitor.signUp(email, password);
  return { visitor, email };
}

async function browserOf(server: RunningServer, visitor?: Visitor, javaScriptEnabled = true): Promise<Page> {
  const ip = visitor?.ip ?? newClientIp();
  const visit = await openVisit(browser, server.baseURL, {
    javaScriptEnabled,
    extraHTTPHeaders: { "X-Forwarded-For": ip },
  });
  visits.push(visit);
  if (visitor) await shareCookies(visitor, visit.context);
  return visit.page;
}

async function noAxeViolations(page: Page): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  assert.deepEqual(
    violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target).join(", ")}`),
    [],
  );
}

/** The newest review on a company's first page, as stored. */
async function newestReview(server: RunningServer, companyId: number): Promise<{ id: string; text: string }> {
  const [row] = await readDatabase(
    { engine: server.engine, url: server.databaseUrl },
    `select id, review_text from company_reviews where company_id = ${companyId} order by created_on desc, id desc limit 1`,
  );
  assert.ok(row, "the company has no review");
  return { id: String(row.id), text: String(row.review_text) };
}

function describeModeration(engine: Engine, server: RunningServer): void {
  describe(`moderation in the open (${engine})`, () => {
    it("report, refuse a normal account, remove with a statement, show marker and log, then restore", async () => {
      const facts = await readDemoFacts(server.databaseUrl);
      const company = facts.busyCompany;
      const review = await newestReview(server, company.id);

      // A reader without an account reports the newest review from the review itself.
      const reader = await browserOf(server);
      await reader.goto(paths.company(company.id));
      await waitForHydration(reader);
      await reader
        .locator(".review-list .review-card")
        .first()
        .getByRole("link", { name: "Report this review" })
        .click();
      await reader.waitForURL((url) => url.pathname === paths.reportReview(review.id));
      await noAxeViolations(reader);
      await reader.getByLabel("Names a private person").check();
      await reader.getByLabel("Explanation (optional)").fill("It names a colleague by full name.");
      await reader.getByLabel("Your e-mail address (optional, for the decision)").fill("reader@example.com");
      await reader.getByRole("button", { name: "Send report" }).click();
      await reader.getByRole("status").filter({ hasText: moderationMessages.reportSent }).waitFor();

      // No moderator is configured yet: the operator gets the report by mail, with the commands to act on it, and
      // without the reporter's address.
      const operatorMail = await waitForMail(server.outboxDir, { to: operatorEmail, subject: /a review was reported/ });
      assert.ok(operatorMail.text.includes(`npm run admin -- remove ${review.id} private-person`), operatorMail.text);
      assert.ok(operatorMail.text.includes("It names a colleague by full name."), operatorMail.text);
      assert.ok(!operatorMail.text.includes("reader@example.com"), "the operator's mail names the reporter");

      // A normal account is refused the queue (page and API) and the decision endpoint.
      const normal = await member(server);
      const refused = await browserOf(server, normal.visitor);
      const queuePage = await refused.goto(paths.moderationQueue());
      assert.equal(queuePage?.status(), 403);
      await refused.getByRole("alert").filter({ hasText: moderationMessages.forbidden }).waitFor();
      assert.equal((await normal.visitor.get("/api/v1/moderation/queue")).status, 403);
      const forged = await normal.visitor.request("/api/v1/moderation/decisions", {
        method: "POST",
        headers: { ...sameOrigin(server.baseURL), "Content-Type": "application/json" },
        body: JSON.stringify({ reviewId: review.id, action: "remove", reason: "spam", statement: "No." }),
      });
      assert.equal(forged.status, 403);
      const formPost = await normal.visitor.post(paths.moderationQueue(), {
        reviewId: review.id,
        action: "remove",
        reason: "spam",
        statement: "No.",
      });
      assert.equal(formPost.status, 403);

      // The operator grants the role from the command line; the moderator removes the review with a statement.
      const moderator = await member(server);
      const granted = await admin(server, "grant", "moderator", moderator.email);
      const pseudonym = /shown as "([^"]+)"/.exec(granted)?.[1];
      assert.ok(pseudonym, granted);
      const desk = await browserOf(server, moderator.visitor);
      await desk.goto(paths.moderationQueue());
      await waitForHydration(desk);
      const item = desk.locator(".moderation-queue > li").filter({ hasText: review.text.slice(0, 40) });
      await item.getByText(reportReasons["private-person"].label, { exact: false }).first().waitFor();
      await noAxeViolations(desk);
      await item.getByLabel("Remove the review").check();
      await item.getByLabel("Reason (for a removal)").selectOption("private-person");
      await item.getByLabel("Statement of reasons (published)").fill("The review names a private person.");
      await item.getByRole("button", { name: "Publish decision" }).click();
      const success = desk.getByRole("status").filter({ hasText: moderationMessages.decided });
      await success.waitFor();
      const decision = Number(/decision (\d+)/.exec((await success.textContent()) ?? "")?.[1]);
      assert.ok(decision > 0);

      // The company page shows the marker in the review's place, and the log the decision, never the text.
      const marker = removalMarker(formatMonth(new Date().toISOString().slice(0, 7)), "private-person", decision);
      await reader.goto(paths.company(company.id));
      await reader.getByRole("link", { name: marker }).waitFor();
      assert.ok(!(await reader.content()).includes(review.text), "the removed text is still on the page");
      await reader.goto(paths.moderationLog());
      const entry = reader.locator(`#decision-${decision}`);
      await entry.getByText("The review names a private person.").waitFor();
      await entry.getByText(pseudonym).waitFor();
      assert.ok(!(await reader.content()).includes(review.text), "the log shows the removed text");
      assert.ok(!(await reader.content()).includes(moderator.email), "the log shows the moderator's e-mail");
      await noAxeViolations(reader);

      // The aggregates drop the review exactly; the reporter is told and their address erased.
      const database = { engine: server.engine, url: server.databaseUrl };
      assert.deepEqual((await checkAggregates(database)).mismatches, []);
      const [count] = await readDatabase(database, `select review_count from companies where id = ${company.id}`);
      assert.equal(Number(count?.review_count), company.reviewCount - 1);
      const notice = await waitForMail(server.outboxDir, { to: "reader@example.com", subject: /decision \d+/ });
      assert.match(notice.text, /was removed/);
      const addresses = await readDatabase(database, "select contact_email from review_reports");
      assert.ok(addresses.every((row) => row.contact_email === null));

      // A restore (here through the API, with the moderator's session) puts it back, aggregates exact again.
      const restored = await moderator.visitor.request("/api/v1/moderation/decisions", {
        method: "POST",
        headers: { ...sameOrigin(server.baseURL), "Content-Type": "application/json" },
        body: JSON.stringify({ reviewId: review.id, action: "restore", statement: "Appeal upheld: no name given." }),
      });
      assert.equal(restored.status, 201);
      assert.deepEqual((await checkAggregates(database)).mismatches, []);
      const [recount] = await readDatabase(database, `select review_count from companies where id = ${company.id}`);
      assert.equal(Number(recount?.review_count), company.reviewCount);
      await reader.goto(paths.company(company.id));
      await reader.getByText(review.text).first().waitFor();
      const log = (await (await fetch(new URL("/api/v1/moderation/decisions", server.baseURL))).json()) as {
        items: Array<{ decision: number; action: string }>;
      };
      assert.deepEqual(
        log.items.slice(0, 2).map((item) => item.action),
        ["restore", "remove"],
      );

      // The transparency page counts this month's report and both decisions.
      await reader.goto(paths.transparency());
      const row = reader.getByRole("row", { name: new RegExp(formatMonth(new Date().toISOString().slice(0, 7))) });
      const cells = await row.getByRole("cell").allTextContents();
      assert.ok(Number(cells[0]) >= 1, `reports received: ${cells.join(" | ")}`);
      assert.ok(Number(cells[2]) >= 1 && Number(cells[3]) >= 1, `removed and restored: ${cells.join(" | ")}`);
      await noAxeViolations(reader);
    });

    it("shows the author a key once; with it they appeal a removal, a moderator restores, and they withdraw", async () => {
      const facts = await readDemoFacts(server.databaseUrl);
      const company = facts.quietCompany;
      const author = await member(server);
      const page = await browserOf(server, author.visitor);
      const text = "Honest planning and a kind team; the pay could be better.";
      await page.goto(paths.reviewCompany(company.id));
      await waitForHydration(page);
      await fillCompanyReview(page, { tags: ["Fair Pay"], text });
      await page.getByRole("main").getByRole("button", { name: "Submit", exact: true }).click();
      await page.waitForURL((url) => url.pathname === paths.company(company.id));
      const keyNote = page.getByRole("region", { name: "Your review key" });
      const key = ((await keyNote.locator("code").textContent()) ?? "").trim();
      assert.match(key, /^[A-Za-z0-9_-]{22}$/);
      await noAxeViolations(page);
      // Shown once: the next page no longer has it, and the database only its hash.
      await page.reload();
      assert.equal(await page.getByRole("region", { name: "Your review key" }).count(), 0);
      const database = { engine: server.engine, url: server.databaseUrl };
      const stored = JSON.stringify(await readDatabase(database, "select * from review_keys"));
      assert.ok(!stored.includes(key), "the key itself is stored");

      // A moderator removes the review; the author appeals with the key, signed out, without JavaScript.
      const [row] = await readDatabase(database, `select id from company_reviews where company_id = ${company.id}`);
      const reviewId = String(row?.id);
      // A reader reports it without JavaScript; the operator removes it from the command line.
      const noScript = await browserOf(server, undefined, false);
      await noScript.goto(paths.reportReview(reviewId));
      await noScript.getByLabel("Fake or incentivised").check();
      await noScript.getByRole("button", { name: "Send report" }).click();
      await noScript.getByRole("status").filter({ hasText: moderationMessages.reportSent }).waitFor();
      const moderator = await member(server);
      await admin(server, "grant", "moderator", moderator.email);
      await admin(server, "remove", reviewId, "fake", "Reads like an advertisement.");
      const visit = await openVisit(browser, server.baseURL, {
        javaScriptEnabled: false,
        extraHTTPHeaders: { "X-Forwarded-For": newClientIp() },
      });
      visits.push(visit);
      const appeal = visit.page;
      await appeal.goto(paths.reviewKey());
      await appeal.getByLabel("Review key").fill(key);
      await appeal.getByLabel("Appeal the removal of my review").check();
      await appeal.getByLabel(/Why should the review be restored/).fill("It is my own experience, not an ad.");
      await appeal.getByRole("button", { name: "Send" }).click();
      await appeal.getByRole("status").filter({ hasText: moderationMessages.appealSent }).waitFor();
      // axe runs its script in the page: the same page, with JavaScript, in the author's browser.
      await page.goto(paths.reviewKey());
      await noAxeViolations(page);

      // The moderator sees the appeal in the queue and restores the review there, without JavaScript.
      const desk = await browserOf(server, moderator.visitor, false);
      await desk.goto(paths.moderationQueue());
      const item = desk.locator(".moderation-queue > li").filter({ hasText: "It is my own experience, not an ad." });
      await item.getByLabel("Restore the review").check();
      await item.getByLabel("Statement of reasons (published)").fill("Appeal upheld: first-hand and specific.");
      await item.getByRole("button", { name: "Publish decision" }).click();
      await desk.getByRole("status").filter({ hasText: moderationMessages.decided }).waitFor();
      await page.goto(paths.company(company.id));
      await page.getByText(text).waitFor();
      assert.deepEqual((await checkAggregates(database)).mismatches, []);

      // Then the author withdraws it for good.
      await appeal.goto(paths.reviewKey());
      await appeal.getByLabel("Review key").fill(key);
      await appeal.getByLabel("Withdraw my review for good").check();
      await appeal.getByRole("button", { name: "Send" }).click();
      await appeal.getByRole("status").filter({ hasText: moderationMessages.withdrawn }).waitFor();
      const left = await readDatabase(database, `select id from company_reviews where company_id = ${company.id}`);
      assert.deepEqual(left, []);
      assert.deepEqual((await checkAggregates(database)).mismatches, []);
      const [count] = await readDatabase(database, `select review_count from companies where id = ${company.id}`);
      assert.equal(Number(count?.review_count), 0);
    });

    it("holds a near-copy for a moderator: the page says Unusual activity until a release publishes it", async () => {
      const author = await member(server);
      const json = (body: unknown) => ({
        method: "POST",
        headers: { ...sameOrigin(server.baseURL), "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const text = "The new planning process made every sprint calmer, and the lead explains each trade-off openly.";
      const name = `Echo Works ${engine} ${Date.now()}`;
      const company = companyJson({
        name,
        website: `https://${engine}-${Date.now()}.echo.example`,
        glassdoor_url: "https://reviews.example/echo",
      });
      const review = companyReviewJson({ tags: ["Fair Pay"], review_text: text });
      const added = await author.visitor.request("/api/v1/companies", json({ company, review }));
      const addedText = await added.text();
      assert.equal(added.status, 201, addedText);
      const { id: companyId } = JSON.parse(addedText) as { id: number };

      // The same text again, lightly edited: the publication holds it and opens an alert on the company.
      const again = await author.visitor.request(
        `/api/v1/companies/${companyId}/reviews`,
        json({ ...review, review_text: `${text} Really.` }),
      );
      assert.equal(again.status, 202, await again.text());
      const database = { engine: server.engine, url: server.databaseUrl };
      const [count] = await readDatabase(database, `select review_count from companies where id = ${companyId}`);
      assert.equal(Number(count?.review_count), 1);
      const reader = await browserOf(server, undefined, false);
      await reader.goto(paths.company(companyId));
      await reader.getByRole("region", { name: signalMessages.unusualActivityTitle }).waitFor();
      assert.ok((await reader.content()).includes(signalMessages.unusualActivity));
      const look = await browserOf(server);
      await look.goto(paths.company(companyId));
      await noAxeViolations(look);

      // A normal account may not release it; a moderator does, without JavaScript.
      const alertsAnswer = await author.visitor.request(
        "/api/v1/moderation/alerts",
        json({ alertId: 1, statement: "x" }),
      );
      assert.equal(alertsAnswer.status, 403);
      const moderator = await member(server);
      await admin(server, "grant", "moderator", moderator.email);
      const queue = (await (await moderator.visitor.get("/api/v1/moderation/queue")).json()) as {
        alerts: Array<{ alertId: number; subjectId: number; signal: string; detail: string }>;
      };
      const alert = queue.alerts.find((entry) => entry.subjectId === companyId);
      assert.equal(alert?.signal, "near-duplicates", JSON.stringify(queue.alerts));
      assert.ok(!JSON.stringify(alert).includes(text), "the alert quotes a review");
      const desk = await browserOf(server, moderator.visitor, false);
      await desk.goto(paths.moderationQueue());
      const form = desk.getByRole("form", { name: `Release the alert on ${name}` });
      await form.getByLabel("Statement (what you checked)").fill("The author repeated their own review; kept once.");
      await form.getByRole("button", { name: "Release the alert" }).click();
      await desk.getByRole("status").filter({ hasText: signalMessages.released }).waitFor();

      // The notice is gone; the waiting review goes out with the next batch (here: the next submission's run).
      await reader.goto(paths.company(companyId));
      assert.equal(await reader.getByRole("region", { name: signalMessages.unusualActivityTitle }).count(), 0);
      const third = await author.visitor.request(
        `/api/v1/companies/${companyId}/reviews`,
        json({ ...review, review_text: "Pay reviews are fair and on time; the office is too loud." }),
      );
      assert.equal(third.status, 201, await third.text());
      const [recount] = await readDatabase(database, `select review_count from companies where id = ${companyId}`);
      assert.equal(Number(recount?.review_count), 3);
      assert.deepEqual((await checkAggregates(database)).mismatches, []);
    });

    it("refuses a report without a reason, and of a review that does not exist", async () => {
      const visitor = new Visitor(server.baseURL, newClientIp());
      const facts = await readDemoFacts(server.databaseUrl);
      const review = await newestReview(server, facts.busyCompany.id);
      const noReason = await visitor.post(paths.reportReview(review.id), { explanation: "bad" });
      assert.equal(noReason.status, 400);
      assert.ok((await noReason.text()).includes(moderationMessages.reasonRequired));
      const missing = await visitor.request("/api/v1/reviews/no-such-review/reports", {
        method: "POST",
        headers: { ...sameOrigin(server.baseURL), "Content-Type": "application/json" },
        body: JSON.stringify({ reason: "spam" }),
      });
      assert.equal(missing.status, 404);
      const viaApi = await visitor.request(`/api/v1/reviews/${review.id}/reports`, {
        method: "POST",
        headers: { ...sameOrigin(server.baseURL), "Content-Type": "application/json" },
        body: JSON.stringify({ reason: "spam", contactEmail: "not an address" }),
      });
      assert.equal(viaApi.status, 400);
    });
  });
}

for (const server of servers) describeModeration(server.engine, server);
