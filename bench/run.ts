// `npm run bench [-- --sizes 10000,100000,1000000] [--seconds 10] [--postgres] [--workers 1,2]`: the built server
// against a bare
// node:http baseline, on datasets of 10k, 100k and 1M companies, in one run. See docs/performance.md.
import { type ChildProcess, fork, spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import {
  accessToken,
  companyReview,
  freePort,
  newClientIp,
  newMarker,
  newSecret,
  publishQueued,
  root,
  signUp,
  spawnServer,
  waitForHealth,
} from "../scripts/reliability/support.ts";
import { paths } from "#app/lib/paths.ts";
import { testPostgresUrl } from "#tests/support/postgres-url.ts";
import { copyDataset, ensureDataset } from "./dataset.ts";
import { type LighthouseRow, runLighthouse } from "./lighthouse.ts";
import { loadPostgres, markerPrefix, storedReviews, type Target, targetsOf } from "./targets.ts";

const usage = `Usage: npm run bench -- [--sizes 10000,100000,1000000] [--seconds 10] [--connections 50] [--postgres]
                       [--workers 1,2] [--only search,company,manager,review] [--profile DIR] [--no-lighthouse]

Measures the built server with autocannon against a bare node:http JSON answer, on demo datasets of each size
(made once and kept under ./data/bench/). --postgres loads the same datasets into the schemas bench_N of
TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) and runs the server on it. --only runs the
scenarios whose names contain one of the words; --profile writes the server's CPU profiles (.cpuprofile) to DIR.
--workers runs every scenario with each number of server processes (WEB_CONCURRENCY; more than 1 needs
--postgres) and puts their figures side by side. Lighthouse (mobile) scores the search, company and manager pages
on the largest dataset unless --no-lighthouse.`;

const { values } = parseArgs({
  allowNegative: true,
  options: {
    sizes: { type: "string", default: "10000,100000,1000000" },
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "50" },
    postgres: { type: "boolean", default: false },
    workers: { type: "string", default: "1" },
    only: { type: "string" },
    lighthouse: { type: "boolean", default: true },
    profile: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const sizes = values.sizes.split(",").map((size) => Number(size.trim()));
const seconds = Number(values.seconds);
const connections = Number(values.connections);
if (sizes.some((size) => !Number.isInteger(size) || size < 100 || size > 1_000_000) || sizes.length === 0) {
  console.error(`--sizes takes whole numbers from 100 to 1,000,000, not "${values.sizes}".\n\n${usage}`);
  process.exit(2);
}
if (!(seconds >= 1 && seconds <= 600) || !(connections >= 1 && connections <= 1000)) {
  console.error(`--seconds takes 1–600 and --connections 1–1000.\n\n${usage}`);
  process.exit(2);
}
const engine = values.postgres ? "postgres" : "sqlite";
const workerCounts = values.workers.split(",").map((count) => Number(count.trim()));
if (workerCounts.some((count) => !Number.isInteger(count) || count < 1 || count > 64)) {
  console.error(`--workers takes whole numbers from 1 to 64, not "${values.workers}".\n\n${usage}`);
  process.exit(2);
}
if (engine === "sqlite" && workerCounts.some((count) => count > 1)) {
  console.error(`--workers above 1 needs --postgres: SQLite is served by one process.\n\n${usage}`);
  process.exit(2);
}
const postgresUrl = testPostgresUrl();

type Row = {
  size: number;
  /** Server processes (WEB_CONCURRENCY); the baseline is one process. */
  workers: number;
  scenario: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  ratio: number;
  /** Share of answers served from the page cache (X-Cache: hit) in a 2 s sample after the run, when the server said. */
  cacheHits: number | undefined;
};

function step(text: string): void {
  console.log(`\n▸ ${text}`);
}

// The build the server runs must be the current sources.
step("checking the build");
await new Promise<void>((resolve, reject) => {
  const child = spawn(process.execPath, ["scripts/ensure-build.ts"], { cwd: root, stdio: "inherit" });
  child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`ensure-build exited with ${code}`))));
});

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-bench-"));
const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
  fs.rmSync(workDir, { recursive: true, force: true });
});

async function startBaseline(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = fork(path.join(root, "bench/baseline.ts"), { env: { ...process.env, PORT: String(port) } });
  children.add(child);
  await once(child, "message");
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill("SIGTERM");
      await once(child, "exit");
      children.delete(child);
    },
  };
}

async function startCandor(databaseUrl: string, label: string, workers: number) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // Production settings (request logging on, to a file; reviews wait in the publication queue as they do on a real
  // site); behind a trusted proxy, so each simulated visitor has its own rate-limit bucket.
  const secret = newSecret();
  const server = spawnServer(
    { url: databaseUrl, dir: workDir },
    port,
    {
      DEMO_DATA: "never",
      AUTH_SECRET: secret,
      LOG_LEVEL: "info",
      PUBLISH_INTERVAL: "86400",
      MANAGER_MIN_REVIEWS: "3",
      PUBLISH_MIN_AUTHORS: "3",
      WEB_CONCURRENCY: String(workers),
    },
    {
      logFile: path.join(workDir, `${label}.log`),
      nodeArgs: values.profile ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(values.profile)}`] : [],
    },
  );
  // A migration of a 1M dataset may run first.
  await waitForHealth(url, server, 600_000);
  return {
    url,
    secret,
    stop: async () => {
      server.child.kill("SIGTERM");
      await server.exited;
    },
  };
}

type Next = { path: string; body?: string; headers?: Record<string, string>; marker?: string };
type Scenario = {
  name: string;
  method?: "GET" | "POST";
  next: () => Next;
  /** Every distinct request once, asked before the measured run (so the page cache holds them), in place of 2 s. */
  warmUp?: Next[];
};
type Measured = { result: autocannon.Result; hits: number; misses: number; acknowledged: Set<string> };

/**
 * One autocannon run. With `inspect`, it also counts X-Cache answers and the markers of the writes answered 2xx;
 * that makes autocannon collect every response body, which costs the client enough to cap a 22 KB page at well
 * under half of what the server answers, so the measured read runs do without it.
 */
async function measure(
  url: string,
  scenario: Scenario,
  run: { duration: number } | { amount: number },
  inspect = false,
): Promise<Measured> {
  const measured: Omit<Measured, "result"> = { hits: 0, misses: 0, acknowledged: new Set() };
  const result = await autocannon({
    url,
    connections,
    ...run,
    requests: [
      {
        method: scenario.method ?? "GET",
        // One request at a time per connection, so the context holds the marker of the request being answered.
        setupRequest: (request: autocannon.Request, context: Record<string, unknown>) => {
          const next = scenario.next();
          context.marker = next.marker;
          return {
            ...request,
            path: next.path,
            body: next.body,
            headers: { "x-forwarded-for": newClientIp(), ...next.headers },
          };
        },
        onResponse: inspect
          ? (status: number, _body: string, context: Record<string, unknown>, headers?: unknown) => {
              const cache = headerValue(headers, "x-cache");
              if (cache === "hit") measured.hits += 1;
              else if (cache === "miss") measured.misses += 1;
              if (status >= 200 && status < 300 && typeof context.marker === "string") {
                measured.acknowledged.add(context.marker);
              }
            }
          : undefined,
      } as autocannon.Request,
    ],
  });
  return { result, ...measured };
}

/** autocannon hands response headers over as an object or as a flat [name, value, …] list. */
function headerValue(headers: unknown, name: string): string | undefined {
  if (Array.isArray(headers)) {
    for (let index = 0; index < headers.length; index += 2) {
      if (String(headers[index]).toLowerCase() === name) return String(headers[index + 1]);
    }
    return undefined;
  }
  if (headers && typeof headers === "object") {
    for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return String(value);
  }
  return undefined;
}

function pick<T>(items: T[], index: number): T {
  return items[index % items.length]!;
}

/** Skewed like real traffic: a few pages are asked for far more often than the rest (Zipf-like over the list). */
function skewed<T>(items: T[]): () => T {
  return () => items[Math.floor(items.length * Math.random() ** 3)]!;
}

const rows: Row[] = [];
const checks: string[] = [];
let lighthouseRows: LighthouseRow[] = [];
let lighthouseSize = 0;
const startedAt = new Date();
// A cookie of no meaning: the page cache serves only requests without cookies, so these requests are rendered.
const uncached = { cookie: "bench=uncached" };

for (const size of sizes) {
  step(`dataset of ${size.toLocaleString("en")} companies`);
  const { file, info } = await ensureDataset(size);
  console.log(
    `  ${info.companies.toLocaleString("en")} companies, ${info.companyReviews.toLocaleString("en")} company reviews, ` +
      `${info.managers.toLocaleString("en")} managers, ${info.managerReviews.toLocaleString("en")} manager reviews`,
  );
  const targets: Target = targetsOf(file);
  let databaseUrl: string;
  if (engine === "sqlite") {
    step("copying the dataset for this run");
    databaseUrl = copyDataset(file, workDir);
  } else {
    step("loading the dataset into PostgreSQL");
    databaseUrl = await loadPostgres(file, postgresUrl, size);
  }

  step(`baseline: bare node:http JSON, ${seconds} s`);
  const baseline = await startBaseline();
  await measure(baseline.url, { name: "warm-up", next: () => ({ path: "/" }) }, { duration: 1 });
  const base = await measure(baseline.url, { name: "baseline", next: () => ({ path: "/" }) }, { duration: seconds });
  await baseline.stop();
  const baseRps = base.result.requests.average;
  rows.push(rowOf(size, "baseline (node:http)", base, baseRps, 1));
  // Reviews acknowledged at this size, over every worker count (they all land in the same database).
  const acknowledged = new Set<string>();

  for (const workers of workerCounts) {
    step(`starting the built server, ${workers} process${workers === 1 ? "" : "es"}`);
    const candor = await startCandor(databaseUrl, `candor-${size}-${workers}`, workers);

    let searchIndex = 0;
    const searchPath = ({ country, term }: { country: string; term: string }) => ({
      path: `/api/v1/companies?country=${country}&q=${encodeURIComponent(term)}`,
    });
    const search = () => searchPath(pick(targets.searches, searchIndex++));
    const companyPage = skewed(targets.companyIds);
    const managerPage = skewed(targets.managerIds);
    const everyOnce = <T>(items: T[], next: (item: T) => Next) => [...new Set(items)].map(next);
    const scenarios: Scenario[] = [
      { name: "search API", next: search, warmUp: everyOnce(targets.searches, searchPath) },
      {
        name: "company page (HTML)",
        next: () => ({ path: `/company/${companyPage()}` }),
        warmUp: everyOnce(targets.companyIds, (id) => ({ path: `/company/${id}` })),
      },
      {
        name: "manager profile (HTML)",
        next: () => ({ path: `/manager-profile/${managerPage()}` }),
        warmUp: everyOnce(targets.managerIds, (id) => ({ path: `/manager-profile/${id}` })),
      },
      { name: "search API, uncached", next: () => ({ ...search(), headers: uncached }) },
      { name: "company page (HTML), uncached", next: () => ({ path: `/company/${companyPage()}`, headers: uncached }) },
    ];
    const wanted = (name: string) => !values.only || values.only.split(",").some((word) => name.includes(word.trim()));
    for (const scenario of scenarios.filter((candidate) => wanted(candidate.name))) {
      const { warmUp } = scenario;
      if (warmUp) {
        step(
          `${scenario.name} at ${size.toLocaleString("en")}: each of ${warmUp.length} requests once, then ${seconds} s`,
        );
        let index = 0;
        await measure(candor.url, { ...scenario, next: () => pick(warmUp, index++) }, { amount: warmUp.length });
      } else {
        step(`${scenario.name} at ${size.toLocaleString("en")}: 2 s warm-up, then ${seconds} s`);
        await measure(candor.url, scenario, { duration: 2 });
      }
      const measured = await measure(candor.url, scenario, { duration: seconds });
      // The share the page cache answered, from a 2 s sample right after (see measure()).
      const sample = await measure(candor.url, scenario, { duration: 2 }, true);
      rows.push(
        rowOf(size, scenario.name, { ...measured, hits: sample.hits, misses: sample.misses }, baseRps, workers),
      );
    }

    if (values.lighthouse && size === Math.max(...sizes) && workers === workerCounts[0]) {
      step("Lighthouse, mobile: search, company and manager pages, 3 runs each");
      const { country, term } = targets.searches[0]!;
      lighthouseRows = await runLighthouse(
        candor.url,
        [
          { name: "search", path: paths.search({ country, q: term }) },
          { name: "company", path: paths.company(targets.companyIds[0]!) },
          { name: "manager", path: paths.manager(targets.managerIds[0]!) },
        ],
        { log: (line) => console.log(`  ${line}`) },
      );
      lighthouseSize = size;
    }

    if (!wanted("review submission")) {
      await candor.stop();
      continue;
    }
    step(`review submission (signed in, API), ${seconds} s`);
    const tokens: string[] = [];
    for (let i = 0; i < 8; i++) {
      const email = `bench-${size}-${workers}-${i}-${Date.now()}@example.com`;
      await signUp(candor.url, email);
      tokens.push(await accessToken(candor.url, email));
    }
    const reviewTargets = targets.reviewCompanyIds;
    let reviewIndex = 0;
    const submit: Scenario = {
      name: "review submission",
      method: "POST",
      next: () => {
        const index = reviewIndex++;
        const marker = newMarker().replace("crashmarker", markerPrefix);
        return {
          path: `/api/v1/companies/${pick(reviewTargets, index)}/reviews`,
          body: JSON.stringify(companyReview(marker, index)),
          headers: { "content-type": "application/json", authorization: `Bearer ${pick(tokens, index)}` },
          marker,
        };
      },
    };
    const submitted = await measure(candor.url, submit, { duration: seconds }, true);
    for (const marker of submitted.acknowledged) acknowledged.add(marker);
    await candor.stop();
    // The acknowledged reviews wait in the queue: one publication run makes them public, as the schedule would.
    const publishing = performance.now();
    const publication = publishQueued({ url: databaseUrl, dir: workDir }, { AUTH_SECRET: candor.secret }).trim();
    const publishSeconds = ((performance.now() - publishing) / 1000).toFixed(1);
    // Every acknowledged review stored exactly once; the rest were cut off in flight when the run stopped.
    const stored = await storedReviews(databaseUrl, reviewTargets);
    const lost = [...acknowledged].filter((marker) => !stored.markers.has(marker)).length;
    const duplicated = [...stored.markers.values()].filter((count) => count > 1).length;
    const inFlight = [...stored.markers.keys()].filter((marker) => !acknowledged.has(marker)).length;
    const note =
      `${workers} process${workers === 1 ? "" : "es"}: ${submitted.acknowledged.size} acknowledged (${acknowledged.size} at this size so far), ${lost} lost, ${duplicated} duplicated, ` +
      `${inFlight} stored while in flight at the stop; aggregate mismatches: ${stored.mismatches} of ` +
      `${new Set(reviewTargets).size} companies (after one publication run of ${publishSeconds} s: ${publication})`;
    checks.push(`${size.toLocaleString("en")} companies: ${note}`);
    rows.push(rowOf(size, "review submission", submitted, baseRps, workers));
    if (lost > 0 || duplicated > 0 || stored.mismatches > 0 || submitted.acknowledged.size === 0) process.exitCode = 1;
  }
}

function rowOf(
  size: number,
  scenario: string,
  { result, hits, misses }: Measured,
  baseRps: number,
  workers: number,
): Row {
  const errors = result.errors + result.timeouts + result.non2xx;
  return {
    size,
    workers,
    scenario,
    requests: result.requests.total,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors,
    ratio: result.requests.average / baseRps,
    cacheHits: hits + misses > 0 ? hits / (hits + misses) : undefined,
  };
}

// The table: every scenario at every size, with its share of the baseline and the growth of its median latency.
const smallest = Math.min(...sizes);
const header =
  "| companies | processes | scenario | req/s | p50 ms | p99 ms | errors | vs baseline | p50 vs smallest | cache hits (sample) |\n" +
  "| --: | --: | --- | --: | --: | --: | --: | --: | --: | --: |";
const lines = rows.map((row) => {
  const first = rows.find(
    (other) => other.size === smallest && other.scenario === row.scenario && other.workers === row.workers,
  );
  const growth = first && first.p50 > 0 ? `${(row.p50 / first.p50).toFixed(2)}x` : "–";
  return `| ${row.size.toLocaleString("en")} | ${row.workers} | ${row.scenario} | ${row.rps.toLocaleString("en")} | ${row.p50} | ${row.p99} | ${row.errors} | ${(row.ratio * 100).toFixed(1)}% | ${growth} | ${row.cacheHits === undefined ? "–" : `${(row.cacheHits * 100).toFixed(1)}%`} |`;
});
const table = [header, ...lines].join("\n");
// With several worker counts: each scenario's req/s per count side by side, and each against the first count.
const sideBySide =
  workerCounts.length < 2
    ? []
    : [
        `| companies | scenario | ${workerCounts.map((count) => `req/s, ${count} process${count === 1 ? "" : "es"}`).join(" | ")} | ${workerCounts
          .slice(1)
          .map((count) => `${count} vs ${workerCounts[0]}`)
          .join(" | ")} |`,
        `| --: | --- | ${[...workerCounts, ...workerCounts.slice(1)].map(() => "--:").join(" | ")} |`,
        ...sizes.flatMap((size) =>
          [
            ...new Set(
              rows
                .filter((row) => row.size === size && row.scenario !== "baseline (node:http)")
                .map((row) => row.scenario),
            ),
          ].map((scenario) => {
            const rps = workerCounts.map(
              (count) =>
                rows.find((row) => row.size === size && row.scenario === scenario && row.workers === count)?.rps,
            );
            const ratios = rps.slice(1).map((value) => (value && rps[0] ? `${(value / rps[0]).toFixed(2)}x` : "–"));
            return `| ${size.toLocaleString("en")} | ${scenario} | ${rps.map((value) => value?.toLocaleString("en") ?? "–").join(" | ")} | ${ratios.join(" | ")} |`;
          }),
        ),
        "",
      ];
const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}`;
const report = [
  `# Benchmark ${startedAt.toISOString()}`,
  "",
  `Engine: ${engine}. ${machine}. autocannon, ${connections} connections, ${seconds} s per scenario after a warm-up.`,
  "",
  table,
  "",
  ...sideBySide,
  "Review submission checks:",
  ...checks.map((check) => `- ${check}`),
  "",
  ...(lighthouseRows.length > 0
    ? [
        `Lighthouse (npm package), mobile, on the ${lighthouseSize.toLocaleString("en")}-company dataset (median of 3 runs by performance):`,
        "",
        "| page | performance | (runs) | accessibility | best practices | SEO | FCP ms | LCP ms | TBT ms | CLS |",
        "| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: |",
        ...lighthouseRows.map(
          (row) =>
            `| ${row.page} \`${row.path}\` | ${row.performance} | ${row.performanceRange.join("–")} | ${row.accessibility} | ` +
            `${row.bestPractices} | ${row.seo} | ${row.metrics.fcp} | ${row.metrics.lcp} | ${row.metrics.tbt} | ${row.metrics.cls} |`,
        ),
        "",
      ]
    : []),
].join("\n");
console.log(`\n${report}`);
const resultsDir = path.join(root, "bench/results");
fs.mkdirSync(resultsDir, { recursive: true });
const stamp = startedAt.toISOString().replace(/[:]/g, "-").replace(/\..*/, "");
const name = `${stamp}-${engine}${workerCounts.length > 1 || workerCounts[0] !== 1 ? `-workers-${workerCounts.join("-")}` : ""}`;
fs.writeFileSync(path.join(resultsDir, `${name}.md`), report);
fs.writeFileSync(path.join(resultsDir, `${name}.json`), `${JSON.stringify({ engine, rows }, null, 2)}\n`);
console.log(`Written to bench/results/${name}.md`);
