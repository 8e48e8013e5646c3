import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { after, afterEach, describe, it } from "node:test";
import { AxeBuilder } from "@axe-core/playwright";
import type { Page } from "playwright-core";
import { paths } from "#app/lib/paths.ts";
import { closeVisit, launchBrowser, openVisit, type Visit, waitForHydration } from "./support/browser.ts";
import { shareCookies } from "./support/contribute.ts";
import { everyPage, readDemoFacts } from "./support/demo-facts.ts";
import { newEmail, Visitor } from "./support/http.ts";
import { newSecret, root, startServer } from "../support/server.ts";

// The markup does not depend on the engine, so one engine is enough here.
const server = await startServer("sqlite");
const facts = await readDemoFacts(server.databaseUrl);
const browser = await launchBrowser();
const pages = everyPage(facts);
// One browser context signed out and one signed in for the whole file; each test checks what they reported.
const visit: Visit = await openVisit(browser, server.baseURL);
const member: Visit = await openVisit(browser, server.baseURL);
const account = new Visitor(server.baseURL);
await account.signUp(newEmail("axe"), "a long and private passphrase");
await shareCookies(account, member.context);
// A moderator, granted the role from the command line as the operator does, with one report waiting in the queue.
const moderator: Visit = await openVisit(browser, server.baseURL);
const moderatorAccount = new Visitor(server.baseURL);
const moderatorEmail = newEmail("axe-moderator");
await moderatorAccount.signUp(moderatorEmail, "a long and private passphrase");
await promisify(execFile)(process.execPath, ["scripts/admin.ts", "grant", "moderator", moderatorEmail], {
  cwd: root,
  env: { PATH: process.env.PATH, DATABASE_URL: server.databaseUrl, AUTH_SECRET: newSecret(), LOG_LEVEL: "warn" },
});
await shareCookies(moderatorAccount, moderator.context);
const report = await account.post(paths.reportReview(facts.busyCompanyReview.id), { reason: "spam" });
assert.equal(report.status, 200, "the report was not taken");
/** The pages only a signed-in person sees, beside every public page. */
const memberPages = [
  ...pages.map(({ path }) => path),
  paths.account(),
  paths.addCompany(),
  paths.reviewCompany(facts.busyCompany.id),
  paths.addManager(facts.busyCompany.id),
  paths.addManagerAlone(),
  paths.reviewManager(facts.managerWithoutReviews.id),
  paths.verifyWork(),
];
/** What only a moderator sees: the desk with its report, and the home page's header as theirs. */
const moderatorPages = [paths.home(), paths.moderationQueue()];
const widths = [390, 1366];
/** axe's rules whose outcome depends on colours. */
const colourRules = ["color-contrast", "link-in-text-block"];

after(async () => {
  await closeVisit(visit);
  await closeVisit(member);
  await closeVisit(moderator);
  await browser.close();
  assert.equal(await server.stop(), 0, `the server did not shut down cleanly on SIGTERM:\n${server.output()}`);
  assert.doesNotMatch(server.output(), /"level":(50|60)/, "the server logged errors");
});

afterEach(() => {
  assert.deepEqual(
    [...visit.problems.splice(0), ...member.problems.splice(0), ...moderator.problems.splice(0)],
    [],
    "the browser reported console errors, page errors or failed requests",
  );
});

async function open(path: string, width = 1280, { page } = visit): Promise<Page> {
  await page.setViewportSize({ width, height: 800 });
  await page.goto(path);
  await waitForHydration(page);
  // Show what is folded away too (each review's full ratings), so it is checked as well.
  await page.evaluate(() => document.querySelectorAll("details").forEach((details) => (details.open = true)));
  return page;
}

describe("accessibility", () => {
  for (const [who, as, targets] of [
    ["signed out", visit, pages.map(({ path }) => path)],
    ["signed in", member, memberPages],
    ["signed in as a moderator", moderator, moderatorPages],
  ] as const) {
    for (const width of widths) {
      it(`has no axe violations on any page at ${width} px, ${who}`, async (t) => {
        const found: string[] = [];
        for (const path of targets) {
          const page = await open(path, width, as);
          const { violations } = await new AxeBuilder({ page }).analyze();
          for (const v of violations) {
            const line = `${path}: ${v.impact} ${v.id}: ${v.help} (${v.nodes.length}× e.g. ${v.nodes[0]?.target})`;
            t.diagnostic(line);
            found.push(line);
          }
        }
        assert.deepEqual(found, []);
      });
    }
  }

  // The dark scheme follows the system: the same pages, with the system set to dark, keep AA contrast too. Only the
  // colour changes with the scheme (the markup is the one the light passes above checked with every rule), so the
  // dark pass runs axe's rules that read colours: text contrast and links told apart from the text around them.
  for (const width of widths) {
    it(`keeps AA contrast on every page in the dark scheme at ${width} px, signed out, signed in and as a moderator`, async (t) => {
      const found: string[] = [];
      for (const [as, targets] of [
        [visit, pages.map(({ path }) => path)],
        [member, memberPages],
        [moderator, moderatorPages],
      ] as const) {
        await as.page.emulateMedia({ colorScheme: "dark" });
        try {
          for (const path of targets) {
            const page = await open(path, width, as);
            assert.equal(
              await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor),
              "rgb(15, 22, 30)",
              `${path} is not dark`,
            );
            const { violations } = await new AxeBuilder({ page }).withRules(colourRules).analyze();
            for (const v of violations) {
              const line = `${path}: ${v.impact} ${v.id}: ${v.help} (${v.nodes.length}× e.g. ${v.nodes[0]?.target})`;
              t.diagnostic(line);
              found.push(line);
            }
          }
        } finally {
          await as.page.emulateMedia({ colorScheme: "light" });
        }
      }
      assert.deepEqual(found, []);
    });
  }

  for (const width of [360, 1280]) {
    it(`never scrolls sideways at ${width} px wide`, async () => {
      const overflowing: string[] = [];
      for (const { path } of pages) {
        const page = await open(path, width);
        const { scrollWidth, innerWidth } = await page.evaluate(() => ({
          scrollWidth: document.scrollingElement?.scrollWidth ?? 0,
          innerWidth: window.innerWidth,
        }));
        if (scrollWidth > innerWidth) overflowing.push(`${path}: ${scrollWidth} px in ${innerWidth} px`);
      }
      assert.deepEqual(overflowing, []);
    });
  }

  it("makes the skip link the first Tab stop, and it moves focus to the main content", async () => {
    for (const path of [paths.home(), paths.company(facts.busyCompany.id)]) {
      const page = await open(path);
      await page.keyboard.press("Tab");
      const first = await page.evaluate(() => {
        const element = document.activeElement as HTMLElement;
        return {
          text: element.textContent,
          href: element.getAttribute("href"),
          top: element.getBoundingClientRect().top,
        };
      });
      assert.deepEqual({ text: first.text, href: first.href }, { text: "Skip to content", href: "#main" }, path);
      assert.ok(first.top >= 0, "the focused skip link is off screen");
      await page.keyboard.press("Enter");
      assert.equal(await page.evaluate(() => document.activeElement?.id), "main", path);
    }
  });
});
