import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { verifiedBadge } from "#app/lib/messages.ts";
import { verificationMessages } from "#app/lib/verification-messages.ts";
import { paths } from "#app/lib/paths.ts";
import { closeVisit, launchBrowser, openVisit, type Visit, waitForHydration } from "./support/browser.ts";
import {
  companyDraft,
  companyEntries,
  companyReviewEntries,
  fillCompanyFields,
  fillCompanyReview,
  fillManagerReview,
  managerDraft,
  managerEntries,
  managerReviewEntries,
  postEntries,
  shareCookies,
} from "./support/contribute.ts";
import { alertText, newClientIp, newEmail, Visitor } from "./support/http.ts";
import { mailedCode, verifyOverHttp } from "./support/verify.ts";
import { type Engine, readDatabase, startServer } from "../support/server.ts";

// Verifying a work address in Chromium, on both engines: the code is read from the server's outbox, the browser
// blinds and finalizes its tokens with the library, and a review spends one. The badge threshold is 2 here
// (VERIFIED_MIN_PEOPLE), so one more person verifying over HTTP crosses it; the threshold of 10 is tested in
// app/domain/verification.server.test.ts.

const browser = await launchBrowser();
after(() => browser.close());

const password = "a long and private passphrase";
const goodText = "Clear goals, fair reviews and a team that helps each other out.";
let companies = 0;

/** A company whose website is on a domain of its own; answers its id and the domain. */
async function companyOnOwnDomain(baseURL: string): Promise<{ id: number; domain: string }> {
  companies += 1;
  const domain = `verified-${process.pid}-${companies}.org`;
  const visitor = new Visitor(baseURL, newClientIp());
  await visitor.signUp(newEmail("founder"), password);
  const response = await postEntries(visitor, paths.addCompany(), [
    ...companyEntries({ ...companyDraft("Verified Co"), website: `https://www.${domain}/about` }),
    ...companyReviewEntries({ tags: ["Stable"], text: goodText }),
  ]);
  await response.body?.cancel();
  assert.equal(response.status, 302);
  return { id: Number(response.headers.get("location")?.split("/").at(-1)), domain };
}

async function storedTokens(visit: Visit): Promise<string[]> {
  return visit.page.evaluate(() => JSON.parse(localStorage.getItem("candor-verification-tokens") ?? "[]") as string[]);
}

for (const engine of ["sqlite", "postgres"] as Engine[]) {
  describe(`verifying a work address in the browser (${engine})`, async () => {
    const server = await startServer(engine, {
      env: { DEMO_DATA: "never", TRUSTED_PROXIES: "127.0.0.1", VERIFIED_MIN_PEOPLE: "2" },
    });
    after(async () => {
      assert.equal(await server.stop(), 0, `the server did not shut down cleanly:\n${server.output()}`);
    });

    it("mails a code, makes tokens in the browser, and badges a review only from the second person on", async () => {
      const company = await companyOnOwnDomain(server.baseURL);
      const ip = newClientIp();
      const member = new Visitor(server.baseURL, ip);
      await member.signUp(newEmail("member"), password);
      const visit = await openVisit(browser, server.baseURL, { extraHTTPHeaders: { "X-Forwarded-For": ip } });
      try {
        await shareCookies(member, visit.context);
        const { page } = visit;
        await page.goto(paths.verifyWork());
        await waitForHydration(page);
        const address = `alice@mail.${company.domain}`;

        // A free-mail address is refused with a clear message.
        await page.getByLabel("Your work e-mail address").fill("alice@gmail.com");
        await page.getByRole("button", { name: "Send me a code" }).click();
        await page.getByRole("alert").getByText(verificationMessages.freeMail, { exact: true }).waitFor();
        visit.problems.splice(0); // the refusal answered 400 on purpose

        await page.getByLabel("Your work e-mail address").fill(address);
        await page.getByRole("button", { name: "Send me a code" }).click();
        await page.getByText(verificationMessages.codeSent(company.domain), { exact: true }).waitFor();
        const code = await mailedCode(server.outboxDir, address);

        // A wrong code is refused; the right one brings the tokens.
        await page.getByLabel("The 6-digit code from the mail").fill(code === "000000" ? "000001" : "000000");
        await page.getByRole("button", { name: "Get my tokens" }).click();
        await page.getByRole("alert").getByText(verificationMessages.codeWrong, { exact: true }).waitFor();
        visit.problems.splice(0);
        await page.getByLabel("The 6-digit code from the mail").fill(code);
        await page.getByRole("button", { name: "Get my tokens" }).click();
        await page.getByText(verificationMessages.verified(company.domain, 3), { exact: true }).waitFor();
        const tokens = await storedTokens(visit);
        assert.equal(tokens.length, 3);
        assert.ok(tokens.every((token) => token.startsWith(`v1~${company.domain}~`)));

        // Below the threshold: the form says why no badge comes, and sends no token.
        await page.goto(paths.reviewCompany(company.id));
        await waitForHydration(page);
        await page.getByText(verificationMessages.badgeWithheld(company.domain, 2), { exact: true }).waitFor();
        assert.equal(await page.locator('input[name="verification_token"]').count(), 0);

        // A second person verifies (over HTTP): now the badge comes.
        const colleague = new Visitor(server.baseURL, newClientIp());
        await colleague.signUp(newEmail("colleague"), password);
        await verifyOverHttp(colleague, server.outboxDir, `bob@${company.domain}`);

        await page.goto(paths.reviewCompany(company.id));
        await waitForHydration(page);
        await page
          .locator(".verification-note", { hasText: verificationMessages.badgeComing(company.domain) })
          .waitFor();
        await fillCompanyReview(page, { tags: ["Stable"], text: "A verified view: steady work and honest leads." });
        await page.getByRole("main").getByRole("button", { name: "Submit", exact: true }).click();
        await page.waitForURL((url) => url.pathname === paths.company(company.id));
        await page
          .locator(".publication-note", { hasText: verificationMessages.badgeComing(company.domain) })
          .waitFor();
        const card = page
          .locator(".review-card")
          .filter({ has: page.getByText("A verified view: steady work and honest leads.", { exact: true }) });
        await card.getByText(verifiedBadge(company.domain), { exact: true }).waitFor();
        assert.equal((await storedTokens(visit)).length, 2, "the spent token left the browser");

        // The database holds no address, and only the hash of the spent token.
        const rows = await readDatabase(
          { engine, url: server.databaseUrl },
          "select verified_domain from company_reviews where verified_domain is not null",
        );
        assert.deepEqual(rows, [{ verified_domain: company.domain }]);
        for (const table of ["verification_codes", "verified_addresses", "spent_tokens", "verification_keys"]) {
          const stored = JSON.stringify(
            await readDatabase({ engine, url: server.databaseUrl }, `select * from ${table}`),
          );
          assert.ok(!stored.includes("alice"), `${table} holds the address`);
        }
        // Two rows for each of the two submissions, the founder's and this one (decision 0044).
        assert.equal((await readDatabase({ engine, url: server.databaseUrl }, "select * from spent_tokens")).length, 4);
      } finally {
        assert.deepEqual(await closeVisit(visit), [], "the browser reported problems");
      }
    });

    it("badges a manager review and a company added with its review, and points to /verify-work without a token", async () => {
      const company = await companyOnOwnDomain(server.baseURL);
      // A manager of that company, added (and published) with a first review by someone else.
      const founder = new Visitor(server.baseURL, newClientIp());
      await founder.signUp(newEmail("founder"), password);
      const added = await postEntries(founder, paths.addManager(company.id), [
        ...managerEntries(managerDraft("Ada")),
        ...managerReviewEntries({ tags: ["Supportive"], text: goodText }),
      ]);
      await added.body?.cancel();
      assert.equal(added.status, 302);
      const managerId = Number(added.headers.get("location")?.split("/").at(-1));

      const ip = newClientIp();
      const member = new Visitor(server.baseURL, ip);
      await member.signUp(newEmail("member"), password);
      const visit = await openVisit(browser, server.baseURL, { extraHTTPHeaders: { "X-Forwarded-For": ip } });
      try {
        await shareCookies(member, visit.context);
        const { page } = visit;
        // Without a token, the forms point to /verify-work where a badge is possible.
        for (const path of [paths.reviewManager(managerId), paths.addCompany()]) {
          await page.goto(path);
          await waitForHydration(page);
          const note = page.locator(".verification-note", { hasText: verificationMessages.verifyInvitation });
          await note.waitFor();
          assert.equal(
            await note.getByRole("link", { name: verificationMessages.verifyLink }).getAttribute("href"),
            paths.verifyWork(),
          );
        }

        // Two people verify (the threshold here), and this browser holds the second one's tokens.
        const colleague = new Visitor(server.baseURL, newClientIp());
        await colleague.signUp(newEmail("colleague"), password);
        await verifyOverHttp(colleague, server.outboxDir, `erin@${company.domain}`);
        const { tokens } = await verifyOverHttp(member, server.outboxDir, `gina@${company.domain}`, 2);
        await page.evaluate((held) => localStorage.setItem("candor-verification-tokens", JSON.stringify(held)), tokens);

        await page.goto(paths.reviewManager(managerId));
        await waitForHydration(page);
        await page
          .locator(".verification-note", { hasText: verificationMessages.badgeComing(company.domain) })
          .waitFor();
        const managerText = "A verified view of a manager: clear goals and fair feedback.";
        await fillManagerReview(page, { tags: ["Supportive"], text: managerText });
        await page.getByRole("main").getByRole("button", { name: "Submit", exact: true }).click();
        // Sent with a one-review token, without the session: the review page confirms, with the badge's note.
        await page
          .locator(".publication-note", { hasText: verificationMessages.badgeComing(company.domain) })
          .waitFor();
        await page
          .getByRole("main")
          .getByRole("link", { name: /^Back to / })
          .click();
        await page.waitForURL((url) => url.pathname === paths.manager(managerId));
        await page
          .locator(".review-card")
          .filter({ has: page.getByText(managerText, { exact: true }) })
          .getByText(verifiedBadge(company.domain), { exact: true })
          .waitFor();
        assert.equal((await storedTokens(visit)).length, 1, "the spent token left the browser");

        // A company added with its review, on a website of the same domain: the token is chosen when it is sent.
        await page.goto(paths.addCompany());
        await waitForHydration(page);
        await page
          .locator(".verification-note", { hasText: verificationMessages.badgeIfWebsite(company.domain) })
          .waitFor();
        await fillCompanyFields(page, { ...companyDraft("Sister Co"), website: `labs.${company.domain}/sister` });
        const companyText = "A verified view of the sister company: calm planning, fair pay.";
        await fillCompanyReview(page, { tags: ["Stable"], text: companyText });
        await page.getByRole("main").getByRole("button", { name: "Submit", exact: true }).click();
        await page.waitForURL((url) => url.pathname.startsWith("/company/") && url.pathname !== paths.addCompany());
        await page
          .locator(".review-card")
          .filter({ has: page.getByText(companyText, { exact: true }) })
          .getByText(verifiedBadge(company.domain), { exact: true })
          .waitFor();
        assert.deepEqual(await storedTokens(visit), [], "both tokens are spent");
        const rows = await readDatabase(
          { engine, url: server.databaseUrl },
          "select verified_domain from manager_reviews where verified_domain is not null",
        );
        assert.deepEqual(rows, [{ verified_domain: company.domain }]);
      } finally {
        assert.deepEqual(await closeVisit(visit), [], "the browser reported problems");
      }
    });

    it("without JavaScript, mails the code but says that making tokens needs JavaScript", async () => {
      const company = await companyOnOwnDomain(server.baseURL);
      const visitor = new Visitor(server.baseURL, newClientIp());
      await visitor.signUp(newEmail("scriptless"), password);
      const asked = await visitor.post(paths.verifyWork(), { email: `frank@${company.domain}` });
      assert.equal(asked.status, 200);
      assert.ok((await asked.text()).includes(verificationMessages.codeSent(company.domain).replaceAll("'", "&#x27;")));
      const code = await mailedCode(server.outboxDir, `frank@${company.domain}`);
      const typed = await visitor.post(paths.verifyWork(), { intent: "code", code });
      assert.equal(typed.status, 400);
      assert.equal(alertText(await typed.text()), verificationMessages.needsJavaScript);
    });

    it("refuses a spent token, a token of another domain or quarter, and a forged one, with clear messages", async () => {
      const company = await companyOnOwnDomain(server.baseURL);
      const other = await companyOnOwnDomain(server.baseURL);
      const people = await Promise.all(
        [0, 1].map(async () => {
          const visitor = new Visitor(server.baseURL, newClientIp());
          await visitor.signUp(newEmail("staff"), password);
          return visitor;
        }),
      );
      const [first] = (await verifyOverHttp(people[0]!, server.outboxDir, `carol@${company.domain}`, 2)).tokens;
      await verifyOverHttp(people[1]!, server.outboxDir, `dave@${company.domain}`);
      const review = (token: string, companyId = company.id) =>
        postEntries(people[0]!, paths.reviewCompany(companyId), [
          ...companyReviewEntries({ tags: ["Stable"], text: goodText }),
          ["verification_token", token],
        ]);
      const accepted = await review(first!);
      await accepted.body?.cancel();
      assert.equal(accepted.status, 302);

      const again = await review(first!);
      assert.equal(again.status, 409);
      assert.match(await again.text(), new RegExp(verificationMessages.tokenSpent));
      const foreign = await review(first!, other.id);
      assert.equal(foreign.status, 400);
      assert.ok(
        (await foreign.text()).includes(verificationMessages.tokenDomain(company.domain, other.domain)),
        "the refusal names both domains",
      );
      const parts = first!.split("~");
      const otherQuarter = await review([parts[0], parts[1], "2020-Q1", parts[3], parts[4]].join("~"));
      assert.equal(otherQuarter.status, 400);
      assert.match(await otherQuarter.text(), /from another quarter/);
      const forged = await review(
        [...parts.slice(0, 4), parts[4]!.replace(/^./, (c) => (c === "A" ? "B" : "A"))].join("~"),
      );
      assert.equal(forged.status, 400);
      assert.match(await forged.text(), new RegExp(verificationMessages.tokenInvalid));
    });
  });
}
