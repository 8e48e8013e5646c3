import assert from "node:assert/strict";
import { after, afterEach, describe, it } from "node:test";
import { AxeBuilder } from "@axe-core/playwright";
import type { BrowserContextOptions, Page } from "playwright-core";
import { contributionMessages, messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { companyCriteria, companyYesNoQuestions, managerYesNoQuestions } from "#app/lib/ratings.ts";
import { companyTags } from "#app/lib/tags.ts";
import { closeVisit, launchBrowser, openVisit, type Visit, waitForHydration } from "./support/browser.ts";
import { fillCompanyReview, fillManagerReview, shareCookies, tagBox } from "./support/contribute.ts";
import { readDemoFacts } from "./support/demo-facts.ts";
import { newClientIp, newEmail, Visitor } from "./support/http.ts";
import { startServer } from "../support/server.ts";

// The review forms and the look of the site as a person meets them, in Chromium: what they typed survives an ended
// session and a reload, the forms say what is missing, and nothing spills out of its box at a phone's width or a
// laptop's. The markup does not depend on the engine: SQLite only. Reviews are published at once (the test servers'
// default), so a submission can be looked for.
const [server, browser] = await Promise.all([
  startServer("sqlite", {
    env: {
      DEMO_DATA: "always",
      TRUSTED_PROXIES: "127.0.0.1",
    },
  }),
  launchBrowser(),
]);
const facts = await readDemoFacts(server.databaseUrl);
const password = "a long and private passphrase";
const goodText = "Clear goals, fair reviews and a team that helps each other out.";
const phone = { width: 390, height: 844 };
const laptop = { width: 1366, height: 768 };

let visits: Visit[] = [];
/** Refusals the current test provokes on purpose (Chromium logs every 4xx answer as a failed resource). */
let expectedStatuses: number[] = [];

after(async () => {
  await browser.close();
  assert.equal(await server.stop(), 0, `the server did not shut down cleanly on SIGTERM:\n${server.output()}`);
  assert.doesNotMatch(server.output(), /"level":(50|60)/, "the server logged errors");
});

afterEach(async () => {
  const problems: string[] = [];
  for (const visit of visits) problems.push(...(await closeVisit(visit)));
  visits = [];
  const expected = expectedStatuses.map((status) => `the server responded with a status of ${status} `);
  expectedStatuses = [];
  assert.deepEqual(
    problems.filter((problem) => !expected.some((text) => problem.includes(text))),
    [],
    "the browser reported console errors, page errors or failed requests",
  );
});

async function newPerson(options: BrowserContextOptions = {}, ip = newClientIp()): Promise<Page> {
  const visit = await openVisit(browser, server.baseURL, { ...options, extraHTTPHeaders: { "X-Forwarded-For": ip } });
  visits.push(visit);
  return visit.page;
}

/** A signed-in person at a browser of their own, with the e-mail address to sign in again. */
async function newMember(options: BrowserContextOptions = {}): Promise<{ page: Page; email: string }> {
  const ip = newClientIp();
  const visitor = new Visitor(server.baseURL, ip);
  const email = newEmail("look");
  await visitor.signUp(email, password);
  const page = await newPerson(options, ip);
  await shareCookies(visitor, page.context());
  return { page, email };
}

async function open(page: Page, target: string): Promise<void> {
  await page.goto(target);
  await waitForHydration(page);
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

/** Signs out in a second tab of the same browser, as a person whose session ends elsewhere. */
async function signOutInAnotherTab(page: Page): Promise<void> {
  const other = await page.context().newPage();
  await open(other, paths.guidelines());
  await other.getByRole("banner").getByRole("button", { name: messages.signOut }).click();
  await other.getByRole("banner").getByRole("link", { name: messages.signIn }).waitFor();
  await other.close();
}

async function signIn(page: Page, email: string): Promise<void> {
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("main").getByRole("button", { name: messages.signIn }).click();
}

function submitButton(page: Page) {
  return page.getByRole("main").getByRole("button", { name: "Submit", exact: true });
}

describe("a session that ends while a review is being written", () => {
  it("sends to sign in with the page's own address, and the typed review is there again afterwards", async () => {
    const { page, email } = await newMember();
    const companyId = facts.quietCompany.id;
    const text = "Honest planning and kind people, written just before the session ended.";
    await open(page, paths.reviewCompany(companyId));
    await fillCompanyReview(page, { rating: 2, tags: ["Stable", "Hybrid"], text });
    await signOutInAnotherTab(page);

    await submitButton(page).click();
    await waitForPath(page, paths.signIn(paths.reviewCompany(companyId)));
    assert.doesNotMatch(pathOf(page), /\.data/);
    await waitForHydration(page);
    await signIn(page, email);
    await waitForPath(page, paths.reviewCompany(companyId));
    await waitForHydration(page);

    const review = page.getByLabel("Your review", { exact: true });
    await page.waitForFunction((expected) => {
      const field = document.querySelector<HTMLTextAreaElement>('[name="review_text"]');
      return field?.value === expected;
    }, text);
    assert.equal(await review.inputValue(), text);
    assert.equal(await tagBox(page, "Stable").isChecked(), true);
    assert.equal(await tagBox(page, "Hybrid").isChecked(), true);
    for (const criterion of companyCriteria) {
      assert.equal(await page.locator(`input[name="${criterion}"][value="2"]`).isChecked(), true, criterion);
    }
    await submitButton(page).click();
    await waitForPath(page, paths.company(companyId));
    await page.getByText(text, { exact: true }).waitFor();

    // Accepted: the draft is gone, the next review starts empty.
    await open(page, paths.reviewCompany(companyId));
    assert.equal(await page.getByLabel("Your review", { exact: true }).inputValue(), "");
    const drafts = await page.evaluate(() =>
      Object.keys(sessionStorage).filter((key) => key.startsWith("candor-draft")),
    );
    assert.deepEqual(drafts, []);
  });

  it("comes back to the page's own address from a link followed after the session ended", async () => {
    const { page } = await newMember();
    const companyId = facts.busyCompany.id;
    await open(page, paths.company(companyId));
    await signOutInAnotherTab(page);
    await page.getByRole("main").getByRole("link", { name: "Add review" }).first().click();
    await waitForPath(page, paths.signIn(paths.reviewCompany(companyId)));

    // The same for the other guarded pages, reached by a navigation inside the site (a plain link would load the
    // whole page; React Router's own navigation is the one that asks the server for `.data`).
    for (const target of [paths.addCompany(), paths.addManager(companyId), paths.addManagerAlone(), paths.account()]) {
      await open(page, paths.guidelines());
      await page.evaluate((href) => {
        const router = (window as unknown as { __reactRouterDataRouter: { navigate: (to: string) => unknown } })
          .__reactRouterDataRouter;
        void router.navigate(href);
      }, target);
      await waitForPath(page, paths.signIn(target));
    }
  });

  it("keeps a manager review typed after the session ended, through the sign-in link on the refusal", async () => {
    const { page, email } = await newMember();
    expectedStatuses.push(401);
    const managerId = facts.managerWithoutReviews.id;
    const text = "Fair, calm and always prepared, written just after the session ended.";
    await open(page, paths.reviewManager(managerId));
    // The session ends before Submit, so the one-review token asked for at Submit is refused (a token obtained
    // before would still send the review: it needs no session).
    await signOutInAnotherTab(page);
    await fillManagerReview(page, { rating: 5, tags: ["Mentor"], text });
    await submitButton(page).click();
    await page.getByRole("alert").getByText(contributionMessages.mustSignIn, { exact: true }).waitFor();
    await page.getByRole("main").getByRole("link", { name: messages.signIn }).click();
    await waitForPath(page, paths.signIn(paths.reviewManager(managerId)));
    await waitForHydration(page);
    await signIn(page, email);
    await waitForPath(page, paths.reviewManager(managerId));
    await page.waitForFunction((expected) => {
      const field = document.querySelector<HTMLTextAreaElement>('[name="review_text"]');
      return field?.value === expected;
    }, text);
    assert.equal(await tagBox(page, "Mentor").isChecked(), true);
  });

  it("keeps the draft across a reload, in this tab only", async () => {
    const { page } = await newMember();
    await open(page, paths.reviewCompany(facts.busyCompany.id));
    await page.getByLabel("Your review", { exact: true }).fill("Draft kept across a reload.");
    await page.reload();
    await waitForHydration(page);
    await page.waitForFunction(
      () =>
        document.querySelector<HTMLTextAreaElement>('[name="review_text"]')?.value === "Draft kept across a reload.",
    );
    const other = await page.context().newPage();
    await open(other, paths.reviewCompany(facts.busyCompany.id));
    assert.equal(await other.getByLabel("Your review", { exact: true }).inputValue(), "", "another tab sees the draft");
  });
});

describe("the review forms", () => {
  it("asks about the manager, not the company, on every manager form", async () => {
    const { page } = await newMember();
    for (const target of [
      paths.reviewManager(facts.managerWithoutReviews.id),
      paths.addManager(facts.busyCompany.id),
      paths.addManagerAlone(),
    ]) {
      await open(page, target);
      const legends = await page.locator(".yes-no-grid .yes-no legend").allTextContents();
      assert.deepEqual(legends, Object.values(managerYesNoQuestions), target);
      assert.ok(!legends.includes(companyYesNoQuestions.again), `${target} asks "${companyYesNoQuestions.again}"`);
    }
    await open(page, paths.reviewCompany(facts.busyCompany.id));
    assert.deepEqual(await page.locator(".yes-no legend").allTextContents(), Object.values(companyYesNoQuestions));
  });

  it("lists what is still missing beside the disabled Submit, each item leading to its question", async () => {
    const { page } = await newMember();
    await open(page, paths.reviewCompany(facts.busyCompany.id));
    const items = page.locator("#still-missing li");
    const labels = () => items.allTextContents();
    assert.equal(await submitButton(page).isDisabled(), true);
    assert.deepEqual((await labels()).slice(0, 2), ["Reputation", "Opportunities"]);
    assert.equal(await items.count(), companyCriteria.length + 3 + 2, "13 ratings, 3 questions, tags and text");

    await page.locator('input[name="reputation"][value="4"]').check();
    await page.waitForFunction(() => document.querySelector("#still-missing li")?.textContent === "Opportunities");
    await page.locator("#still-missing").getByRole("link", { name: "Tags" }).click();
    assert.equal(new URL(page.url()).hash, "#tags-field");

    await fillCompanyReview(page, { tags: ["Stable"], text: goodText });
    await page.waitForFunction(() => document.querySelectorAll("#still-missing li").length === 0);
    assert.equal(await submitButton(page).isDisabled(), false);
  });

  it("makes the tags one Tab stop, moved through with the arrow keys and chosen with Space", async () => {
    const { page } = await newMember();
    await open(page, paths.reviewManager(facts.managerWithoutReviews.id));
    const boxes = page.locator('input[name="tags"]');
    const first = (await boxes.first().getAttribute("value"))!;
    const second = (await boxes.nth(1).getAttribute("value"))!;
    await boxes.first().focus();
    await page.keyboard.press("ArrowRight");
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).value), second);
    await page.keyboard.press("Space");
    assert.equal(await tagBox(page, second).isChecked(), true);
    await page.keyboard.press("ArrowLeft");
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).value), first);
    // Tab leaves the group at once: the next stop is the review text.
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("name")), "review_text");
    await page.keyboard.press("Shift+Tab");
    assert.equal(await page.evaluate(() => (document.activeElement as HTMLInputElement).value), first);
  });

  it("guides through numbered sections, each saying what it still needs, with the form's progress beside Submit", async () => {
    const { page } = await newMember();
    await open(page, paths.reviewCompany(facts.quietCompany.id));
    const sections = page.locator("form.review-form section.form-section");
    assert.deepEqual(await sections.locator("h2").allTextContents(), [
      "Rate the company",
      "A few questions",
      "Tags and your words",
    ]);
    const statuses = () => sections.locator(".section-status").allTextContents();
    // The counts are the script's: wait for the third section's before reading them.
    await sections.locator(".section-status").nth(2).waitFor();
    const progress = page.locator("progress#form-progress");
    const total = companyCriteria.length + Object.keys(companyYesNoQuestions).length + 2;
    assert.deepEqual(await statuses(), [`${companyCriteria.length} to answer`, "3 to answer", "2 to answer"]);
    assert.equal(await progress.getAttribute("max"), String(total));
    assert.equal(await progress.getAttribute("value"), "0");

    await fillCompanyReview(page, { tags: [], text: "" });
    // Each section counts its own answers as they come: wait for the last one answered, not only the first.
    await page.waitForFunction(
      () => [...document.querySelectorAll(".section-status")].filter((s) => s.textContent === "Done").length === 2,
    );
    assert.deepEqual(await statuses(), ["Done", "Done", "2 to answer"]);
    assert.equal(await progress.getAttribute("value"), String(total - 2));
  });

  it("puts each rating on one line at a phone's width, the scale's words once above them", async () => {
    const { page } = await newMember({ viewport: phone });
    await open(page, paths.reviewManager(facts.managerWithoutReviews.id));
    const rows = await page.locator(".rating-input").evaluateAll((fieldsets) =>
      fieldsets.map((fieldset) => {
        const legend = fieldset.querySelector("legend")!.getBoundingClientRect();
        const options = fieldset.querySelector(".rating-options")!.getBoundingClientRect();
        return { name: fieldset.querySelector("legend")!.textContent, legend, options };
      }),
    );
    for (const { name, legend, options } of rows) {
      assert.ok(options.left >= legend.right - 1, `${name}: the values sit under the question`);
      assert.ok(options.top < legend.bottom && legend.top < options.bottom, `${name}: not on one line`);
    }
    assert.equal(
      await page.locator(".scale-key").textContent(),
      "1 Awful2 Ok3 Good4 Great5 Awesome",
      "the scale's key",
    );
    // The words stay in each value's name for a screen reader.
    await page.getByRole("radio", { name: "4 Great" }).first().waitFor({ state: "attached" });
  });

  it("folds the tags to a few lines, finds one by part of its name, and keeps the chosen ones in view", async () => {
    const { page } = await newMember({ viewport: phone });
    await open(page, paths.reviewCompany(facts.busyCompany.id));
    const options = page.locator(".tag-options");
    const folded = await options.evaluate((element) => element.getBoundingClientRect().height);
    assert.ok(folded < 130, `the tags take ${folded} px folded`);
    const search = page.getByLabel("Find a tag", { exact: true });
    await search.fill("ment");
    const shown = await page
      .locator(".tag-option:not([hidden]) input")
      .evaluateAll((boxes) => boxes.map((box) => (box as HTMLInputElement).value));
    assert.ok(shown.length > 0 && shown.length < 10, `shown: ${shown.join(", ")}`);
    for (const tag of shown) assert.match(tag, /ment/i);
    await page.locator("#tags-found").getByText(`${shown.length} of `).waitFor();
    const last = shown.at(-1)!;
    await tagBox(page, last).check();
    await search.fill("");
    await page.reload();
    await waitForHydration(page);
    // Folded again after the reload (the draft brought the tag back): the chosen tag is in view, first.
    await page.waitForFunction((tag) => {
      const box = document.querySelector<HTMLInputElement>(`input[name="tags"][value="${tag}"]`);
      return box?.checked === true;
    }, last);
    const inView = await tagBox(page, last).evaluate((box) => {
      const list = box.closest(".tag-options")!.getBoundingClientRect();
      const own = box.parentElement!.getBoundingClientRect();
      return own.top >= list.top && own.bottom <= list.bottom;
    });
    assert.equal(inView, true, "the chosen tag is folded away");
    // What was typed into the tag search is not part of the review: not in the draft.
    const draft = await page.evaluate(
      () => Object.entries(sessionStorage).find(([key]) => key.startsWith("candor-draft"))?.[1],
    );
    assert.ok(draft, "no draft");
    const kept = Object.values(JSON.parse(draft) as Record<string, string | string[]>).flat();
    assert.ok(kept.includes(last) && !kept.includes("ment"), draft);
  });

  it("takes a click on a choice's visible word, and on a tag still folded away, as a choice of it", async () => {
    const { page } = await newMember({ viewport: phone });
    await open(page, paths.search());
    await waitForHydration(page);
    // The words themselves, as a person (or a test written from the spec) clicks them.
    await page.getByText("Manager", { exact: true }).click();
    assert.equal(await page.getByRole("radio", { name: "Manager" }).isChecked(), true);
    await page.getByRole("radio", { name: "Company" }).check();

    await open(page, paths.reviewCompany(facts.busyCompany.id));
    await waitForHydration(page);
    const last = companyTags.at(-1)!;
    // The last tag lies in the folded part of the list: checking it neither unfolds the list under the pointer
    // nor chooses another tag.
    await page.getByRole("checkbox", { name: last, exact: true }).check();
    await page.getByText(companyTags[0]!, { exact: true }).click();
    const chosen = await page
      .locator('input[name="tags"]:checked')
      .evaluateAll((boxes) => boxes.map((box) => (box as HTMLInputElement).value));
    assert.deepEqual(chosen.toSorted(), [companyTags[0]!, last].toSorted());
    await page.getByText("Yes", { exact: true }).first().click();
    assert.equal(await page.locator('input[type="radio"][value="Yes"]:checked').count(), 1);
  });

  it("offers industries from the fixed list, the country's known cities, and the country chosen on the search page", async () => {
    const { page } = await newMember({ viewport: laptop });
    const country = facts.busyCompany.country;
    const known = (await (await fetch(new URL(paths.apiKnownCities(country), server.baseURL))).json()) as {
      items: Array<{ city: string; state: string }>;
    };
    assert.ok(known.items.length > 0, "no known city in the demo data");

    await open(page, paths.search({ country, q: "" }));
    await page.getByRole("main").getByRole("link", { name: "Add company" }).click();
    await waitForPath(page, paths.addCompany(country));
    await waitForHydration(page);
    assert.equal(await page.getByLabel("Country", { exact: true }).inputValue(), country);

    const industry = page.getByLabel("Industry", { exact: true });
    assert.equal(await industry.evaluate((element) => element.tagName), "SELECT");
    const industries = await industry.evaluate((select) => select.querySelectorAll("option:not([disabled])").length);
    assert.equal(industries, 21, "the ISIC sections");
    await page.waitForFunction(
      (city) =>
        Array.from(document.querySelectorAll("#city-list option")).some((o) => (o as HTMLOptionElement).value === city),
      known.items[0]!.city,
    );
    await page.getByLabel("City", { exact: true }).fill(known.items[0]!.city);
    assert.equal(await page.getByLabel("State or region", { exact: true }).inputValue(), known.items[0]!.state);
  });

  it("suggests the carried country's known cities without JavaScript, and a company's when adding a manager there", async () => {
    const { page } = await newMember({ viewport: laptop, javaScriptEnabled: false });
    const country = facts.busyCompany.country;
    const known = (await (await fetch(new URL(paths.apiKnownCities(country), server.baseURL))).json()) as {
      items: Array<{ city: string; state: string }>;
    };
    const cities = (selector: string) =>
      page.locator(selector).evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
    await page.goto(paths.addCompany(country));
    assert.equal(await page.getByLabel("City", { exact: true }).getAttribute("list"), "city-list");
    assert.deepEqual(
      await cities("#city-list option"),
      known.items.map((item) => item.city),
    );
    await page.goto(paths.addManager(facts.busyCompany.id));
    assert.deepEqual(
      await cities("#city-list option"),
      known.items.map((item) => item.city),
    );
  });

  it("starts a manager added at a company in the company's city and state", async () => {
    const { page } = await newMember({ viewport: laptop });
    await open(page, paths.company(facts.busyCompany.id));
    const place = (await page.locator("main").textContent()) ?? "";
    await open(page, paths.addManager(facts.busyCompany.id));
    const city = await page.getByLabel("City", { exact: true }).inputValue();
    const state = await page.getByLabel("State or region", { exact: true }).inputValue();
    assert.ok(city && state, "no city or state to start with");
    assert.ok(place.includes(city), `${city} is not the company's city`);
  });

  it("gives the department field the look of every other text field", async () => {
    const { page } = await newMember();
    await open(page, paths.addManagerAlone());
    const department = page.getByLabel("Department (optional)");
    assert.equal(await department.getAttribute("type"), "text");
    const style = (name: string) =>
      page.locator(`[name="${name}"]`).evaluate((element) => {
        const { borderTopWidth, borderTopColor, borderRadius, paddingLeft, height } = getComputedStyle(element);
        return { borderTopWidth, borderTopColor, borderRadius, paddingLeft, height };
      });
    assert.deepEqual(await style("department"), await style("first_name"));
  });
});

/** Elements matching `selector` whose content is wider or taller than their box, or sits outside it. */
async function spilling(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluateAll((elements) =>
    elements.flatMap((element) => {
      const box = element.getBoundingClientRect();
      const range = document.createRange();
      range.selectNodeContents(element);
      const content = range.getBoundingClientRect();
      const outside =
        content.left < box.left - 0.5 ||
        content.right > box.right + 0.5 ||
        content.top < box.top - 0.5 ||
        content.bottom > box.bottom + 0.5;
      return outside || element.scrollWidth > element.clientWidth + 1 ? [element.textContent ?? ""] : [];
    }),
  );
}

function overlaps(a: DOMRect | null, b: DOMRect | null): boolean {
  if (!a || !b) return false;
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

/** The contrast ratio of two CSS colours (WCAG's relative luminance). */
function contrast(a: string, b: string): number {
  const luminance = (color: string) => {
    const [r, g, b] = (color.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((part) => {
      const channel = Number(part) / 255;
      return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}

describe("the look at a phone's width and a laptop's", () => {
  for (const viewport of [phone, laptop]) {
    it(`keeps every rating label inside its button at ${viewport.width} px`, async () => {
      const { page } = await newMember({ viewport });
      for (const target of [
        paths.reviewCompany(facts.busyCompany.id),
        paths.reviewManager(facts.managerWithoutReviews.id),
      ]) {
        await open(page, target);
        assert.deepEqual(await spilling(page, ".rating-option span"), [], target);
        assert.deepEqual(await spilling(page, ".yes-no-card span"), [], target);
      }
    });
  }

  it("shows the score and the start of the first review on a phone's first screen, on company and manager pages", async () => {
    const page = await newPerson({ viewport: phone });
    for (const target of [paths.manager(facts.manager.id), paths.company(facts.busyCompany.id)]) {
      await open(page, target);
      const boxes = await page.evaluate(() => {
        const bottom = (selector: string) => document.querySelector(selector)?.getBoundingClientRect().bottom ?? NaN;
        const top = (selector: string) => document.querySelector(selector)?.getBoundingClientRect().top ?? NaN;
        return {
          screen: window.innerHeight,
          score: bottom(".headline .score"),
          firstReviewHead: bottom(".review-list .review-card .review-head"),
          firstReviewText: top(".review-list .review-card .review-text"),
        };
      });
      assert.ok(boxes.score <= boxes.screen, `${target}: the score ends at ${boxes.score} px of ${boxes.screen}`);
      assert.ok(
        boxes.firstReviewHead <= boxes.screen && boxes.firstReviewText + 24 <= boxes.screen,
        `${target}: the first review's text starts at ${boxes.firstReviewText} px of ${boxes.screen}`,
      );
    }
  });

  it("draws the logo as one image named Candor whose letters take the header's text colour, light and dark", async () => {
    for (const colorScheme of ["light", "dark"] as const) {
      const page = await newPerson({ viewport: phone, colorScheme });
      await open(page, paths.search());
      const logo = page.getByRole("banner").getByRole("img", { name: messages.siteName, exact: true });
      assert.equal(await logo.evaluate((svg) => svg.tagName), "svg");
      const colours = await logo.evaluate((svg) => ({
        letters: getComputedStyle(svg.querySelector("g[stroke]")!).stroke,
        header: getComputedStyle(svg.closest("header")!).color,
        text: svg.querySelector("text") === null,
      }));
      assert.equal(colours.letters, colours.header, `${colorScheme}: the wordmark is not in the header's colour`);
      assert.ok(colours.text, "the wordmark depends on a font");
    }
  });

  it("keeps Sign out on one line and the toast clear of the logo on a phone", async () => {
    const { page, email } = await newMember({ viewport: phone });
    await open(page, paths.guidelines());
    const signOut = page.getByRole("banner").getByRole("button", { name: messages.signOut });
    const lines = await signOut.evaluate((button) => {
      const range = document.createRange();
      range.selectNodeContents(button);
      return new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top))).size;
    });
    assert.equal(lines, 1, "Sign out wraps");
    await signOut.click();
    await page.getByRole("banner").getByRole("link", { name: messages.signIn }).click();
    // Signing out leads to the search, which may have moved on to the browser's country: sign-in returns there.
    await waitForPath(page, /^\/signin(\?redirectTo=%2Fsearch%3F[^&]*)?$/);
    await waitForHydration(page);
    await signIn(page, email);
    const toast = page.locator(".toast");
    await toast.waitFor();
    const [toastBox, brandBox, navBox] = await Promise.all([
      toast.evaluate((element) => element.getBoundingClientRect().toJSON() as DOMRect),
      page.locator(".brand").evaluate((element) => element.getBoundingClientRect().toJSON() as DOMRect),
      page.getByRole("navigation", { name: "Main" }).evaluate((e) => e.getBoundingClientRect().toJSON() as DOMRect),
    ]);
    assert.equal(overlaps(toastBox, brandBox), false, "the toast covers the logo");
    assert.equal(overlaps(toastBox, navBox), false, "the toast covers the navigation");
    assert.ok(toastBox.right <= phone.width && toastBox.left >= 0, "the toast leaves the screen");
  });

  it("draws a focus ring of at least 3:1 against what surrounds it, in the page and in the header", async () => {
    const page = await newPerson({ viewport: laptop });
    await open(page, paths.guidelines());
    for (const locator of [
      page.getByRole("main").getByRole("link").first(),
      page.getByRole("banner").getByRole("link").first(),
      page.getByRole("contentinfo").getByRole("link").first(),
    ]) {
      await locator.focus();
      await page.keyboard.press("Shift+Tab");
      await page.keyboard.press("Tab");
      const { ring, background } = await locator.evaluate((element) => {
        let behind: Element | null = element.parentElement;
        let color = "rgba(0, 0, 0, 0)";
        while (behind) {
          color = getComputedStyle(behind).backgroundColor;
          if (!/rgba\(.*, 0\)$/.test(color) && color !== "transparent") break;
          behind = behind.parentElement;
        }
        return { ring: getComputedStyle(element).outlineColor, background: behind ? color : "rgb(255, 255, 255)" };
      });
      const ratio = contrast(ring, background);
      assert.ok(ratio >= 3, `focus ring ${ring} on ${background}: ${ratio.toFixed(2)}:1`);
    }
  });

  it("has no axe violations on /api at a phone's width", async (t) => {
    const page = await newPerson({ viewport: phone });
    await open(page, "/api");
    const { violations } = await new AxeBuilder({ page }).analyze();
    for (const v of violations) t.diagnostic(`${v.impact} ${v.id}: ${v.help} (${v.nodes[0]?.target})`);
    assert.deepEqual(
      violations.map((v) => v.id),
      [],
    );
  });
});

describe("the rating scale", () => {
  it("colours each bar by its word on the scale, and every bar says its value in words too", async () => {
    const page = await newPerson({ viewport: laptop });
    await open(page, paths.company(facts.busyCompany.id));
    await page.evaluate(() => document.querySelectorAll("details").forEach((details) => (details.open = true)));
    const rows = await page.locator(".bar-row dd").evaluateAll((cells) =>
      cells.map((cell) => ({
        words: cell.querySelector(".bar-value")?.textContent ?? "",
        fill: getComputedStyle(cell.querySelector(".bar-fill")!).fill,
      })),
    );
    const fillOf = new Map<string, Set<string>>();
    for (const { words, fill } of rows) {
      const word = /· (Awful|Ok|Good|Great|Awesome)$/.exec(words)?.[1];
      assert.ok(word, `a bar without its value in words: "${words}"`);
      fillOf.set(word, (fillOf.get(word) ?? new Set()).add(fill));
    }
    assert.ok(fillOf.size >= 2, "the demo company's bars show a single word of the scale");
    for (const [word, fills] of fillOf) assert.equal(fills.size, 1, `${word} bars in several colours`);
    const colours = [...fillOf.values()].map((fills) => [...fills][0]);
    assert.equal(new Set(colours).size, colours.length, "two words of the scale share a colour");
  });
});

describe("search", () => {
  it("keeps what is typed right after a country is chosen, and searches for it", async () => {
    const page = await newPerson({ viewport: laptop });
    await open(page, paths.search());
    const term = facts.busyCompany.name.slice(0, 6);
    await page.getByLabel("Country", { exact: true }).selectOption(facts.busyCompany.country);
    const box = page.getByLabel("Company name", { exact: true });
    await box.pressSequentially(term, { delay: 10 });
    await waitForPath(page, /country=/);
    await page
      .getByRole("region", { name: "Results" })
      .getByRole("heading", { name: facts.busyCompany.name })
      .first()
      .waitFor();
    assert.equal(await box.inputValue(), term);
  });

  it("keeps focus on the country list while ArrowDown moves through it", async () => {
    const page = await newPerson({ viewport: laptop });
    await open(page, paths.search({ kind: "company", country: "US", q: "" }));
    const country = page.getByLabel("Country", { exact: true });
    await country.focus();
    await page.keyboard.press("ArrowDown");
    await waitForPath(page, /country=(?!US)/);
    await page.keyboard.press("ArrowDown");
    await page.waitForFunction(() => !new URL(location.href).search.includes("country=US"));
    assert.equal(await page.evaluate(() => document.activeElement?.id), "country", "focus left the country list");
  });

  it("announces how many results were found in a live region", async () => {
    const page = await newPerson({ viewport: laptop });
    await open(page, paths.search({ kind: "company", country: facts.busyCompany.country, q: "" }));
    const status = page.getByRole("region", { name: "Results" }).locator('[role="status"]').first();
    // Before a term, the country's lists are said; then what typing finds.
    assert.match((await status.textContent()) ?? "", /^Most reviewed and best rated companies in /);
    await page.getByLabel("Company name", { exact: true }).fill(facts.busyCompany.name);
    await page.waitForFunction(() =>
      /^\d+ compan(y|ies) found/.test(document.querySelector('.results [role="status"]')?.textContent ?? ""),
    );
    await page.getByLabel("Company name", { exact: true }).fill("zqxjv");
    await page.waitForFunction(
      () => document.querySelector('.results [role="status"]')?.textContent === "0 companies found",
    );
  });
});

describe("one name per action", () => {
  it("shows a signed-out visitor the same working Add company link as a member, saying it asks to sign in first", async () => {
    const style = (page: Page) =>
      page
        .getByRole("main")
        .getByRole("link", { name: "Add company", exact: true })
        .evaluate((link) => {
          const { opacity, color, backgroundColor, borderTopColor, cursor, filter } = getComputedStyle(link);
          return { opacity, color, backgroundColor, borderTopColor, cursor, filter, disabled: link.ariaDisabled };
        });
    // Browsers whose language names no country: the search stays without one, and so does the form it leads to.
    const page = await newPerson({ viewport: laptop, locale: "eo" });
    await open(page, paths.search());
    const { page: member } = await newMember({ viewport: laptop, locale: "eo" });
    await open(member, paths.search());
    assert.deepEqual(await style(page), await style(member));
    const link = page.getByRole("main").getByRole("link", { name: "Add company", exact: true });
    assert.match((await link.getAttribute("aria-describedby")) ?? "", /add-hint/);
    assert.match((await page.locator("#add-hint").textContent()) ?? "", new RegExp(`^${messages.signIn} first`));
    await link.click();
    await waitForPath(page, paths.signIn(paths.addCompany()));
  });
  it("says Sign In on the header, the sign-in form and the landing page, and Sign out once signed in", async () => {
    const page = await newPerson({ viewport: laptop });
    await open(page, paths.landing());
    const main = page.getByRole("main");
    await main.getByRole("link", { name: messages.signIn, exact: true }).waitFor();
    assert.equal(await page.getByText(/\bLogin\b/).count(), 0);
    await open(page, paths.signIn());
    await main.getByRole("button", { name: messages.signIn, exact: true }).waitFor();
    assert.equal(await main.getByRole("button", { name: "Submit" }).count(), 0);

    const { page: member } = await newMember({ viewport: laptop });
    await open(member, paths.landing());
    await member.getByRole("main").getByRole("button", { name: messages.signOut, exact: true }).waitFor();
    assert.equal(await member.getByRole("main").getByRole("link", { name: messages.signIn }).count(), 0);
  });
});
