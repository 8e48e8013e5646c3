/**
 * Lighthouse on mobile (its default form factor: Moto G Power screen, simulated slow 4G and 4x CPU slowdown) for
 * the search, company and manager pages: the four category scores per page (docs/performance.md wants
 * performance >= 95 and 100 for the rest).
 *
 *   node bench/lighthouse.ts                      starts the built server on a throwaway demo-data SQLite database
 *   node bench/lighthouse.ts --url http://host:port [--country US] [--q an]   measures a running server
 *   --runs N                                      runs each page N times and keeps the run with the median
 *                                                 performance score (default 3); the table shows the spread too
 *
 * `runLighthouse` is what `npm run bench` calls to put these rows into bench/results/.
 */
import { parseArgs } from "node:util";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { paths } from "#app/lib/paths.ts";
import { readDemoFacts } from "../tests/e2e/support/demo-facts.ts";
import { startServer } from "../tests/support/server.ts";

export type LighthousePage = { name: string; path: string };

export type LighthouseRow = {
  page: string;
  path: string;
  /** Category scores, 0 to 100. */
  performance: number;
  /** The lowest and highest performance score over the runs: the spread a busy machine causes. */
  performanceRange: [number, number];
  accessibility: number;
  bestPractices: number;
  seo: number;
  /** The performance metrics of the kept run, in milliseconds (CLS has no unit). */
  metrics: { fcp: number; lcp: number; tbt: number; cls: number; speedIndex: number };
  /** Audits of the four categories that did not pass fully, by id, so a lost point can be found. */
  notPassed: string[];
};

const categories = ["performance", "accessibility", "best-practices", "seo"] as const;
const chromePath = process.env.CHROME_PATH ?? "/usr/bin/chromium";
const chromeFlags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

type Result = NonNullable<Awaited<ReturnType<typeof lighthouse>>>["lhr"];

function score(lhr: Result, id: (typeof categories)[number]): number {
  return Math.round((lhr.categories[id]?.score ?? 0) * 100);
}

function metric(lhr: Result, id: string): number {
  const value = lhr.audits[id]?.numericValue ?? Number.NaN;
  return id === "cumulative-layout-shift" ? Math.round(value * 1000) / 1000 : Math.round(value);
}

/** The four scores and metrics of the run with the median performance score, and the spread of that score. */
function rowOf(page: LighthousePage, results: Result[]): LighthouseRow {
  const sorted = results.toSorted((a, b) => score(a, "performance") - score(b, "performance"));
  const lhr = sorted[Math.floor((sorted.length - 1) / 2)]!;
  const notPassed = new Set<string>();
  for (const id of categories) {
    for (const ref of lhr.categories[id]?.auditRefs ?? []) {
      const audit = lhr.audits[ref.id];
      if (ref.weight > 0 && audit && audit.score !== null && audit.score < 1) notPassed.add(ref.id);
    }
  }
  return {
    page: page.name,
    path: page.path,
    performance: score(lhr, "performance"),
    performanceRange: [score(sorted[0]!, "performance"), score(sorted.at(-1)!, "performance")],
    accessibility: score(lhr, "accessibility"),
    bestPractices: score(lhr, "best-practices"),
    seo: score(lhr, "seo"),
    metrics: {
      fcp: metric(lhr, "first-contentful-paint"),
      lcp: metric(lhr, "largest-contentful-paint"),
      tbt: metric(lhr, "total-blocking-time"),
      cls: metric(lhr, "cumulative-layout-shift"),
      speedIndex: metric(lhr, "speed-index"),
    },
    notPassed: [...notPassed].sort(),
  };
}

/** Lighthouse now and then fails to record a trace (NO_NAVSTART and the like) and says to try again: up to 3 tries. */
async function measure(url: string, port: number, log: (line: string) => void): Promise<Result> {
  for (let attempt = 1; ; attempt++) {
    const result = await lighthouse(url, { port, output: "json", logLevel: "error", onlyCategories: [...categories] });
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    const problem = result.lhr.runtimeError;
    if (!problem) return result.lhr;
    if (attempt === 3) throw new Error(`Lighthouse could not measure ${url}: ${problem.code} ${problem.message}`);
    log(`lighthouse: ${problem.code} on ${url}, trying again`);
  }
}

/** Runs Lighthouse (mobile) `runs` times on each page in one headless Chromium and keeps each page's median run. */
export async function runLighthouse(
  baseUrl: string,
  pages: LighthousePage[],
  options: { runs?: number; log?: (line: string) => void } = {},
): Promise<LighthouseRow[]> {
  const runs = options.runs ?? 3;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // Chromium keeps its profile in a fresh temporary --user-data-dir that chrome-launcher removes on kill().
  const chrome = await chromeLauncher.launch({ chromePath, chromeFlags, logLevel: "silent" });
  try {
    const rows: LighthouseRow[] = [];
    for (const page of pages) {
      const results: Result[] = [];
      for (let run = 1; run <= runs; run++) {
        log(`lighthouse: ${page.name} (${page.path}), run ${run} of ${runs}`);
        results.push(await measure(new URL(page.path, baseUrl).href, chrome.port, log));
      }
      rows.push(rowOf(page, results));
    }
    return rows;
  } finally {
    chrome.kill();
  }
}

export function formatLighthouseTable(rows: LighthouseRow[]): string {
  const header = [
    "page",
    "performance",
    "(runs)",
    "accessibility",
    "best practices",
    "SEO",
    "FCP ms",
    "LCP ms",
    "TBT ms",
    "CLS",
  ];
  const lines = rows.map((row) => [
    row.page,
    String(row.performance),
    row.performanceRange[0] === row.performanceRange[1] ? "" : row.performanceRange.join("-"),
    String(row.accessibility),
    String(row.bestPractices),
    String(row.seo),
    String(row.metrics.fcp),
    String(row.metrics.lcp),
    String(row.metrics.tbt),
    String(row.metrics.cls),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => line[i]!.length)));
  const format = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd : cell.padStart).call(cell, widths[i]!)).join("  ");
  const notPassed = rows
    .filter((row) => row.notPassed.length > 0)
    .map((row) => `${row.page}: not fully passed: ${row.notPassed.join(", ")}`);
  return [format(header), ...lines.map(format), ...notPassed].join("\n");
}

/** The pages of a running server found through its public search API: the most reviewed company and manager. */
async function discoverPages(baseUrl: string, country: string, term: string): Promise<LighthousePage[]> {
  const mostReviewed = async (kind: "company" | "manager") => {
    const response = await fetch(new URL(paths.apiSearch(kind, country, term), baseUrl));
    if (!response.ok) throw new Error(`the ${kind} search answered ${response.status}`);
    const { items } = (await response.json()) as { items: Array<{ id: number; reviewCount: number }> };
    const [top] = items.sort((a, b) => b.reviewCount - a.reviewCount);
    if (!top) throw new Error(`no ${kind} in ${country} matches "${term}": pass --country and --q`);
    return top.id;
  };
  return [
    { name: "search", path: paths.search({ country, q: term }) },
    { name: "company", path: paths.company(await mostReviewed("company")) },
    { name: "manager", path: paths.manager(await mostReviewed("manager")) },
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: "string" },
      country: { type: "string", default: "US" },
      q: { type: "string", default: "an" },
      runs: { type: "string", default: "3" },
    },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs takes a whole number of at least 1");
  if (values.url) {
    const pages = await discoverPages(values.url, values.country, values.q);
    console.log(formatLighthouseTable(await runLighthouse(values.url, pages, { runs })));
    return;
  }
  process.stderr.write("lighthouse: starting the built server on a throwaway demo-data database\n");
  const server = await startServer("sqlite");
  try {
    const facts = await readDemoFacts(server.databaseUrl);
    const { busyCompany, manager } = facts;
    const pages = [
      { name: "search", path: paths.search({ country: busyCompany.country, q: busyCompany.name }) },
      { name: "company", path: paths.company(busyCompany.id) },
      { name: "manager", path: paths.manager(manager.id) },
    ];
    console.log(formatLighthouseTable(await runLighthouse(server.baseURL, pages, { runs })));
  } finally {
    await server.stop();
  }
}

if (import.meta.main) await main();
