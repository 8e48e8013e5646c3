import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { constants, gzipSync } from "node:zlib";
import type { Response } from "playwright-core";
import { paths } from "#app/lib/paths.ts";
import { closeVisit, launchBrowser, openVisit, waitForHydration } from "./support/browser.ts";
import { readDemoFacts } from "./support/demo-facts.ts";
import { startServer } from "../support/server.ts";

/**
 * docs/performance.md: the first load of a page ships at most 130 KB of gzipped JavaScript (1 KB = 1024 bytes).
 * Counted: every JavaScript file a fresh browser fetches until the network is idle (module scripts, modulepreloads,
 * dynamic imports, prefetches), and the inline scripts of the HTML together as one more entry (React Router's
 * hydration data and module loader). Each is gzipped with node:zlib at its default level (6), which is what the
 * server's `compression` middleware sends.
 */
const budgetBytes = 130 * 1024;

const server = await startServer("sqlite");
const facts = await readDemoFacts(server.databaseUrl);
const browser = await launchBrowser();

after(async () => {
  await browser.close();
  assert.equal(await server.stop(), 0, `the server did not shut down cleanly on SIGTERM:\n${server.output()}`);
});

type Script = { path: string; bytes: number; gzipBytes: number };

/** Every JavaScript file a fresh browser (no cache) fetches for `path`, until the network has been idle. */
async function firstLoadScripts(path: string): Promise<Script[]> {
  const visit = await openVisit(browser, server.baseURL);
  const responses: Response[] = [];
  visit.page.on("response", (response) => {
    const type = response.headers()["content-type"] ?? "";
    if (response.request().resourceType() === "script" || type.includes("javascript")) responses.push(response);
  });
  try {
    const document = await visit.page.goto(path, { waitUntil: "networkidle" });
    assert.ok(document, `${path} did not load`);
    assert.equal(document.status(), 200, `${path} did not answer 200`);
    await waitForHydration(visit.page);
    await visit.page.waitForLoadState("networkidle");
    const scripts: Script[] = [];
    for (const response of responses) {
      assert.equal(response.status(), 200, `${response.url()} did not answer 200`);
      const body = await response.body();
      const gzipBytes = gzipSync(body, { level: constants.Z_DEFAULT_COMPRESSION }).length;
      scripts.push({ path: new URL(response.url()).pathname, bytes: body.length, gzipBytes });
    }
    const inline = [...(await document.text()).matchAll(/<script\b(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)];
    assert.ok(inline.length > 0, "React Router writes its hydration data into inline scripts; none were found");
    const inlineBody = Buffer.from(inline.map((match) => match[1]).join("\n"));
    const gzipBytes = gzipSync(inlineBody, { level: constants.Z_DEFAULT_COMPRESSION }).length;
    scripts.push({ path: `(${inline.length} inline scripts of the HTML)`, bytes: inlineBody.length, gzipBytes });
    return scripts;
  } finally {
    assert.deepEqual(await closeVisit(visit), [], "the browser reported problems while loading the page");
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

describe("JavaScript budget of the first load", () => {
  const pages = [
    { name: "company page", path: paths.company(facts.busyCompany.id) },
    { name: "search page", path: paths.search({ country: facts.busyCompany.country, q: facts.busyCompany.name }) },
    { name: "manager profile", path: paths.manager(facts.manager.id) },
  ];
  for (const { name, path } of pages) {
    it(`ships at most ${kb(budgetBytes)} of gzipped JavaScript on the ${name}`, async (t) => {
      const scripts = await firstLoadScripts(path);
      // A page that loads no script at all (or one this test failed to see) must not pass the budget by accident.
      assert.ok(
        scripts.length >= 4,
        `expected the entry, the framework and the route's scripts, saw ${scripts.length}`,
      );
      assert.ok(
        scripts.some((script) => /\/entry\.client-[\w-]+\.js$/.test(script.path)),
        "the client entry was not among the scripts",
      );
      scripts.sort((a, b) => b.gzipBytes - a.gzipBytes);
      for (const script of scripts) {
        t.diagnostic(`${kb(script.gzipBytes).padStart(9)} gzip ${kb(script.bytes).padStart(9)} raw  ${script.path}`);
      }
      const total = scripts.reduce((sum, script) => sum + script.gzipBytes, 0);
      t.diagnostic(`${kb(total).padStart(9)} gzip in ${scripts.length} entries, budget ${kb(budgetBytes)}`);
      assert.ok(total <= budgetBytes, `${name}: ${kb(total)} of gzipped JavaScript, budget ${kb(budgetBytes)}`);
    });
  }
});

// Decision 0042: the first paint needs the HTML, the stylesheet and the typeface only; scripts load after it.
describe("scripts after the first paint", () => {
  it("requests no script before the page is first painted, and hydrates it after", async () => {
    const visit = await openVisit(browser, server.baseURL);
    try {
      const document = await visit.page.goto(paths.company(facts.busyCompany.id));
      assert.equal(document?.status(), 200);
      await waitForHydration(visit.page);
      const { paint, scripts } = await visit.page.evaluate(() => ({
        paint: performance.getEntriesByName("first-paint")[0]?.startTime,
        scripts: performance
          .getEntriesByType("resource")
          .filter((entry) => new URL(entry.name).pathname.endsWith(".js"))
          .map((entry) => ({ name: entry.name, start: entry.startTime })),
      }));
      assert.ok(paint !== undefined, "the browser recorded no first paint");
      assert.ok(
        scripts.length >= 4,
        `expected the entry, the framework and the route's scripts, saw ${scripts.length}`,
      );
      for (const script of scripts) {
        assert.ok(
          script.start >= paint,
          `${script.name} was requested at ${script.start} ms, before the paint at ${paint} ms`,
        );
      }
    } finally {
      assert.deepEqual(await closeVisit(visit), [], "the browser reported problems while loading the page");
    }
  });
});
