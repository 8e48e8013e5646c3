import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { Page, Route } from "playwright-core";
import { messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { closeVisit, launchBrowser, openVisit, type Visit, waitForHydration } from "./support/browser.ts";
import { startServer } from "../support/server.ts";

// What a fast person types or chooses before the page's scripts run stays when they do. The scripts load after the
// first paint (docs/decisions/0042-scripts-load-after-the-first-paint.md), so on a slow phone the form is usable,
// without React, for a moment; hydrating must adopt what the fields hold, not put back what the server rendered.
// Here the page's scripts are held back at the network until the test has typed, then released.
//
// Proven live: against the code before the fix, the sign-in test failed (the e-mail and password fields were empty
// after hydration and Sign In was disabled) and the search test failed (the select showed "US", the browser's
// country, instead of the "DE" chosen before the scripts ran).

const [server, browser] = await Promise.all([
  startServer("sqlite", { env: { DEMO_DATA: "never", TRUSTED_PROXIES: "127.0.0.1" } }),
  launchBrowser(),
]);
after(async () => {
  await browser.close();
  assert.equal(await server.stop(), 0, `the server did not shut down cleanly on SIGTERM:\n${server.output()}`);
});

/**
 * Opens `path` with every script of the site held at the network: answers the page, with its HTML painted and
 * usable, and `release`, which lets the scripts through and resolves once React has hydrated the page.
 */
async function openWithScriptsHeld(visit: Visit, path: string) {
  const held: Route[] = [];
  let released = false;
  let firstHeld: () => void = () => {};
  const askedForScripts = new Promise<void>((resolve) => (firstHeld = resolve));
  await visit.page.route(
    (url) => url.pathname.startsWith("/assets/") && url.pathname.endsWith(".js"),
    (route) => {
      if (released) void route.continue();
      else {
        held.push(route);
        firstHeld();
      }
    },
  );
  await visit.page.goto(path);
  return {
    page: visit.page,
    release: async () => {
      // The page asks for its scripts after its first paint, which a fast test can type before: wait for that ask
      // (an event, not a time), then none of them has run yet.
      await Promise.race([askedForScripts, visit.page.waitForTimeout(10_000)]);
      assert.ok(held.length > 0, "the page asked for no script while it was held");
      assert.equal(
        await visit.page.evaluate(() =>
          Object.keys(document.querySelector("main") ?? {}).some((key) => key.startsWith("__reactFiber")),
        ),
        false,
        "React hydrated the page before the scripts were released",
      );
      released = true;
      for (const route of held.splice(0)) await route.continue();
      await waitForHydration(visit.page);
    },
  };
}

/** Lets React finish what hydrating scheduled (effects, a render with the browser's own values) before looking. */
async function settle(page: Page): Promise<void> {
  await page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
  );
}

describe("typing before the page's scripts run", () => {
  it("keeps the e-mail and password typed into Sign In, and the button enabled", async () => {
    const visit = await openVisit(browser, server.baseURL, { locale: "en-US" });
    try {
      const { page, release } = await openWithScriptsHeld(visit, paths.signIn());
      const email = page.getByLabel("Email", { exact: true });
      const password = page.getByLabel("Password", { exact: true });
      await email.fill("early.typist@example.com");
      await password.fill("a long and private passphrase");
      await release();
      await settle(page);
      assert.equal(await email.inputValue(), "early.typist@example.com");
      assert.equal(await password.inputValue(), "a long and private passphrase");
      const signIn = page.getByRole("main").getByRole("button", { name: messages.signIn, exact: true });
      assert.equal(await signIn.isEnabled(), true, "Sign In stays disabled although both fields are filled");

      // Typing after hydration still decides the button: too short an address disables it, and a longer one
      // enables it again.
      await email.fill("a@b.c");
      assert.equal(await signIn.isEnabled(), false, "Sign In is enabled with a five-character address");
      await email.fill("early.typist@example.com");
      assert.equal(await signIn.isEnabled(), true);
    } finally {
      assert.deepEqual(await closeVisit(visit), [], "the browser reported problems");
    }
  });

  it("keeps the country chosen on the search page instead of the browser's own", async () => {
    const visit = await openVisit(browser, server.baseURL, { locale: "en-US" });
    try {
      const { page, release } = await openWithScriptsHeld(visit, paths.search());
      const country = page.getByLabel("Country", { exact: true });
      await country.selectOption("DE");
      await release();
      await settle(page);
      assert.equal(await country.inputValue(), "DE", "the country chosen before the scripts ran was replaced");
      // Once running, the page searches in the chosen country: its address names it.
      await page.getByRole("searchbox").fill("Acme");
      await page.waitForURL((url) => url.searchParams.get("country") === "DE" && url.searchParams.get("q") === "Acme");
      assert.equal(await country.inputValue(), "DE");
    } finally {
      assert.deepEqual(await closeVisit(visit), [], "the browser reported problems");
    }
  });
});
