// npm run measure:forms — how long each contribution form is for a person at a phone, measured in Chromium on the
// built server with the demo data (`npm run build` first): the form's height at 390 px, and a scripted keyboard-only
// person who fills it with Tab, arrow keys, Space and typing, counting Tab presses until Submit and timing the whole
// visit from page load to the page the submission leads to. Prints one JSON line per form, then a table.
import type { Page } from "playwright-core";
import { toastTexts } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { launchBrowser, openVisit, waitForHydration } from "#tests/e2e/support/browser.ts";
import { shareCookies } from "#tests/e2e/support/contribute.ts";
import { readDemoFacts } from "#tests/e2e/support/demo-facts.ts";
import { newClientIp, newEmail, Visitor } from "#tests/e2e/support/http.ts";
import { startServer } from "#tests/support/server.ts";

/** What the keyboard person types into each text field, by field name (a company's under `company_` too). */
const typed: Record<string, string> = {
  name: "Keyboard Works",
  state: "Bavaria",
  city: "Munich",
  website: "keyboard-works.example",
  glassdoor_url: "reviews.example/keyboard-works",
  first_name: "Kim",
  last_name: "Keys",
  title: "Engineering Manager",
  department: "Platform",
  linkedin_url: "linkedin.com/in/kim-keys",
  review_text: "Clear goals, fair reviews and a team that helps each other out.",
};

type Measure = { form: string; heightAt390: number; tabsToSubmit: number; keyboardSeconds: number };

/** The focused element, as the keyboard person sees it. */
async function focused(page: Page) {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLInputElement | null;
    const form = element?.closest("form.review-form");
    return {
      tag: element?.tagName.toLowerCase() ?? "",
      type: element?.getAttribute("type") ?? "",
      name: (element?.getAttribute("name") ?? "").replace(/^company_/, ""),
      value: element?.value ?? "",
      checked: Boolean(element?.checked),
      inForm: Boolean(form),
      tagsChosen: form?.querySelectorAll('input[name="tags"]:checked').length ?? 0,
      isSubmit: element?.tagName === "BUTTON" && element.getAttribute("type") === "submit" && Boolean(form),
    };
  });
}

/**
 * Fills the form with the keyboard only, from the top of the page, and submits it; returns the Tab presses. The
 * submission ends on the page `leavesTo` matches, or, for a review sent with a one-review token, on the review page
 * showing `confirmed`.
 */
async function fillByKeyboard(page: Page, leavesTo: RegExp, confirmed?: string): Promise<number> {
  let tabs = 0;
  const answered = new Set<string>();
  for (;;) {
    await page.keyboard.press("Tab");
    tabs++;
    if (tabs > 400) throw new Error(`no Submit reached on ${page.url()}`);
    const at = await focused(page);
    if (!at.inForm) continue;
    if (at.isSubmit) break;
    if (at.type === "radio" && !answered.has(at.name)) {
      // The first answer of each group: Space chooses the focused one (for a rating, ArrowRight first makes it 2).
      await page.keyboard.press("Space");
      answered.add(at.name);
    } else if (at.type === "checkbox" && at.name === "tags" && at.tagsChosen === 0) {
      await page.keyboard.press("Space");
    } else if (at.tag === "select" && !at.value) {
      // Typing the start of an option's name chooses it, as in any select.
      await page.keyboard.type(at.name === "industry" ? "Information" : "Germany");
    } else if ((at.tag === "textarea" || at.type === "text" || at.type === "") && !at.value && typed[at.name]) {
      await page.keyboard.type(typed[at.name]!);
    }
  }
  await page.keyboard.press("Enter");
  await (
    confirmed
      ? page.getByRole("heading", { name: confirmed, exact: true }).waitFor()
      : page.waitForURL((url) => leavesTo.test(url.pathname))
  ).catch(async (error: unknown) => {
    const said = await page.locator('[role="alert"], .field-error').allTextContents();
    throw new Error(`the submission on ${page.url()} did not go through: ${said.join(" / ")}`, { cause: error });
  });
  return tabs;
}

const server = await startServer("sqlite", {
  env: {
    DEMO_DATA: "always",
    TRUSTED_PROXIES: "127.0.0.1",
    PUBLISH_INTERVAL: "0",
    MANAGER_MIN_REVIEWS: "1",
    PUBLISH_MIN_AUTHORS: "1",
  },
});
const browser = await launchBrowser();
try {
  const facts = await readDemoFacts(server.databaseUrl);
  const forms: Array<{ form: string; path: string; leavesTo: RegExp; confirmed?: string }> = [
    { form: "company review", path: paths.reviewCompany(facts.quietCompany.id), leavesTo: /^\/company\/\d+$/ },
    {
      form: "manager review",
      path: paths.reviewManager(facts.managerWithoutReviews.id),
      leavesTo: /^\/manager-review$/,
      // With JavaScript the review goes with a one-review token and the review page confirms it.
      confirmed: toastTexts["manager-reviewed"],
    },
    { form: "add a company", path: paths.addCompany(), leavesTo: /^\/company\/\d+$/ },
    {
      form: "add a manager at a company",
      path: paths.addManager(facts.companyWithoutManagers.id),
      leavesTo: /^\/manager-profile\/\d+$/,
    },
    { form: "add a manager with their company", path: paths.addManagerAlone(), leavesTo: /^\/manager-profile\/\d+$/ },
  ];
  const results: Measure[] = [];
  for (const { form, path, leavesTo, confirmed } of forms) {
    // Each form adds a company or manager of its own (the same name and website, or LinkedIn page, is refused).
    typed.name = `Keyboard Works ${form}`;
    typed.website = `${form.replaceAll(" ", "-")}.example`;
    typed.linkedin_url = `linkedin.com/in/kim-keys-${form.replaceAll(" ", "-")}`;
    // A new account per form: one review per person per manager, and rate limits per address.
    const ip = newClientIp();
    const visitor = new Visitor(server.baseURL, ip);
    await visitor.signUp(newEmail("measure"), "a long and private passphrase");
    const visit = await openVisit(browser, server.baseURL, {
      viewport: { width: 390, height: 844 },
      extraHTTPHeaders: { "X-Forwarded-For": ip },
    });
    await shareCookies(visitor, visit.context);
    const started = performance.now();
    await visit.page.goto(path);
    await waitForHydration(visit.page);
    const heightAt390 = Math.round(
      await visit.page.locator("form.review-form").evaluate((element) => element.getBoundingClientRect().height),
    );
    const tabsToSubmit = await fillByKeyboard(visit.page, leavesTo, confirmed);
    const keyboardSeconds = Math.round((performance.now() - started) / 100) / 10;
    await visit.context.close();
    const result = { form, heightAt390, tabsToSubmit, keyboardSeconds };
    console.log(JSON.stringify(result));
    results.push(result);
  }
  console.table(results);
} finally {
  await browser.close();
  await server.stop();
}
