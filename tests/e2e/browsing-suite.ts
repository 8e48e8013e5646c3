import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { Browser, BrowserContextOptions, Locator, Page } from "playwright-core";
import { reviewListMessages } from "#app/domain/reviews.server.ts";
import { countryName } from "#app/lib/countries.server.ts";
import { feedMessages, messages, summaryMessages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { companyCriteria, companyCriteriaGroups, criterionLabels } from "#app/lib/ratings.ts";
import { closeVisit, launchBrowser, openVisit, type Visit, waitForHydration } from "./support/browser.ts";
import { type DemoFacts, readDemoFacts, unmatchedTerm } from "./support/demo-facts.ts";
import { newEmail, Visitor } from "./support/http.ts";
import { type Engine, readDatabase, type RunningServer, startServer } from "../support/server.ts";

/**
 * A browser whose language names no country (Esperanto: its region is the world), so the search page preselects
 * none and starts at the Country placeholder.
 */
const noCountryLocale = { locale: "eo" };

const monthFormat = new Intl.DateTimeFormat("en", { month: "long", timeZone: "UTC" });
const monthNames = Array.from({ length: 12 }, (_, month) => monthFormat.format(Date.UTC(2000, month, 1)));

/** "Posted in March 2025" → a number that grows with time; fails on anything that is not a month and a year. */
function monthOrdinal(reviewDate: string): number {
  const match = /^Posted in ([A-Z][a-z]+) (\d{4})$/.exec(reviewDate.trim());
  assert.ok(match, `"${reviewDate}" is not a month and a year`);
  const month = monthNames.indexOf(match[1]!);
  assert.ok(month >= 0, `"${match[1]}" is not a month`);
  return Number(match[2]) * 12 + month;
}

async function text(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? "").replace(/\s+/g, " ").trim();
}

function heading(page: Page): Locator {
  return page.getByRole("heading", { level: 1 });
}

/** The month-year dates of the reviews on the page, once exactly `count` reviews are shown. */
async function reviewDates(page: Page, count: number): Promise<string[]> {
  const dates = page.locator(".review-list .review-date");
  if (count > 0) await dates.nth(count - 1).waitFor();
  await dates.nth(count).waitFor({ state: "detached" });
  return dates.allTextContents();
}

/**
 * A company's headline figures aggregated afresh from its reviews (no removal happens in these tests), to hold the
 * page's stored-aggregate figures against.
 */
async function freshCompanyFigures(server: RunningServer, companyId: number) {
  const total = companyCriteria.join(" + ");
  const rows = await readDatabase(
    { engine: server.engine, url: server.databaseUrl },
    `select (${total}) as total, again, recommend from company_reviews where company_id = ${Number(companyId)}`,
  );
  const count = rows.length;
  const sum = rows.reduce((acc, row) => acc + Number(row.total), 0);
  const overall = [0, 0, 0, 0, 0];
  for (const row of rows) overall[Math.floor(Number(row.total) / companyCriteria.length) - 1]! += 1;
  const share = (key: string) => Math.round((rows.filter((row) => Number(row[key]) === 1).length / count) * 100);
  return {
    mean: Math.round((sum / (count * companyCriteria.length)) * 10) / 10,
    againPercent: share("again"),
    recommendPercent: share("recommend"),
    overall,
  };
}

/** The browsing tests: every page with the demo data, signed out, on one database engine. */
export function describeBrowsing(engine: Engine): void {
  describe(`browsing the demo data on ${engine}`, () => {
    let server: RunningServer;
    let browser: Browser;
    let facts: DemoFacts;
    let visit: Visit | undefined;

    before(async () => {
      server = await startServer(engine);
      facts = await readDemoFacts(server.databaseUrl);
      browser = await launchBrowser();
    });

    after(async () => {
      await browser?.close();
      if (!server) return; // It never started: `before` has already failed the suite.
      const code = await server.stop();
      assert.equal(code, 0, `the server did not shut down cleanly on SIGTERM:\n${server.output()}`);
      assert.doesNotMatch(server.output(), /"level":(50|60)/, "the server logged errors");
    });

    afterEach(async () => {
      const problems = await closeVisit(visit);
      visit = undefined;
      assert.deepEqual(problems, [], "the browser reported console errors, page errors or failed requests");
    });

    /** Opens `path` in a fresh browser context (a test that opens several pages checks each one's problems). */
    async function open(path: string, options: BrowserContextOptions = {}) {
      assert.deepEqual(await closeVisit(visit), [], "the browser reported problems on the previous page");
      visit = await openVisit(browser, server.baseURL, options);
      const response = await visit.page.goto(path);
      assert.ok(response, `no response for ${path}`);
      if (options.javaScriptEnabled !== false) await waitForHydration(visit.page);
      return { page: visit.page, status: response.status() };
    }

    /** Types a term into the search box as a person would: no Enter, no click on Search. */
    async function typeTerm(page: Page, term: string) {
      await page.getByRole("searchbox").fill(term);
    }

    describe("search", () => {
      it("serves the search page at / and at /search, searching companies by default", async () => {
        for (const path of [paths.home(), paths.search()]) {
          const { page, status } = await open(path);
          assert.equal(status, 200);
          assert.equal(await text(heading(page)), "Find a company or a manager");
          assert.equal(await page.getByRole("radio", { name: "Company" }).isChecked(), true);
          assert.equal(await page.getByRole("radio", { name: "Manager" }).isChecked(), false);
        }
      });

      it("offers the Country placeholder, then United States, then about 195 countries alphabetically", async () => {
        const { page } = await open(paths.search(), noCountryLocale);
        const options = await page
          .getByRole("combobox", { name: "Country", exact: true })
          .locator("option")
          .evaluateAll((nodes) =>
            (nodes as HTMLOptionElement[]).map((node) => ({
              label: node.textContent,
              value: node.value,
              disabled: node.disabled,
              selected: node.selected,
            })),
          );
        assert.deepEqual(options[0], { label: messages.countryPlaceholder, value: "", disabled: true, selected: true });
        assert.deepEqual(options[1], { label: "United States", value: "US", disabled: false, selected: false });
        const rest = options.slice(2).map((option) => option.label ?? "");
        assert.deepEqual(rest, rest.toSorted(new Intl.Collator("en").compare));
        assert.ok(options.length - 1 >= 190 && options.length - 1 <= 200, `${options.length - 1} countries`);
      });

      it("requires a country before anything can be searched", async () => {
        const { page } = await open(paths.search(), noCountryLocale);
        const country = page.getByRole("combobox", { name: "Country", exact: true });
        assert.equal(await country.evaluate((select: HTMLSelectElement) => select.validity.valueMissing), true);
        assert.equal(await page.getByRole("searchbox").isDisabled(), true);
        assert.equal(await page.getByText("Choose a country to start searching.").isVisible(), true);
      });

      it("shows companies as a term is typed, without Enter, and the country's lists again when the term is emptied", async () => {
        const { busyCompany } = facts;
        const { page } = await open(paths.search(), noCountryLocale);
        await page.getByRole("combobox", { name: "Country", exact: true }).selectOption(busyCompany.country);
        await page.waitForURL((url) => url.searchParams.get("country") === busyCompany.country);
        // Before a term: the country's lists, not search results.
        const mostReviewed = page.getByRole("heading", {
          name: `Most reviewed companies in ${countryName(busyCompany.country)}`,
        });
        await mostReviewed.waitFor();
        assert.equal(await page.getByText(messages.noCompanyFound).count(), 0);

        await typeTerm(page, busyCompany.name.split(" ")[0]!);
        await mostReviewed.waitFor({ state: "detached" });
        const link = page.getByRole("link", { name: `View details of ${busyCompany.name}` });
        await link.waitFor();
        assert.equal(await link.getAttribute("href"), paths.company(busyCompany.id));
        const card = page.getByRole("listitem").filter({ has: link });
        assert.match(await text(card), new RegExp(`${busyCompany.reviewCount} reviews`));

        await typeTerm(page, "");
        await mostReviewed.waitFor();
        assert.equal(new URL(page.url()).searchParams.get("q") ?? "", "");
      });

      it("starts in the country of the browser's language, then in the last one chosen", async () => {
        const { busyCompany } = facts;
        const chosen = busyCompany.country === "DE" ? "FR" : busyCompany.country;
        const { page } = await open(paths.search(), { locale: "de-DE" });
        const country = page.getByRole("combobox", { name: "Country", exact: true });
        await page.getByRole("heading", { name: `Most reviewed companies in ${countryName("DE")}` }).waitFor();
        assert.equal(await country.inputValue(), "DE");
        // The page keeps the address it was asked for: nothing navigates on its own.
        assert.equal(new URL(page.url()).search, "");

        await country.selectOption(chosen);
        await page.waitForURL((url) => url.searchParams.get("country") === chosen);
        // The choice is kept in this browser, not in a cookie: the page itself stays the same for everyone.
        assert.deepEqual(await page.context().cookies(), []);
        await page.goto(paths.search());
        await waitForHydration(page);
        await page.getByRole("heading", { name: `Most reviewed companies in ${countryName(chosen)}` }).waitFor();
        assert.equal(await country.inputValue(), chosen);
        assert.equal(new URL(page.url()).search, "");
      });

      it("lists the country's most reviewed and best rated companies with score, reviews and industry", async () => {
        const { busyCompany } = facts;
        const { page } = await open(paths.search({ country: busyCompany.country }));
        const name = countryName(busyCompany.country);
        const api = await (await fetch(`${server.baseURL}/api/v1/companies/top?country=${busyCompany.country}`)).json();
        const lists = api as Record<
          "mostReviewed" | "bestRated",
          Array<{ name: string; mean: number; industry: string }>
        >;
        for (const [title, items] of [
          [`Most reviewed companies in ${name}`, lists.mostReviewed],
          [`Best rated companies in ${name}`, lists.bestRated],
        ] as const) {
          assert.ok(items.length > 0, `${title}: empty`);
          const section = page.getByRole("region", { name: title });
          const cards = section.getByRole("listitem");
          assert.deepEqual(
            (await cards.getByRole("heading").allTextContents()).map((shown) => shown.replace(/ Demo data$/, "")),
            items.map((item) => item.name),
          );
          for (const [index, item] of items.entries()) {
            const card = (await cards.nth(index).innerText()).replace(/\s+/g, " ");
            assert.match(
              card,
              new RegExp(`${item.mean.toFixed(1)} out of 5 (Awful|Ok|Good|Great|Awesome) · \\d+ reviews?`),
            );
            assert.ok(card.includes(item.industry), `${item.name}: no industry in "${card}"`);
          }
        }
        const counts = await page
          .getByRole("region", { name: `Most reviewed companies in ${name}` })
          .getByRole("listitem")
          .evaluateAll((cards) => cards.map((card) => Number(/(\d+) reviews?/.exec(card.textContent ?? "")?.[1])));
        assert.deepEqual(
          counts,
          counts.toSorted((a, b) => b - a),
        );
        const status = page.getByRole("region", { name: "Results" }).getByRole("status");
        assert.equal(await text(status), `Most reviewed and best rated companies in ${name}`);
      });

      it("lists the country's most reviewed managers with their title", async () => {
        const { manager } = facts;
        const { page } = await open(paths.search({ kind: "manager", country: manager.country }));
        const section = page.getByRole("region", { name: `Most reviewed managers in ${countryName(manager.country)}` });
        const first = section.getByRole("listitem").first();
        await first.waitFor();
        assert.match((await first.innerText()).replace(/\s+/g, " "), /\d\.\d out of 5 .* · \d+ reviews? .+ · /);
      });

      it("opens a company page from its View details link", async () => {
        const { busyCompany } = facts;
        const { page } = await open(paths.search({ country: busyCompany.country, q: busyCompany.name }));
        await page.getByRole("link", { name: `View details of ${busyCompany.name}` }).click();
        await page.waitForURL(`**${paths.company(busyCompany.id)}`);
        // The address changes before the new page is drawn: wait for its heading.
        await page.getByRole("heading", { level: 1, name: busyCompany.name }).waitFor();
      });

      it("finds managers once Manager is chosen, and opens their profile from View details", async () => {
        const { manager } = facts;
        const { page } = await open(paths.search({ country: manager.country }));
        await page.getByRole("radio", { name: "Manager" }).check();
        await page.waitForURL((url) => url.searchParams.get("kind") === "manager");
        await page.getByRole("searchbox", { name: "Manager name" }).waitFor();
        const lists = page.getByRole("heading", { name: /^Most reviewed managers in / });
        await lists.waitFor();
        await typeTerm(page, manager.firstName);
        await lists.waitFor({ state: "detached" });
        const link = page.getByRole("link", { name: `View details of ${manager.firstName} ${manager.lastName}` });
        await link.waitFor();
        assert.equal(await link.getAttribute("href"), paths.manager(manager.id));
        await link.click();
        await page.waitForURL(`**${paths.manager(manager.id)}`);
        await page.getByRole("heading", { level: 1, name: `${manager.firstName} ${manager.lastName}` }).waitFor();
      });

      it("says No Company Found, with a sign-in prompt, when no company matches", async () => {
        const { page } = await open(paths.search({ country: facts.busyCompany.country }));
        await typeTerm(page, unmatchedTerm);
        await page.getByText(messages.noCompanyFound, { exact: true }).waitFor();
        const signIn = page.getByRole("region", { name: "Results" }).getByRole("link", { name: messages.signIn });
        // The country searched in is carried to the form.
        assert.equal(await signIn.getAttribute("href"), paths.signIn(paths.addCompany(facts.busyCompany.country)));
      });

      it("says No Manager Found, with a sign-in prompt, when no manager matches", async () => {
        const { page } = await open(paths.search({ kind: "manager", country: facts.manager.country }));
        await typeTerm(page, unmatchedTerm);
        await page.getByText(messages.noManagerFound, { exact: true }).waitFor();
        const signIn = page.getByRole("region", { name: "Results" }).getByRole("link", { name: messages.signIn });
        assert.equal(await signIn.getAttribute("href"), paths.signIn(paths.addManagerAlone()));
      });
    });

    describe("company pages", () => {
      it("shows the name linked to the website, the facts, three groups of bars, the score and reviews by month", async () => {
        const { busyCompany } = facts;
        const { page, status } = await open(paths.company(busyCompany.id));
        assert.equal(status, 200);
        assert.equal(await heading(page).getByRole("link").getAttribute("href"), busyCompany.website);
        assert.deepEqual(await page.locator(".facts dt").allTextContents(), [
          "On-call",
          "Recent layoffs",
          "Managers",
          "Follow",
          "Elsewhere",
        ]);
        const managersLink = page.getByRole("link", { name: `See the managers of ${busyCompany.name}` });
        assert.equal(await managersLink.getAttribute("href"), paths.companyManagers(busyCompany.id));
        const feedLink = page.getByRole("link", { name: feedMessages.follow });
        assert.equal(await feedLink.getAttribute("href"), paths.feed("company", busyCompany.id));

        const ratings = page.getByRole("region", { name: summaryMessages.ratingsInDetail });
        for (const group of companyCriteriaGroups) {
          assert.equal(await ratings.getByRole("region", { name: group.title }).isVisible(), true, group.title);
        }
        assert.equal(await ratings.locator(".bar-row").count(), companyCriteria.length);
        assert.match(await text(page.locator(".score p")), /^[0-5] of 5$/);

        const months = (await reviewDates(page, 10)).map(monthOrdinal);
        assert.deepEqual(
          months,
          months.toSorted((a, b) => b - a),
          "reviews are not newest first",
        );
      });

      it("heads the page with the mean, its interval, the shares of yes and the histogram, as the reviews add up", async () => {
        const { busyCompany } = facts;
        const fresh = await freshCompanyFigures(server, busyCompany.id);
        const { page } = await open(paths.company(busyCompany.id));
        const summary = page.getByRole("region", { name: summaryMessages.summary });
        assert.equal(
          await text(summary.locator(".headline-mean")),
          `${fresh.mean.toFixed(1)} of 5 · ${summaryMessages.basedOn(busyCompany.reviewCount)}`,
        );
        assert.match(await text(summary), /95% confidence interval \d\.\d to \d\.\d/);
        assert.deepEqual(await summary.locator(".shares li").allTextContents(), [
          `${fresh.againPercent}% would work here again`,
          `${fresh.recommendPercent}% would recommend`,
        ]);
        const histogram = summary.getByRole("table", { name: summaryMessages.overallDistribution });
        const rows = await histogram.locator("tbody tr").allTextContents();
        assert.deepEqual(
          rows.map((row) => Number(/(\d+) \(\d+%\)$/.exec(row.trim())?.[1])),
          [5, 4, 3, 2, 1].map((value) => fresh.overall[value - 1] ?? 0),
        );
      });

      it("opens each criterion's distribution on demand, without JavaScript", async () => {
        const { busyCompany } = facts;
        const { page } = await open(paths.company(busyCompany.id), { javaScriptEnabled: false });
        const group = companyCriteriaGroups[0]!;
        const first = page.getByRole("table", { name: criterionLabels[group.criteria[0]!], exact: true });
        assert.equal(await first.isVisible(), false);
        await page.getByText(summaryMessages.distributionOf(group.title)).click();
        assert.equal(await first.isVisible(), true);
        const counts = (await first.locator("tbody tr").allTextContents()).map((row) =>
          Number(/(\d+) \(\d+%\)$/.exec(row.trim())?.[1]),
        );
        assert.equal(
          counts.reduce((sum, count) => sum + count, 0),
          busyCompany.reviewCount,
        );
        const tags = page.getByRole("region", { name: summaryMessages.topTags });
        assert.ok((await tags.locator("li").count()) > 0);
      });

      it("sorts and narrows the reviews with a form that works without JavaScript, and names a refused choice", async () => {
        const { busyCompany } = facts;
        const { page } = await open(paths.company(busyCompany.id), { javaScriptEnabled: false });
        await page.getByText(summaryMessages.filterReviews, { exact: true }).click();
        const form = page.getByRole("form", { name: summaryMessages.filterReviews });
        await form.getByLabel(summaryMessages.sortBy).selectOption("lowest");
        await form.getByRole("button", { name: summaryMessages.showReviews }).click();
        await page.waitForURL((url) => url.searchParams.get("sort") === "lowest");
        const scores = async () =>
          (
            await page
              .locator(".review-list .face")
              .evaluateAll((faces) => faces.map((face) => face.getAttribute("aria-label")))
          ).map((label) => Number(/\((\d) of 5\)/.exec(label ?? "")?.[1]));
        const lowest = await scores();
        assert.equal(lowest.length, 10);
        assert.deepEqual(
          lowest,
          lowest.toSorted((a, b) => a - b),
          "lowest first",
        );

        const score = lowest[0]!;
        await form.getByLabel(summaryMessages.overallScore).selectOption(String(score));
        await form.getByRole("button", { name: summaryMessages.showReviews }).click();
        await page.waitForURL((url) => url.searchParams.get("rating") === String(score));
        const narrowed = await scores();
        assert.ok(narrowed.length > 0 && narrowed.every((value) => value === score), `only ${score}s: ${narrowed}`);

        // Over HTTP: the browser would log the 400 as a console error.
        const refused = await fetch(`${server.baseURL}${paths.company(busyCompany.id)}?sort=oldest`);
        assert.equal(refused.status, 400);
        const html = await refused.text();
        assert.match(html, new RegExp(`role="alert">${reviewListMessages.sort}<`));
        assert.equal(html.match(/class="review-date"/g)?.length, 10, "the refused choice leaves the list as it was");
      });

      it("pages to older reviews with the Older reviews link", async () => {
        const { busyCompany } = facts;
        const { page } = await open(paths.company(busyCompany.id));
        const newest = (await reviewDates(page, 10)).map(monthOrdinal);
        await page.getByRole("link", { name: "Older reviews" }).click();
        await page.waitForURL((url) => url.searchParams.has("before"));
        const older = (await reviewDates(page, busyCompany.reviewCount - 10)).map(monthOrdinal);
        assert.ok(Math.max(...older) <= Math.min(...newest), "the second page holds newer reviews than the first");
        assert.equal(await page.getByRole("link", { name: "Older reviews" }).count(), 0);
      });

      it("says No Reviews - sign in to add one for a company without reviews", async () => {
        const { page } = await open(paths.company(facts.quietCompany.id));
        assert.equal(await page.getByText(messages.noCompanyReviews, { exact: true }).isVisible(), true);
        assert.equal(await page.locator(".review-list").count(), 0);
      });

      it("answers 404 with No Company Found and Search again? for an unknown company", async () => {
        for (const path of [paths.company(999_999), "/company/not-a-number"]) {
          const { page, status } = await open(path);
          assert.equal(status, 404, path);
          assert.equal(await text(heading(page)), messages.noCompanyFound);
          const again = page.getByRole("link", { name: messages.searchAgain });
          assert.equal(await again.getAttribute("href"), paths.search());
        }
      });

      it("shows the same company after a reload", async () => {
        const { busyCompany } = facts;
        const { page } = await open(paths.company(busyCompany.id));
        const response = await page.reload();
        assert.equal(response?.status(), 200);
        assert.equal(await text(heading(page).getByRole("link")), `${busyCompany.name} (website, opens in a new tab)`);
        await reviewDates(page, 10);
      });
    });

    describe("coming back after signing in", () => {
      const password = "a long and private passphrase";

      function pathOf(page: Page): string {
        const url = new URL(page.url());
        return `${url.pathname}${url.search}`;
      }

      async function signInHere(page: Page, email: string) {
        await page.getByLabel("Email", { exact: true }).fill(email);
        await page.getByLabel("Password", { exact: true }).fill(password);
        await page.getByRole("main").getByRole("button", { name: messages.signIn, exact: true }).click();
      }

      it("offers Write a review to a signed-out reader; the form asks to sign in, then opens", async () => {
        const { busyCompany } = facts;
        const email = newEmail("returning");
        await new Visitor(server.baseURL).signUp(email, password);
        const { page } = await open(paths.company(busyCompany.id));
        await page.getByRole("link", { name: messages.writeReview }).first().click();
        await page.waitForURL((url) => url.pathname === "/signin");
        assert.equal(pathOf(page), paths.signIn(paths.reviewCompany(busyCompany.id)));
        await signInHere(page, email);
        await page.waitForURL((url) => `${url.pathname}${url.search}` === paths.reviewCompany(busyCompany.id));
        await page.getByRole("heading", { level: 1, name: `Review ${busyCompany.name}` }).waitFor();
      });

      it("brings a reader who signs up from a company page's header back to that page", async () => {
        const { busyCompany } = facts;
        const { page } = await open(paths.company(busyCompany.id));
        await page.getByRole("banner").getByRole("link", { name: messages.signIn }).click();
        await page.waitForURL((url) => url.pathname === "/signin");
        assert.equal(pathOf(page), paths.signIn(paths.company(busyCompany.id)));
        await page.getByRole("link", { name: "Create account" }).click();
        await page.waitForURL((url) => url.pathname === "/signup");
        // The address changes before the new page is drawn (a transition): the sign-in page's fields, also named
        // Email and Password, may still be there. Fill the sign-up page's.
        await page.getByRole("heading", { level: 1, name: "Create an account" }).waitFor();
        await page.getByLabel("Email", { exact: true }).fill(newEmail("returning"));
        await page.getByLabel("Password", { exact: true }).fill(password);
        await page.getByRole("button", { name: messages.signUp }).click();
        await page.waitForURL((url) => `${url.pathname}${url.search}` === paths.company(busyCompany.id));
        await page.getByRole("banner").getByRole("button", { name: messages.signOut }).waitFor();
      });
    });

    describe("managers and manager profiles", () => {
      it("lists a company's managers, each linking to their profile", async () => {
        const { manager } = facts;
        const { page, status } = await open(paths.companyManagers(manager.companyId));
        assert.equal(status, 200);
        assert.equal(await text(heading(page)), `Managers at ${manager.companyName}`);
        const link = page.getByRole("link", { name: `${manager.firstName} ${manager.lastName}`, exact: true });
        assert.equal(await link.getAttribute("href"), paths.manager(manager.id));
      });

      it("says Nothing here - sign in to change that for a company without managers", async () => {
        const { page } = await open(paths.companyManagers(facts.companyWithoutManagers.id));
        assert.equal(await page.getByText(messages.nothingHere, { exact: true }).isVisible(), true);
      });

      it("answers 404 with No Company Found for the managers of an unknown company", async () => {
        const { page, status } = await open(paths.companyManagers(999_999));
        assert.equal(status, 404);
        assert.equal(await text(heading(page)), messages.noCompanyFound);
      });

      it("shows a manager's name, company, LinkedIn link, bars and reviews by month", async () => {
        const { manager } = facts;
        const { page, status } = await open(paths.manager(manager.id));
        assert.equal(status, 200);
        assert.match(await text(heading(page)), new RegExp(`^${manager.firstName} ${manager.lastName}`));
        const company = page.getByRole("link", { name: manager.companyName, exact: true });
        assert.equal(await company.getAttribute("href"), paths.company(manager.companyId));
        const linkedin = page.getByRole("link", { name: /^LinkedIn profile/ });
        assert.match((await linkedin.getAttribute("href")) ?? "", /^https:\/\//);
        const ratings = page.getByRole("region", { name: summaryMessages.ratingsInDetail });
        assert.ok((await ratings.locator(".bar-row").count()) > 0);
        const dates = await page.locator(".review-list .review-date").allTextContents();
        assert.ok(dates.length > 0);
        dates.forEach(monthOrdinal);
      });

      it("says No reviews - sign in to add one for a manager without reviews", async () => {
        const { page } = await open(paths.manager(facts.managerWithoutReviews.id));
        assert.equal(await page.getByText(messages.noManagerReviews, { exact: true }).isVisible(), true);
      });

      it("answers 404 with No Manager Profile Found for an unknown manager", async () => {
        const { page, status } = await open(paths.manager(999_999));
        assert.equal(status, 404);
        assert.equal(await text(heading(page)), messages.noManagerProfileFound);
        assert.equal(await page.getByText(messages.noManagerDataFound, { exact: true }).isVisible(), true);
      });
    });

    describe("other pages", () => {
      it("serves the landing page with Home and Sign In buttons and a Learn more link to the guidelines", async () => {
        const { page, status } = await open(paths.landing());
        assert.equal(status, 200);
        assert.equal(await text(heading(page)), messages.tagline);
        assert.equal(await page.getByRole("link", { name: "Home", exact: true }).getAttribute("href"), paths.home());
        assert.equal(
          await page.getByRole("main").getByRole("link", { name: messages.signIn, exact: true }).getAttribute("href"),
          paths.signIn(),
        );
        const learnMore = page.getByRole("link", { name: messages.learnMore + messages.learnMoreTopic, exact: true });
        assert.equal(await learnMore.getAttribute("href"), paths.guidelines());
        // Only "Learn more" shows; the rest of its name is for screen readers and search engines.
        assert.equal(await learnMore.locator(".visually-hidden").textContent(), messages.learnMoreTopic);
      });

      it("serves a robots.txt that lets crawlers read searches, companies, managers and the guidelines", async () => {
        const response = await fetch(`${server.baseURL}/robots.txt`);
        assert.equal(response.status, 200);
        assert.match(response.headers.get("content-type") ?? "", /^text\/plain/);
        const disallowed = [...(await response.text()).matchAll(/^Disallow:\s*(\S+)/gm)].map((match) => match[1]!);
        assert.ok(disallowed.includes(paths.account()), "the account page should be disallowed");
        const { busyCompany, manager } = facts;
        for (const path of [
          paths.home(),
          paths.search({ country: busyCompany.country, q: busyCompany.name }),
          paths.company(busyCompany.id),
          paths.companyManagers(busyCompany.id),
          paths.manager(manager.id),
          paths.guidelines(),
        ]) {
          assert.deepEqual(
            disallowed.filter((prefix) => path.startsWith(prefix)),
            [],
            `${path} is disallowed`,
          );
        }
      });

      it("serves the posting guidelines and the privacy page", async () => {
        for (const [path, title] of [
          [paths.guidelines(), "Posting guidelines"],
          [paths.privacy(), "What we store, and what we never store"],
        ] as const) {
          const { page, status } = await open(path);
          assert.equal(status, 200, path);
          assert.equal(await text(heading(page)), title);
          assert.equal(await page.getByText(messages.ipLogged).first().isVisible(), true);
        }
      });

      it("answers 404 with a Page not found page for an unknown address", async () => {
        const { page, status } = await open("/no-such-page");
        assert.equal(status, 404);
        assert.equal(await text(heading(page)), "Page not found");
      });
    });

    describe("without JavaScript", () => {
      const noScript = { javaScriptEnabled: false };

      it("searches companies by submitting the form, and opens a company", async () => {
        const { busyCompany } = facts;
        const { page } = await open(paths.search(), noScript);
        await page.getByRole("combobox", { name: "Country", exact: true }).selectOption(busyCompany.country);
        await page.getByRole("searchbox").fill(busyCompany.name);
        await page.getByRole("button", { name: "Search", exact: true }).click();
        await page.waitForURL((url) => url.searchParams.get("q") === busyCompany.name);
        await page.getByRole("link", { name: `View details of ${busyCompany.name}` }).click();
        await page.waitForURL(`**${paths.company(busyCompany.id)}`);
        assert.equal(await text(heading(page).getByRole("link")), `${busyCompany.name} (website, opens in a new tab)`);
        await reviewDates(page, 10);
      });

      it("searches managers by submitting the form with Manager chosen", async () => {
        const { manager } = facts;
        const { page } = await open(paths.search(), noScript);
        await page.getByRole("radio", { name: "Manager" }).check();
        await page.getByRole("combobox", { name: "Country", exact: true }).selectOption(manager.country);
        await page.getByRole("searchbox").fill(manager.firstName);
        await page.getByRole("button", { name: "Search", exact: true }).click();
        await page.waitForURL((url) => url.searchParams.get("kind") === "manager");
        const link = page.getByRole("link", { name: `View details of ${manager.firstName} ${manager.lastName}` });
        assert.equal(await link.getAttribute("href"), paths.manager(manager.id));
      });

      it("shows the lists of a chosen country", async () => {
        const { busyCompany } = facts;
        const { page } = await open(paths.search({ country: busyCompany.country }), noScript);
        const name = countryName(busyCompany.country);
        for (const title of [`Most reviewed companies in ${name}`, `Best rated companies in ${name}`]) {
          assert.ok((await page.getByRole("region", { name: title }).getByRole("listitem").count()) > 0, title);
        }
      });

      it("does not submit a search until a country is chosen", async () => {
        const { page } = await open(paths.search(), noScript);
        await page.getByRole("searchbox").fill(facts.busyCompany.name);
        await page.getByRole("button", { name: "Search", exact: true }).click();
        await page.waitForTimeout(500);
        assert.equal(new URL(page.url()).search, "");
      });
    });

    describe("security headers", () => {
      it("sends a rendered page a Content-Security-Policy whose fresh nonce every inline script carries", async () => {
        const nonces = new Set<string>();
        for (const path of [paths.home(), paths.company(facts.busyCompany.id)]) {
          // A cookie, so that the page is rendered for this request rather than served from the page cache.
          const response = await fetch(`${server.baseURL}${path}`, { headers: { cookie: "rendered=1" } });
          const policy = response.headers.get("content-security-policy") ?? "";
          const nonce = /script-src [^;]*'nonce-([A-Za-z0-9+/=]+)'/.exec(policy)?.[1];
          assert.ok(nonce, `no script nonce in "${policy}"`);
          assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval/);
          nonces.add(nonce);
          const scripts = [...(await response.text()).matchAll(/<script\b[^>]*>/g)].map((match) => match[0]);
          assert.ok(scripts.length > 0);
          for (const script of scripts) assert.ok(script.includes(`nonce="${nonce}"`), script);
          assert.equal(response.headers.get("x-content-type-options"), "nosniff");
        }
        assert.equal(nonces.size, 2, "the nonce is reused across responses");
      });

      it("runs a kept page's inline scripts under a CSP of their hashes, without a nonce", async () => {
        const path = paths.company(facts.busyCompany.id);
        // Read to the end: the page is kept once it has been rendered in full.
        await (await fetch(`${server.baseURL}${path}`)).text();
        const kept = await fetch(`${server.baseURL}${path}`);
        assert.equal(kept.headers.get("x-cache"), "hit");
        const policy = kept.headers.get("content-security-policy") ?? "";
        assert.match(policy, /script-src 'self' 'sha256-/);
        assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval|'nonce-/);
        // The browser is served the same kept page: it hydrates, and a refused script would be a console error.
        const { page, status } = await open(path);
        assert.equal(status, 200);
        assert.equal(await page.evaluate(() => document.querySelector("script[nonce]")), null);
      });
    });
  });
}
