import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type Page } from "playwright-core";

/** Debian's Chromium: the test machines reach no browser download site, only Debian's packages. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export type Visit = {
  context: BrowserContext;
  page: Page;
  /** Console errors (CSP violations among them), uncaught page errors and failed requests, as they happen. */
  problems: string[];
};

/** A fresh browser context (no cookies, no cache) with one page, recording every problem the page reports. */
export async function openVisit(
  browser: Browser,
  baseURL: string,
  options: BrowserContextOptions = {},
): Promise<Visit> {
  const context = await browser.newContext({ baseURL, ...options });
  const problems: string[] = [];
  const scriptsOff = options.javaScriptEnabled === false;
  context.on("console", (message) => {
    if (message.type() !== "error" && message.type() !== "warning") return;
    // A page that answers 404 on purpose (unknown company, unknown address) is not an error of the page.
    const documentAnswered404 =
      message.text().includes("status of 404") && message.location().url === message.page()?.url();
    if (!documentAnswered404) problems.push(`console ${message.type()} on ${message.page()?.url()}: ${message.text()}`);
  });
  context.on("weberror", (error) => problems.push(`page error: ${error.error().message}`));
  context.on("requestfailed", (request) => {
    const reason = request.failure()?.errorText;
    // With JavaScript off, Chromium refuses to fetch scripts; a navigation aborts a superseded fetch on purpose.
    if (reason === "net::ERR_ABORTED" || (scriptsOff && request.resourceType() === "script")) return;
    problems.push(`request failed: ${request.url()} ${reason}`);
  });
  const page = await context.newPage();
  return { context, page, problems };
}

/** Closes the visit's context and returns what went wrong while it was open. */
export async function closeVisit(visit: Visit | undefined): Promise<string[]> {
  if (!visit) return [];
  await visit.context.close();
  return visit.problems.splice(0);
}

/** Resolves once React has hydrated the page (it marks each DOM node it owns), so handlers are attached. */
export async function waitForHydration(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const main = document.querySelector("main");
    return main !== null && Object.keys(main).some((key) => key.startsWith("__reactFiber"));
  });
}
