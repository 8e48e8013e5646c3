// npm run screenshots — every page of the site at a phone's width (390 px) and a laptop's (1366 px), in light and
// dark, signed out and signed in, as full-page PNG files in screenshots/ (ignored by git), so
// anyone can look at the whole site in a minute or two. Runs the built server (`npm run build` first) on a throwaway SQLite database with the demo data.
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { paths } from "#app/lib/paths.ts";
import { launchBrowser, openVisit, waitForHydration } from "#tests/e2e/support/browser.ts";
import { shareCookies } from "#tests/e2e/support/contribute.ts";
import { everyPage, readDemoFacts } from "#tests/e2e/support/demo-facts.ts";
import { newClientIp, newEmail, Visitor } from "#tests/e2e/support/http.ts";
import { root, startServer } from "#tests/support/server.ts";

const outDir = path.join(root, "screenshots");
const widths = [
  { name: "phone", width: 390, height: 844, colorScheme: "light" },
  { name: "laptop", width: 1366, height: 768, colorScheme: "light" },
  { name: "phone-dark", width: 390, height: 844, colorScheme: "dark" },
  { name: "laptop-dark", width: 1366, height: 768, colorScheme: "dark" },
] as const;

/** A file name for a path: /company/4?x=1 → company-4-x-1. */
function fileName(target: string): string {
  return (
    target
      .replace(/^\//, "")
      .replace(/[^a-z0-9]+/gi, "-")
      .replace(/-$/, "") || "home"
  );
}

const server = await startServer("sqlite", { env: { DEMO_DATA: "always", TRUSTED_PROXIES: "127.0.0.1" } });
const browser = await launchBrowser();
try {
  const facts = await readDemoFacts(server.databaseUrl);
  const signedOutPages = [
    ...everyPage(facts).map((page) => page.path),
    paths.signIn(),
    paths.signUp(),
    paths.forgotPassword(),
    paths.feedback(),
    "/api",
  ];
  const signedInPages = [
    ...everyPage(facts).map((page) => page.path),
    paths.account(),
    paths.addCompany(),
    paths.reviewCompany(facts.busyCompany.id),
    paths.addManager(facts.busyCompany.id),
    paths.addManagerAlone(),
    paths.reviewManager(facts.managerWithoutReviews.id),
    paths.feedback(),
  ];
  await rm(outDir, { recursive: true, force: true });
  let count = 0;
  for (const signedIn of [false, true]) {
    for (const size of widths) {
      const dir = path.join(outDir, `${signedIn ? "signed-in" : "signed-out"}-${size.name}`);
      await mkdir(dir, { recursive: true });
      const ip = newClientIp();
      const visit = await openVisit(browser, server.baseURL, {
        viewport: { width: size.width, height: size.height },
        colorScheme: size.colorScheme,
        extraHTTPHeaders: { "X-Forwarded-For": ip },
      });
      if (signedIn) {
        const visitor = new Visitor(server.baseURL, ip);
        await visitor.signUp(newEmail("screenshots"), "a long and private passphrase");
        await shareCookies(visitor, visit.context);
      }
      for (const target of signedIn ? signedInPages : signedOutPages) {
        await visit.page.goto(target);
        await waitForHydration(visit.page);
        await visit.page.screenshot({ path: path.join(dir, `${fileName(target)}.png`), fullPage: true });
        count++;
      }
      await visit.context.close();
    }
  }
  console.log(`${count} screenshots in ${path.relative(process.cwd(), outDir) || "."}/`);
} finally {
  await browser.close();
  await server.stop();
}
