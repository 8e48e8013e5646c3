import assert from "node:assert/strict";
import { after, afterEach, describe, it } from "node:test";
import { AxeBuilder } from "@axe-core/playwright";
import type { BrowserContextOptions, Locator, Page } from "playwright-core";
import { feedbackMessages } from "#app/domain/feedback.server.ts";
import { correctFields } from "#app/http/contribution-forms.server.ts";
import { formatDay, formatMonth } from "#app/lib/format.ts";
import { guidelineMessages } from "#app/lib/guidelines.ts";
import { contributionMessages, messages, toastTexts } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { companyCriteria, companyYesNo } from "#app/lib/ratings.ts";
import { companyTags } from "#app/lib/tags.ts";
import { closeVisit, launchBrowser, openVisit, type Visit, waitForHydration } from "./support/browser.ts";
import {
  answerEvery,
  chooseTags,
  companyDraft,
  companyEntries,
  companyReviewEntries,
  cookieHeaderOf,
  fillCompanyFields,
  fillCompanyReview,
  fillManagerFields,
  fillManagerReview,
  managerDraft,
  managerReviewEntries,
  postEntries,
  rateEvery,
  shareCookies,
  tagBox,
} from "./support/contribute.ts";
import { readDemoFacts } from "./support/demo-facts.ts";
import { alertText, newClientIp, newEmail, sameOrigin, Visitor } from "./support/http.ts";
import { readOutbox, waitForMail } from "../support/outbox.ts";
import { startServer } from "../support/server.ts";

// Adding companies, managers and reviews, and the contact form, in Chromium. One server with the demo data; behind
// TRUSTED_PROXIES=127.0.0.1 each simulated person sends an address of their own (X-Forwarded-For), so the limits
// per address (five sign-ups, five contact messages an hour) do not bite.
const contactEmail = "owner@candor.example";
const [server, browser] = await Promise.all([
  startServer("sqlite", { env: { DEMO_DATA: "always", TRUSTED_PROXIES: "127.0.0.1", CONTACT_EMAIL: contactEmail } }),
  launchBrowser(),
]);
const facts = await readDemoFacts(server.databaseUrl);
const password = "a long and private passphrase";
const goodText = "Clear goals, fair reviews and a team that helps each other out.";

/** The visits the current test opened; each is closed after it, and must have reported no problem. */
let visits: Visit[] = [];
const scriptless = new WeakSet<Page>();
/** Problems the current test causes on purpose (a refused form answers 400; an aborted request fails). */
let expected: RegExp[] = [];

function expectProblems(...patterns: RegExp[]): void {
  expected.push(...patterns);
}

/** Chromium logs every form answer of 4xx as a failed resource; the refusals a test provokes are expected. */
function expectRefusals(...statuses: number[]): void {
  for (const status of statuses) expectProblems(new RegExp(`the server responded with a status of ${status}\\b`));
}

after(async () => {
  await browser.close();
  assert.equal(await server.stop(), 0, `the server did not shut down cleanly on SIGTERM:\n${server.output()}`);
  assert.doesNotMatch(server.output(), /"level":(50|60)/, "the server logged errors");
});

afterEach(async () => {
  const problems: string[] = [];
  for (const visit of visits) problems.push(...(await closeVisit(visit)));
  const unexpected = problems.filter((problem) => !expected.some((pattern) => pattern.test(problem)));
  visits = [];
  expected = [];
  assert.deepEqual(unexpected, [], "the browser reported console errors, page errors or failed requests");
});

/** A person at a browser of their own (fresh cookies), coming from an address of their own. */
async function newPerson(options: BrowserContextOptions = {}, ip = newClientIp()): Promise<Page> {
  const visit = await openVisit(browser, server.baseURL, { ...options, extraHTTPHeaders: { "X-Forwarded-For": ip } });
  visits.push(visit);
  if (options.javaScriptEnabled === false) scriptless.add(visit.page);
  return visit.page;
}

/** An account made over HTTP (quicker than the form, which the accounts tests cover). */
async function newAccount(ip = newClientIp()): Promise<{ visitor: Visitor; email: string }> {
  const visitor = new Visitor(server.baseURL, ip);
  const email = newEmail("contributor");
  await visitor.signUp(email, password);
  return { visitor, email };
}

/** A signed-in person at a browser of their own; `visitor` speaks HTTP with the same session and address. */
async function newMember(options: BrowserContextOptions = {}): Promise<{ page: Page; visitor: Visitor }> {
  const ip = newClientIp();
  const { visitor } = await newAccount(ip);
  const page = await newPerson(options, ip);
  await shareCookies(visitor, page.context());
  return { page, visitor };
}

async function open(page: Page, target: string): Promise<void> {
  await page.goto(target);
  if (!scriptless.has(page)) await waitForHydration(page);
}

function pathOf(page: Page): string {
  const url = new URL(page.url());
  return `${url.pathname}${url.search}`;
}

async function waitForPath(page: Page, target: string | RegExp): Promise<void> {
  await page.waitForURL((url) => {
    const current = `${url.pathname}${url.search}`;
    return typeof target === "string" ? current === target : target.test(current);
  });
}

/** Polls until `check` holds (React re-renders after each event), or fails naming `what`. */
async function until(what: string, check: () => Promise<boolean>, timeout = 5_000): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function toast(page: Page, kind: keyof typeof toastTexts): Locator {
  return page.locator(".toast-region").getByText(toastTexts[kind], { exact: true });
}

function messageBox(page: Page): Locator {
  return page.getByRole("main").getByRole("alert");
}

function submitButton(page: Page): Locator {
  return page.getByRole("main").getByRole("button", { name: "Submit", exact: true });
}

/** The message box says `text`, and the page says it once: a reader (and a strict locator) finds one place. */
async function assertMessage(page: Page, text: string): Promise<void> {
  await messageBox(page).getByText(text, { exact: true }).waitFor();
  assert.equal(await page.getByText(text).count(), 1, `"${text}" is said more than once`);
}

/** The id at the end of the page's path, e.g. /company/17 → 17. */
function idOf(page: Page): number {
  const id = Number(new URL(page.url()).pathname.split("/").at(-1));
  assert.ok(Number.isInteger(id) && id > 0, `no id in ${page.url()}`);
  return id;
}

/** A company added over HTTP by a new account, with its first review; resolves with its id. */
async function addCompanyOverHttp(draft = companyDraft("Seeded"), layoffs = ""): Promise<number> {
  const { visitor } = await newAccount();
  const response = await postEntries(visitor, paths.addCompany(), [
    ...companyEntries(draft),
    ...companyReviewEntries({ tags: ["Stable"], text: goodText, layoffs }),
  ]);
  await response.body?.cancel();
  assert.equal(response.status, 302, `adding ${draft.name} answered ${response.status}`);
  return Number(response.headers.get("location")?.split("/").at(-1));
}

/** The review card on the page whose text is `text`. */
function reviewCard(page: Page, text: string): Locator {
  return page.locator(".review-card").filter({ has: page.getByText(text, { exact: true }) });
}

const thisMonth = formatMonth(new Date().toISOString().slice(0, 7));

describe("adding a company with its first review", () => {
  it("sends a signed-out visitor to sign in, then back to /company/add", async () => {
    const { email } = await newAccount();
    const page = await newPerson();
    await open(page, paths.addCompany());
    assert.equal(pathOf(page), "/signin?redirectTo=%2Fcompany%2Fadd");
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(password);
    await page.getByRole("main").getByRole("button", { name: messages.signIn, exact: true }).click();
    await waitForPath(page, paths.addCompany());
    await page.getByRole("heading", { level: 1, name: "Add a company" }).waitFor();
  });

  it("lists companies already listed under a similar name from 5 typed characters, at most 10", async () => {
    // Eleven companies whose names share a word, so the list has more candidates than it may show.
    await Promise.all(Array.from({ length: 11 }, () => addCompanyOverHttp(companyDraft("Lumenfield Robotics"))));
    const { page } = await newMember();
    await open(page, paths.addCompany());
    const name = page.getByLabel("Company name", { exact: true });
    const suggestions = page.locator(".suggestions");

    await name.fill("L");
    assert.equal(await suggestions.count(), 0, "the list shows from 2 typed characters only");
    for (const typed of ["Lu", "Lume"]) {
      await name.fill(typed);
      await suggestions.getByText("Type at least 5 characters", { exact: false }).waitFor();
      assert.equal(await suggestions.locator("li").count(), 0);
    }
    await name.fill("Lumen");
    await suggestions.getByText("Possible duplicates already listed:").waitFor();
    await suggestions.locator("li").nth(9).waitFor();
    assert.equal(await suggestions.locator("li").count(), 10);

    // The name of a demo company, typed in full, lists it as a link to its page.
    await name.fill(facts.busyCompany.name);
    const link = suggestions.getByRole("link", { name: facts.busyCompany.name, exact: false });
    await link.first().waitFor();
    assert.equal(await link.first().getAttribute("href"), paths.company(facts.busyCompany.id));
  });

  it("keeps Submit disabled until the form is complete, counts characters down and allows at most 5 tags", async () => {
    const { page } = await newMember();
    await open(page, paths.addCompany());
    const submit = submitButton(page);
    const isDisabled = () => submit.isDisabled();
    const counter = page.locator("#review_text-count");
    assert.equal(await isDisabled(), true, "Submit is enabled on an empty form");
    assert.equal(await counter.textContent(), "5,000 characters left");

    await fillCompanyFields(page, companyDraft("Incomplete"));
    await rateEvery(page, companyCriteria.slice(0, -1), 3);
    await answerEvery(page, companyYesNo, "No");
    await chooseTags(page, ["Hybrid"]);
    await page.getByLabel("Your review", { exact: true }).fill(goodText);
    assert.equal(await isDisabled(), true, "Submit is enabled with a criterion unrated");

    await rateEvery(page, companyCriteria.slice(-1), 3);
    await until("every rating given enables Submit", async () => !(await isDisabled()));

    // Text of 5 characters is too short; 6 is enough. The counter follows every keystroke.
    const text = page.getByLabel("Your review", { exact: true });
    await text.fill("Short");
    await until("5 characters disable Submit", isDisabled);
    assert.equal(await counter.textContent(), "4,995 characters left");
    await text.pressSequentially("!");
    await until("6 characters enable Submit", async () => !(await isDisabled()));
    assert.equal(await counter.textContent(), "4,994 characters left");

    // No tag: disabled again. Five tags at most; the sixth cannot be chosen; choosing one again deselects it.
    await tagBox(page, "Hybrid").uncheck();
    await until("no tag disables Submit", isDisabled);
    const five = companyTags.slice(0, 5);
    await chooseTags(page, five);
    const status = page.locator("#tags-status");
    assert.match((await status.textContent()) ?? "", /^5 of 5 chosen\./);
    const sixth = tagBox(page, companyTags[5]!);
    assert.equal(await sixth.isDisabled(), true, "a sixth tag can be chosen");
    await sixth.click({ force: true });
    assert.equal(await sixth.isChecked(), false);
    assert.equal(await page.locator('input[name="tags"]:checked').count(), 5);
    await tagBox(page, five[0]!).click();
    assert.equal(await tagBox(page, five[0]!).isChecked(), false, "choosing a tag again does not deselect it");
    assert.match((await status.textContent()) ?? "", /^4 of 5 chosen\./);
    assert.equal(await sixth.isDisabled(), false);
    assert.equal(await isDisabled(), false);
  });

  it("adds the company and shows its page with the review and the toast; the same name and website again is refused", async () => {
    const { page } = await newMember();
    const draft = companyDraft("Brightwater Analytics");
    const text = "Supportive colleagues, honest leadership and real growth.";
    await open(page, paths.addCompany());
    await fillCompanyFields(page, draft);
    await fillCompanyReview(page, { tags: ["Fair Pay", "Mentorship"], text });
    await submitButton(page).click();
    await waitForPath(page, /^\/company\/\d+$/);
    await toast(page, "company-added").waitFor();
    await page.getByRole("heading", { level: 1, name: draft.name }).waitFor();
    const card = reviewCard(page, text);
    await card.waitFor();
    assert.equal(await card.locator(".review-date").textContent(), `Posted in ${thisMonth}`);
    // The website was normalised (spec: an address without a scheme gets one).
    assert.equal(
      await page.getByRole("heading", { level: 1 }).getByRole("link").getAttribute("href"),
      `https://${draft.website}/`,
    );

    expectRefusals(409);
    await open(page, paths.addCompany());
    await fillCompanyFields(page, { ...draft, website: `https://${draft.website}` });
    await fillCompanyReview(page, { tags: ["Fair Pay"], text });
    await submitButton(page).click();
    await assertMessage(page, contributionMessages.companyExists);
    assert.equal(pathOf(page), paths.addCompany());
    assert.equal(await page.getByLabel("Company name", { exact: true }).inputValue(), draft.name);
  });

  it("warns while typing about a link, an e-mail address or a phone number in the review text", async () => {
    const { page } = await newMember();
    await open(page, paths.addCompany());
    const text = page.getByLabel("Your review", { exact: true });
    const warning = page.locator(".field-warning");
    const cases: Array<[string, string]> = [
      ["Read more on www.example.com before you apply.", guidelineMessages.link],
      ["Write to jane.doe@example.com for the details.", guidelineMessages.email],
      ["Call the office at +1 (555) 123-4567 and ask.", guidelineMessages.phone],
    ];
    for (const [typed, message] of cases) {
      await text.fill(typed);
      await until(`the warning for "${typed}" shows`, async () => (await warning.textContent()) === message);
    }
    await text.fill(goodText);
    await until("the warning goes once the text is clean", async () => (await warning.textContent()) === "");
  });

  it("refuses a javascript: website with the website message", async () => {
    expectRefusals(400);
    const { page } = await newMember();
    await open(page, paths.addCompany());
    await fillCompanyFields(page, { ...companyDraft("Scripted"), website: "javascript:alert(1)" });
    await fillCompanyReview(page, { tags: ["Toxic"], text: goodText });
    await submitButton(page).click();
    await assertMessage(page, contributionMessages.website);
    const website = page.getByLabel("Website", { exact: true });
    assert.equal(await website.getAttribute("aria-invalid"), "true");
    assert.equal(await website.inputValue(), "javascript:alert(1)");
    assert.equal(pathOf(page), paths.addCompany());
  });
});

describe("reviewing a company", () => {
  it("thanks the reviewer on the company page, which shows the review dated by month and year only", async () => {
    const { page } = await newMember();
    const text = "Calm planning, kind people and honest feedback all year.";
    await open(page, paths.reviewCompany(facts.busyCompany.id));
    await page.getByRole("heading", { level: 1, name: `Review ${facts.busyCompany.name}` }).waitFor();
    await fillCompanyReview(page, { rating: 5, tags: ["Inclusive", "Stable"], text });
    await submitButton(page).click();
    await waitForPath(page, paths.company(facts.busyCompany.id));
    await toast(page, "company-reviewed").waitFor();
    const card = reviewCard(page, text);
    await card.waitFor();
    const date = (await card.locator(".review-date").textContent()) ?? "";
    assert.equal(date, `Posted in ${thisMonth}`);
    assert.doesNotMatch(date, /\d{1,2},/, "the review shows its day");
  });

  it("updates Recent layoffs when the date given is newer than the one shown, and only then", async () => {
    const companyId = await addCompanyOverHttp(companyDraft("Layoff Watch"), "2024-05-10");
    const { page, visitor } = await newMember();
    const layoffs = () => page.locator(".facts div").filter({ hasText: "Recent layoffs" }).locator("dd").textContent();

    await open(page, paths.reviewCompany(companyId));
    await fillCompanyReview(page, { tags: ["Layoffs"], text: goodText, layoffs: "2025-01-15" });
    await submitButton(page).click();
    await waitForPath(page, paths.company(companyId));
    await toast(page, "company-reviewed").waitFor();
    assert.equal(await layoffs(), formatDay("2025-01-15"));

    // An older date leaves the newer one in place.
    const older = await postEntries(
      visitor,
      paths.reviewCompany(companyId),
      companyReviewEntries({ tags: ["Layoffs"], text: goodText, layoffs: "2024-12-01" }),
    );
    await older.body?.cancel();
    assert.equal(older.status, 302);
    await open(page, paths.company(companyId));
    assert.equal(await layoffs(), formatDay("2025-01-15"));
  });
});

describe("adding a manager", () => {
  it("through /manager/add?company=ID: refuses a manager without direct reports, then adds them with the first review", async () => {
    expectRefusals(400);
    const company = facts.companyWithoutManagers;
    const { page } = await newMember();
    const manager = managerDraft("Avery");
    await open(page, paths.addManager(company.id));
    await page.getByRole("heading", { level: 1, name: `Add a manager at ${company.name}` }).waitFor();
    assert.equal(await page.locator('[name="department"]').count(), 0, "the department field belongs to addAlone");
    await fillManagerFields(page, manager, "No");
    await fillManagerReview(page, { tags: ["Mentor", "Fair"], text: goodText });
    await submitButton(page).click();
    await assertMessage(page, contributionMessages.directReports);
    assert.equal(await page.getByLabel("First name", { exact: true }).inputValue(), manager.first_name);

    await page.locator('input[name="direct_reports"][value="Yes"]').check();
    await until("Submit is enabled", async () => !(await submitButton(page).isDisabled()));
    await submitButton(page).click();
    await waitForPath(page, /^\/manager-profile\/\d+$/);
    await toast(page, "manager-reviewed").waitFor();
    const name = `${manager.first_name} ${manager.last_name}`;
    await page.getByRole("heading", { level: 1, name }).waitFor();
    await reviewCard(page, goodText).waitFor();
    // Signed in, the spec's "Add a review" above and below the manager's reviews, both to the review form.
    const addLinks = page.getByRole("main").getByRole("link", { name: messages.addManagerReview, exact: true });
    assert.equal(await addLinks.count(), 2);
    const managerId = idOf(page);
    for (const href of await addLinks.evaluateAll((links) => links.map((link) => link.getAttribute("href")))) {
      assert.equal(href, paths.reviewManager(managerId));
    }

    await open(page, paths.companyManagers(company.id));
    const link = page.getByRole("main").getByRole("link", { name });
    await link.waitFor();
    assert.equal(await link.getAttribute("href"), paths.manager(managerId));
  });

  it("through /manager/addAlone: finds an existing company, chooses it, and adds the manager with a department", async () => {
    const { page } = await newMember();
    const manager = { ...managerDraft("Jordan"), department: "Platform" };
    await open(page, paths.addManagerAlone());
    await page.getByLabel("Find the company by name").fill(facts.busyCompany.name);
    await page.getByRole("button", { name: "Find" }).click();
    await waitForPath(page, /company_q=/);
    const choice = page.getByRole("radio", { name: facts.busyCompany.name, exact: false });
    await choice.first().check();
    assert.equal(await page.locator('[name="company_name"]').isDisabled(), true, "the new company's fields are open");
    await fillManagerFields(page, manager);
    await fillManagerReview(page, { tags: ["Supportive"], text: goodText });
    await submitButton(page).click();
    await waitForPath(page, /^\/manager-profile\/\d+$/);
    await toast(page, "manager-reviewed").waitFor();
    await page.getByRole("heading", { level: 1, name: `${manager.first_name} ${manager.last_name}` }).waitFor();
    await page.getByText(`${manager.title} · Platform`).waitFor();
    await page.getByRole("main").getByRole("link", { name: facts.busyCompany.name, exact: true }).waitFor();
  });

  it("through /manager/addAlone: adds the company inline when it is not listed", async () => {
    const { page } = await newMember();
    const company = companyDraft("Inline Harbor");
    const manager = managerDraft("Casey");
    await open(page, paths.addManagerAlone());
    assert.equal(await page.locator('[name="department"]').count(), 1);
    await page.getByRole("radio", { name: "The company is not listed: add it" }).check();
    await fillCompanyFields(page, company, "company_");
    await fillManagerFields(page, manager);
    await fillManagerReview(page, { tags: ["Clear Goals"], text: goodText });
    await submitButton(page).click();
    await waitForPath(page, /^\/manager-profile\/\d+$/);
    await toast(page, "manager-reviewed").waitFor();
    const companyLink = page.getByRole("main").getByRole("link", { name: company.name, exact: true });
    await companyLink.click();
    await waitForPath(page, /^\/company\/\d+$/);
    await page.getByRole("heading", { level: 1, name: company.name }).waitFor();
  });
});

describe("reviewing a manager", () => {
  it("reviews once; the page and a second submission then say the manager was already reviewed", async () => {
    const { page } = await newMember();
    const manager = facts.manager;
    const text = "Listens first, decides fairly and shares the credit.";
    await open(page, paths.reviewManager(manager.id));
    await fillManagerReview(page, { rating: 5, tags: ["Good Listener"], text });
    await submitButton(page).click();
    // Sent with a one-review token, without the session: the confirmation is shown on the review page itself
    // (tests/e2e/review-tokens-browser.test.ts follows the token).
    await page.getByRole("heading", { level: 2, name: toastTexts["manager-reviewed"] }).waitFor();
    await page
      .getByRole("main")
      .getByRole("link", { name: `Back to ${manager.firstName} ${manager.lastName}` })
      .click();
    await waitForPath(page, paths.manager(manager.id));
    await reviewCard(page, text).waitFor();

    await open(page, paths.reviewManager(manager.id));
    await assertMessage(page, contributionMessages.alreadyReviewed);
    assert.equal(await submitButton(page).count(), 0, "the form is offered again");

    // The same session posting the form again (a second tab, a replay) is refused by the server.
    const response = await fetch(new URL(paths.reviewManager(manager.id), server.baseURL), {
      method: "POST",
      redirect: "manual",
      headers: {
        ...sameOrigin(server.baseURL),
        Cookie: await cookieHeaderOf(page.context()),
        "X-Forwarded-For": newClientIp(),
      },
      body: new URLSearchParams(managerReviewEntries({ tags: ["Fair"], text })),
    });
    assert.equal(response.status, 409);
    assert.equal(alertText(await response.text()), contributionMessages.alreadyReviewed);
  });

  it("tells a signed-out visitor they must be logged in", async () => {
    const page = await newPerson();
    await open(page, paths.reviewManager(facts.managerWithoutReviews.id));
    await assertMessage(page, contributionMessages.mustSignIn);
    assert.equal(await submitButton(page).count(), 0);
    await page.getByRole("main").getByRole("link", { name: messages.signIn, exact: true }).waitFor();
  });
});

describe("contributing without JavaScript", () => {
  it("adds a company: the server names what is missing and keeps what was entered", async () => {
    expectRefusals(400);
    const { page } = await newMember({ javaScriptEnabled: false });
    const draft = companyDraft("Scriptless Works");
    await open(page, paths.addCompany());
    await fillCompanyFields(page, draft);
    await rateEvery(page, companyCriteria, 2);
    await answerEvery(page, companyYesNo, "No");
    await page.getByLabel("Your review", { exact: true }).fill(goodText);
    await submitButton(page).click();
    await page.waitForLoadState();
    await assertMessage(page, contributionMessages.chooseTags);
    // The one refused field is marked, and described by the message box rather than saying it again.
    await page.locator('.tag-picker.invalid[aria-describedby~="form-message"]').waitFor();
    assert.equal(await page.getByLabel("Company name", { exact: true }).inputValue(), draft.name);
    assert.equal(await page.getByLabel("Country", { exact: true }).inputValue(), draft.country);
    assert.equal(await page.getByLabel("Your review", { exact: true }).inputValue(), goodText);
    assert.equal(await page.locator(`input[name="${companyCriteria[0]}"][value="2"]`).isChecked(), true);
    assert.equal(await page.locator('input[name="recommend"][value="No"]').isChecked(), true);

    await chooseTags(page, ["Bureaucratic", "Stable"]);
    await submitButton(page).click();
    await waitForPath(page, /^\/company\/\d+$/);
    await toast(page, "company-added").waitFor();
    await page.getByRole("heading", { level: 1, name: draft.name }).waitFor();
    const companyId = idOf(page);

    // Reviewing it: the server refuses an e-mail address in the text, naming the rule, and keeps the rest.
    const text = `Steady work. Questions to hr.${process.pid}@example.com please.`;
    await open(page, paths.reviewCompany(companyId));
    await fillCompanyReview(page, { tags: ["Stable"], text });
    await submitButton(page).click();
    await page.waitForLoadState();
    await assertMessage(page, guidelineMessages.email);
    await page.locator('#review_text[aria-invalid="true"][aria-describedby~="form-message"]').waitFor();
    assert.equal(await page.getByLabel("Your review", { exact: true }).inputValue(), text);
    assert.equal(await tagBox(page, "Stable").isChecked(), true);

    await page.getByLabel("Your review", { exact: true }).fill("Steady work and a calm team.");
    await submitButton(page).click();
    await waitForPath(page, paths.company(companyId));
    await toast(page, "company-reviewed").waitFor();
    await reviewCard(page, "Steady work and a calm team.").waitFor();
  });

  it("adds a manager and their company on /manager/addAlone", async () => {
    const { page } = await newMember({ javaScriptEnabled: false });
    const company = companyDraft("Scriptless Harbor");
    const manager = { ...managerDraft("Sam"), department: "Operations" };
    await open(page, paths.addManagerAlone());
    await page.getByRole("radio", { name: "The company is not listed: add it" }).check();
    await fillCompanyFields(page, company, "company_");
    await fillManagerFields(page, manager);
    await fillManagerReview(page, { tags: ["Hands Off"], text: goodText });
    await submitButton(page).click();
    await waitForPath(page, /^\/manager-profile\/\d+$/);
    await toast(page, "manager-reviewed").waitFor();
    await page.getByRole("main").getByRole("link", { name: company.name, exact: true }).waitFor();
  });
});

describe("the contact form", () => {
  async function sentSubjects(): Promise<string[]> {
    return (await readOutbox(server.outboxDir)).map((mail) => mail.subject);
  }

  it("requires a subject and a message, then sends the message to the site owner", async () => {
    expectRefusals(400);
    const page = await newPerson();
    await open(page, paths.feedback());
    const subject = page.getByLabel("Subject", { exact: true });
    const message = page.getByLabel("Message", { exact: true });
    const send = page.getByRole("button", { name: "Send" });

    // Blank (spaces only) passes the browser's required check; the server refuses it with its own messages.
    await subject.fill("   ");
    await message.fill("   ");
    await send.click();
    await page.getByText(feedbackMessages.subjectRequired, { exact: true }).waitFor();
    await page.getByText(feedbackMessages.messageRequired, { exact: true }).waitFor();
    assert.equal(await subject.getAttribute("aria-invalid"), "true");

    const title = `Correction ${process.pid} ${Date.now()}`;
    await subject.fill(title);
    await message.fill("The city of one company is wrong.");
    await page.getByLabel("Email (optional, for a reply)").fill("reader@example.com");
    await send.click();
    await page.getByRole("main").getByRole("status").getByText(feedbackMessages.sent, { exact: true }).waitFor();
    const mail = await waitForMail(server.outboxDir, { to: contactEmail, subject: new RegExp(title) });
    assert.equal(mail.subject, `[Candor feedback] ${title}`);
    assert.match(mail.text, /The city of one company is wrong\./);
    assert.equal(await subject.inputValue(), "", "the form is not reset after sending");
  });

  it("answers a bot that fills the hidden field as if sent, and sends nothing", async () => {
    const page = await newPerson();
    await open(page, paths.feedback());
    const title = `Honeypot ${process.pid} ${Date.now()}`;
    await page.getByLabel("Subject", { exact: true }).fill(title);
    await page.getByLabel("Message", { exact: true }).fill("Buy cheap things now.");
    await page.locator('input[name="website"]').evaluate((input: HTMLInputElement) => (input.value = "spam.example"));
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByRole("main").getByRole("status").getByText(feedbackMessages.sent, { exact: true }).waitFor();
    assert.deepEqual(
      (await sentSubjects()).filter((subject) => subject.includes(title)),
      [],
    );
  });

  it("leaves the contact link out of the footer on the contact page only", async () => {
    const page = await newPerson();
    await open(page, paths.feedback());
    const footer = page.getByRole("contentinfo");
    assert.equal(await footer.getByRole("link", { name: "Contact us" }).count(), 0);
    await open(page, paths.guidelines());
    await footer.getByRole("link", { name: "Contact us" }).waitFor();
  });
});

describe("a request that never reaches the server", () => {
  it("says 'Check your network connection' when a form submission fails in the network", async () => {
    expectProblems(/net::ERR_INTERNET_DISCONNECTED/);
    const { page } = await newMember();
    await open(page, paths.reviewCompany(facts.quietCompany.id));
    await fillCompanyReview(page, { tags: ["Stable"], text: goodText });
    await page.route(
      (url) => url.pathname.endsWith(".data"),
      (route) => (route.request().method() === "POST" ? route.abort("internetdisconnected") : route.continue()),
    );
    await submitButton(page).click();
    await page.getByText(contributionMessages.network, { exact: true }).waitFor();
  });
});

describe("accessibility of the contribution pages", () => {
  const pages = [
    paths.addCompany(),
    paths.reviewCompany(facts.busyCompany.id),
    paths.addManager(facts.busyCompany.id),
    paths.addManagerAlone(),
    `${paths.addManagerAlone()}?company_q=${encodeURIComponent(facts.busyCompany.name)}`,
    paths.reviewManager(facts.managerWithoutReviews.id),
    paths.feedback(),
    "/api",
  ];

  it("has no serious or critical axe violations, signed in", async (t) => {
    const { page } = await newMember();
    const found: string[] = [];
    // Axe keeps a renderer busy for seconds per page: two tabs of the same session share the work.
    const queue = [...pages];
    const tabs = [page, await page.context().newPage()];
    await Promise.all(
      tabs.map(async (tab) => {
        for (let target = queue.shift(); target !== undefined; target = queue.shift()) {
          await open(tab, target);
          const { violations } = await new AxeBuilder({ page: tab }).analyze();
          for (const v of violations) {
            const line = `${target}: ${v.impact} ${v.id}: ${v.help} (${v.nodes.length}× e.g. ${v.nodes[0]?.target})`;
            t.diagnostic(line);
            if (v.impact === "serious" || v.impact === "critical") found.push(line);
          }
        }
      }),
    );
    assert.deepEqual(found.sort(), []);
  });

  it("has no serious or critical axe violations on a form showing the server's errors", async (t) => {
    expectRefusals(400);
    const { page } = await newMember();
    await open(page, paths.addManager(facts.busyCompany.id));
    // Two refusals at once (not a LinkedIn address, no direct reports): the message box and both fields say so.
    await fillManagerFields(page, { ...managerDraft("Axe"), linkedin_url: "example.com/axe" }, "No");
    await fillManagerReview(page, { tags: ["Fair"], text: goodText });
    await submitButton(page).click();
    await assertMessage(page, correctFields);
    await page.locator(".yes-no.invalid .field-error").getByText(contributionMessages.directReports).waitFor();
    await page.locator("#linkedin_url-error").getByText(contributionMessages.linkedin).waitFor();
    const { violations } = await new AxeBuilder({ page }).analyze();
    for (const v of violations) t.diagnostic(`${v.impact} ${v.id}: ${v.help} (${v.nodes[0]?.target})`);
    assert.deepEqual(
      violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help}`),
      [],
    );
  });

  it("never scrolls sideways at 360 px wide", async () => {
    const { page } = await newMember();
    await page.setViewportSize({ width: 360, height: 800 });
    const overflowing: string[] = [];
    for (const target of pages) {
      await open(page, target);
      const { scrollWidth, innerWidth } = await page.evaluate(() => ({
        scrollWidth: document.scrollingElement?.scrollWidth ?? 0,
        innerWidth: window.innerWidth,
      }));
      if (scrollWidth > innerWidth) overflowing.push(`${target}: ${scrollWidth} px in ${innerWidth} px`);
    }
    assert.deepEqual(overflowing, []);
  });
});
