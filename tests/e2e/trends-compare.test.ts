import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { openDatabase } from "#app/db/connection.server.ts";
import { compareLimits } from "#app/lib/limits.ts";
import { compareMessages, peerMessages, trendMessages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { companyCriteria } from "#app/lib/ratings.ts";
import { insertCompany, insertCompanyReview } from "#tests/support/test-fixtures.ts";
import { closeVisit, launchBrowser, openVisit, waitForHydration } from "./support/browser.ts";
import { readDemoFacts } from "./support/demo-facts.ts";
import { type Engine, newSecret, readDatabase, root, type RunningServer, startServer } from "../support/server.ts";

const at = (value: number) => Object.fromEntries(companyCriteria.map((key) => [key, value]));

/** Trends and comparisons in the browser, on one engine: a company with months of 5, 4 and 6 reviews. */
function describeTrendsAndCompare(engine: Engine): void {
  describe(`trends and comparisons on ${engine}`, () => {
    let server: RunningServer;
    let browser: Browser;
    let trendId: number;
    let busy: { id: number; name: string; country: string };

    before(async () => {
      server = await startServer(engine);
      busy = (await readDemoFacts(server.databaseUrl)).busyCompany;
      const store = openDatabase(server.databaseUrl, { poolSize: 1 });
      try {
        trendId = await insertCompany(store.db, {
          name: "Trendline Works",
          country: busy.country,
          industry_section: "J",
        });
        for (let i = 0; i < 5; i++)
          await insertCompanyReview(store.db, trendId, { ...at(2), created_on: "2026-01-10" });
        for (let i = 0; i < 4; i++)
          await insertCompanyReview(store.db, trendId, { ...at(5), created_on: "2026-02-10" });
        for (let i = 0; i < 6; i++)
          await insertCompanyReview(store.db, trendId, { ...at(4), created_on: "2026-03-10" });
      } finally {
        await store.close();
      }
      // The operator's command ranks every group now (the scheduled job would, a few groups per run).
      const { stdout } = await promisify(execFile)(process.execPath, ["scripts/admin.ts", "peers"], {
        cwd: root,
        env: { PATH: process.env.PATH, DATABASE_URL: server.databaseUrl, AUTH_SECRET: newSecret(), LOG_LEVEL: "warn" },
      });
      assert.match(stdout, /^Ranked \d+ subjects in \d+ groups\./);
      browser = await launchBrowser();
    });

    after(async () => {
      await browser?.close();
      if (!server) return;
      assert.equal(await server.stop(), 0, `the server did not shut down cleanly:\n${server.output()}`);
    });

    it("shows the trend only for months with at least 5 reviews, as a chart with a table, without JavaScript", async () => {
      const visit = await openVisit(browser, server.baseURL, { javaScriptEnabled: false });
      try {
        const { page } = visit;
        await page.goto(paths.company(trendId));
        const trend = page.locator("section.trend");
        assert.equal(await trend.getByRole("img", { name: trendMessages.chartTitle }).count(), 1);
        const rows = await trend.locator(".trend-table tbody tr").allTextContents();
        assert.deepEqual(rows, ["January 2026" + "5" + "2.0", "March 2026" + "6" + "4.0"]);
        // February had 4 reviews: below the minimum, nowhere in the trend.
        assert.equal(await trend.getByText("February 2026").count(), 0);
        assert.match((await trend.locator("desc").textContent()) ?? "", /2 months from January 2026 \(2\.0 of 5\)/);
        assert.equal(await trend.getByText(trendMessages.rule(5)).count(), 1);

        // Its percentile in its country, as the job stored it.
        const [row] = await readDatabase(
          { engine, url: server.databaseUrl },
          `select percentile from subject_percentiles where subject = 'company' and subject_id = ${trendId}
             and scope = 'country' and criterion = 'overall'`,
        );
        assert.ok(row, "the job ranked the company");
        const api = (await (await fetch(new URL(`/api/v1/companies/${trendId}`, server.baseURL))).json()) as {
          peers: Array<{ scope: string; name: string; overall: { percentile: number } }>;
          trend: { months: Array<{ month: string }> };
        };
        const country = api.peers.find((peer) => peer.scope === "country");
        assert.equal(country?.overall.percentile, Number(row.percentile));
        assert.deepEqual(
          api.trend.months.map((month) => month.month),
          ["2026-01", "2026-03"],
        );
        const sentence = peerMessages.betterThan(Number(row.percentile), "company", country!.name);
        assert.ok((await page.getByText(sentence).count()) >= 1, `"${sentence}" is on the page`);
        assert.deepEqual(visit.problems, []);
      } finally {
        await closeVisit(visit);
      }
    });

    it("compares from Add to compare, a search and Add, and explains every refusal", async () => {
      const visit = await openVisit(browser, server.baseURL);
      try {
        const { page } = visit;
        await page.goto(paths.company(trendId));
        await waitForHydration(page);
        await page.getByRole("link", { name: compareMessages.add }).click();
        await page.waitForURL(`**${paths.compare("company", [trendId])}`);
        assert.equal(await page.getByText(compareMessages.tooFew(compareLimits.min)).count(), 1);

        await page.getByRole("searchbox", { name: compareMessages.nameLabel }).fill(busy.name.slice(0, 6));
        await page.getByRole("combobox", { name: compareMessages.countryLabel }).selectOption(busy.country);
        await page.getByRole("button", { name: compareMessages.find }).click();
        await page.getByRole("link", { name: `${compareMessages.addThis} ${busy.name}` }).click();
        await page.waitForURL(`**${paths.compare("company", [trendId, busy.id])}`);
        // The address changes before React has drawn the new table: wait for the added company's column first.
        const columns = page.locator(".compare-table thead th a:not(.muted)");
        await columns.filter({ hasText: busy.name }).waitFor();
        const headers = await columns.allTextContents();
        assert.deepEqual(headers, ["Trendline Works", busy.name]);
        const api = (await (
          await fetch(new URL(`/api/v1/compare?company=${trendId}&company=${busy.id}`, server.baseURL))
        ).json()) as { kind: string; items: Array<{ id: number; mean: number }> };
        assert.equal(api.kind, "company");
        const overall = await page
          .getByRole("row", { name: new RegExp(`^${compareMessages.overall.replace(/[()]/g, "\\$&")}`) })
          .locator("td")
          .allTextContents();
        assert.deepEqual(
          overall,
          api.items.map((item) => `${item.mean.toFixed(1)} of 5`),
        );
        assert.deepEqual(visit.problems, []);
      } finally {
        await closeVisit(visit);
      }

      const refusals: Array<[string, number, string]> = [
        [`/compare?company=${trendId}&manager=1`, 400, compareMessages.mixed],
        [`/compare?company=abc&company=${trendId}`, 400, compareMessages.badId("abc")],
        [`/compare?company=${trendId}&company=${trendId}`, 400, compareMessages.repeated],
        ["/compare?company=1&company=2&company=3&company=4&company=5", 400, compareMessages.tooMany(compareLimits.max)],
        [`/compare?company=${trendId}&company=999999`, 404, compareMessages.notFound("company", 999999)],
      ];
      for (const [path, status, message] of refusals) {
        const response = await fetch(new URL(path, server.baseURL));
        assert.equal(response.status, status, path);
        assert.ok((await response.text()).includes(message.replaceAll('"', "&quot;")), `${path} says "${message}"`);
        const apiResponse = await fetch(new URL(`/api/v1${path}`, server.baseURL));
        assert.equal(apiResponse.status, status, `/api/v1${path}`);
        assert.equal(((await apiResponse.json()) as { detail: string }).detail, message);
      }
      const one = await fetch(new URL(`/api/v1/compare?company=${trendId}`, server.baseURL));
      assert.equal(one.status, 400);
      assert.equal(((await one.json()) as { detail: string }).detail, compareMessages.tooFew(compareLimits.min));
    });
  });
}

describeTrendsAndCompare("sqlite");
describeTrendsAndCompare("postgres");
