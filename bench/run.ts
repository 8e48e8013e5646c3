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
  apiCredentials,
  companyReview,
  freePort,
  newClientIp,
  newMarker,
  newSecret,
  publishQueued,
  quantile,
  root,
  signIn,
  signUp,
  sleep,
  spawnServer,
  waitForHealth,
} from "../scripts/reliability/support.ts";
import { paths } from "#app/lib/paths.ts";
import { testPostgresUrl } from "#tests/support/postgres-url.ts";
import { copyDataset, ensureDataset } from "./dataset.ts";
import { type LighthouseRow, runLighthouse } from "./lighthouse.ts";
import {
  copyPostgres,
  helpfulCounts,
  loadPostgres,
  markerPrefix,
  newSearchTerms,
  storedReviews,
  type Target,
  targetsOf,
} from "./targets.ts";

const usage = `Usage: npm run bench -- [--sizes 10000,100000,1000000] [--seconds 10] [--connections 50] [--postgres]
                       [--workers 1,2] [--only search,company,manager,review,mixed,writes] [--mixed-seconds 60]
                       [--heap MB] [--profile DIR] [--no-lighthouse]

Measures the built server with autocannon against a bare node:http JSON answer, on demo datasets of each size
(made once and kept under ./data/bench/). --postgres loads the same datasets, once, into databases
candor_bench_N on the server of TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) and runs the
server on a throwaway copy of one (CREATE DATABASE … TEMPLATE). --only runs the
scenarios whose names contain one of the words; --profile writes the server's CPU profiles (.cpuprofile) to DIR.
--heap caps the server's V8 heap (--max-old-space-size), to see what its peak memory owes to a lazy collector.
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
    "mixed-seconds": { type: "string", default: "60" },
    heap: { type: "string" },
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
const mixedSeconds = Number(values["mixed-seconds"]);
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
  /** Share of the measured run's answers served from the page cache, counted from the server's request log. */
  cacheHits: number | undefined;
  /** The server's CPU time (user and system, all its processes) per answered request during the measured run. */
  cpuMs: number | undefined;
};

type MixedClass = "signedOut" | "signedIn" | "search" | "api" | "write";
const mixedShares: Record<MixedClass, { share: number; label: string }> = {
  signedOut: { share: 0.7, label: "signed-out page views (company 65%, manager 35%, skewed)" },
  signedIn: { share: 0.1, label: "signed-in page views (real session cookie)" },
  search: { share: 0.15, label: "searches with new terms (API)" },
  api: { share: 0.04, label: "API reads (a company, its reviews)" },
  write: { share: 0.01, label: "review writes (API, queued)" },
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

async function startCandor(
  databaseUrl: string,
  label: string,
  workers: number,
  overrides: Record<string, string> = {},
) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // Production settings (request logging on, to a file; reviews wait in the publication queue as they do on a real
  // site); behind a trusted proxy, so each simulated visitor has its own rate-limit bucket.
  const secret = newSecret();
  const logFile = path.join(workDir, `${label}.log`);
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
      ...overrides,
    },
    {
      logFile,
      nodeArgs: [
        ...(values.profile ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(values.profile)}`] : []),
        ...(values.heap ? [`--max-old-space-size=${Number(values.heap)}`] : []),
      ],
    },
  );
  // A migration of a 1M dataset may run first.
  await waitForHealth(url, server, 600_000);
  return {
    url,
    secret,
    pid: server.child.pid!,
    logFile,
    stop: async () => {
      server.child.kill("SIGTERM");
      await server.exited;
    },
  };
}
type Candor = Awaited<ReturnType<typeof startCandor>>;

/** The pid and every descendant of it (the workers, with WEB_CONCURRENCY above 1). */
function processTree(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // the process ended meanwhile
    }
  }
  const tree = [rootPid];
  for (let index = 0; index < tree.length; index += 1) tree.push(...(children.get(tree[index]!) ?? []));
  return tree;
}

/** CPU seconds (user + system) the processes have used so far; /proc counts in ticks of 1/100 s. */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // the process ended meanwhile
    }
  }
  return ticks / 100;
}

/** The peak resident memory (VmHWM) of the server's processes, summed, in MB. */
function peakRssMb(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      kb += Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // the process ended meanwhile
    }
  }
  return Math.round(kb / 1024);
}

/** The request log's size once it has stopped growing for half a second (at most 30 s): where a new run begins. */
async function settledLog(logFile: string): Promise<number> {
  let size = fs.statSync(logFile).size;
  for (let waited = 0; waited < 30_000; waited += 500) {
    await sleep(500);
    const now = fs.statSync(logFile).size;
    if (now === size) break;
    size = now;
  }
  return size;
}

/** Page-cache answers in the server's request log from byte `from` on: hits and misses. */
function cacheCounts(logFile: string, from: number): { hits: number; misses: number } {
  const text = fs.readFileSync(logFile).subarray(from).toString("utf8");
  return {
    hits: text.split('"cache":"hit"').length - 1,
    misses: text.split('"cache":"miss"').length - 1,
  };
}

type Next = { path: string; method?: "GET" | "POST"; body?: string; headers?: Record<string, string>; marker?: string };
type Scenario = {
  name: string;
  method?: "GET" | "POST";
  next: () => Next;
  /** Every distinct request once, asked before the measured run (so the page cache holds them), in place of 2 s. */
  warmUp?: Next[];
  /**
   * After the warm-up, each of its requests is asked again until its answer says this (the page cache makes the
   * compressed forms of a kept page in zlib's threads after the first compressed request; the row measures pages
   * whose forms are stored, as a site's pages are after their first few readers).
   */
  settledWhen?: (response: Response) => boolean;
};
/** Asks each request until its answer is `settled` (at most a minute, then says how many were not). */
async function settle(url: string, requests: Next[], settled: (response: Response) => boolean): Promise<void> {
  const started = performance.now();
  let pending = requests;
  while (pending.length > 0 && performance.now() - started < 60_000) {
    const left: Next[] = [];
    for (const request of pending) {
      const response = await fetch(new URL(request.path, url), { headers: request.headers });
      await response.arrayBuffer();
      if (!settled(response)) left.push(request);
    }
    pending = left;
    if (pending.length > 0) await sleep(100);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`  settled in ${seconds} s${pending.length > 0 ? `; ${pending.length} requests never did` : ""}`);
}

type Measured = {
  result: autocannon.Result;
  /** Of the 2xx answers, in milliseconds to the microsecond: autocannon's own percentiles are whole milliseconds. */
  latency: { p50: number; p99: number };
  hits: number;
  misses: number;
  acknowledged: Set<string>;
};

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
  const measured: Omit<Measured, "result" | "latency"> = { hits: 0, misses: 0, acknowledged: new Set() };
  // autocannon's histogram truncates every time to whole milliseconds, and a kept answer's median is 2–4 ms: its
  // growth between sizes would read 1.00x, 1.33x or 2.00x by rounding alone. The time it reports per answer is exact.
  const latencies: number[] = [];
  const options: autocannon.Options = {
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
            method: next.method ?? scenario.method ?? "GET",
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
  };
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (error: unknown, done: autocannon.Result) =>
      error ? reject(error as Error) : resolve(done),
    );
    instance.on("response", (_client, status, _bytes, milliseconds) => {
      if (status >= 200 && status < 300) latencies.push(milliseconds);
    });
  });
  latencies.sort((a, b) => a - b);
  return { result, latency: { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) }, ...measured };
}

/**
 * A measured run against the server, with what the server says of it: the share of answers from the page cache (its
 * request log) and its CPU time per request (/proc), both over exactly the measured run.
 */
async function measureServer(
  server: Candor,
  scenario: Scenario,
  run: { duration: number } | { amount: number },
  inspect = false,
): Promise<Measured & { cpuMs: number }> {
  const pids = processTree(server.pid);
  // The request log is written as requests end: let the previous run's last lines land first, including the answers
  // to requests its client gave up on (an overloaded server still works through them).
  const offset = await settledLog(server.logFile);
  const cpuBefore = cpuSeconds(pids);
  const measured = await measure(server.url, scenario, run, inspect);
  const cpu = cpuSeconds(pids) - cpuBefore;
  await sleep(300);
  const { hits, misses } = cacheCounts(server.logFile, offset);
  return { ...measured, hits, misses, cpuMs: (cpu * 1000) / Math.max(1, measured.result.requests.total) };
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
const mixedTables: string[] = [];
const memory: string[] = [];
const loads: string[] = [];
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
  let dropCopy = async () => {};
  if (engine === "sqlite") {
    step("copying the dataset for this run, then reading the copy once");
    databaseUrl = copyDataset(file, workDir);
  } else {
    step("loading the dataset into PostgreSQL");
    const template = await loadPostgres(file, postgresUrl, size);
    step("copying the dataset for this run");
    const copy = await copyPostgres(postgresUrl, template);
    databaseUrl = copy.url;
    dropCopy = copy.drop;
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

  const seenTerms = new Set<string>();
  const newTerm = newSearchTerms(targets.names, seenTerms, targets.searches);
  const loadAtStart = os.loadavg();

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
    // Accounts made through the sign-up form; their sessions come from the sign-in form, their tokens from the API.
    const accounts: Array<{ cookie: string; token: string }> = [];
    for (let i = 0; i < 8; i++) {
      const email = `bench-${size}-${workers}-${i}-${Date.now()}@example.com`;
      await signUp(candor.url, email);
      accounts.push({ cookie: await signIn(candor.url, email), token: await accessToken(candor.url, email) });
    }
    let accountIndex = 0;
    const session = () => ({ cookie: pick(accounts, accountIndex++).cookie });
    const browser = { "accept-encoding": "br, gzip" };
    const scenarios: Scenario[] = [
      { name: "search API", next: search, warmUp: everyOnce(targets.searches, searchPath) },
      {
        name: "company page (HTML)",
        next: () => ({ path: `/company/${companyPage()}` }),
        warmUp: everyOnce(targets.companyIds, (id) => ({ path: `/company/${id}` })),
      },
      {
        name: "company page (HTML), br, gzip",
        next: () => ({ path: `/company/${companyPage()}`, headers: browser }),
        warmUp: everyOnce(targets.companyIds, (id) => ({ path: `/company/${id}`, headers: browser })),
        settledWhen: (response) => response.headers.get("content-encoding") !== null,
      },
      {
        name: "manager profile (HTML)",
        next: () => ({ path: `/manager-profile/${managerPage()}` }),
        warmUp: everyOnce(targets.managerIds, (id) => ({ path: `/manager-profile/${id}` })),
      },
      { name: "search API, new terms", next: () => searchPath(newTerm()) },
      { name: "company page (HTML), uncached", next: () => ({ path: `/company/${companyPage()}`, headers: uncached }) },
      // Measured like the signed-out pages: each page asked once first (a signed-in reader's page is kept too,
      // decision 0034). The readers have voted for nothing, so each is answered the copy kept for all of them.
      {
        name: "company page (HTML), signed in",
        next: () => ({ path: `/company/${companyPage()}`, headers: session() }),
        warmUp: everyOnce(targets.companyIds, (id) => ({ path: `/company/${id}`, headers: session() })),
      },
      {
        name: "manager profile (HTML), signed in",
        next: () => ({ path: `/manager-profile/${managerPage()}`, headers: session() }),
        warmUp: everyOnce(targets.managerIds, (id) => ({ path: `/manager-profile/${id}`, headers: session() })),
      },
    ];
    for (const scenario of scenarios.filter((candidate) => wanted(candidate.name))) {
      const { warmUp } = scenario;
      if (warmUp) {
        step(
          `${scenario.name} at ${size.toLocaleString("en")}: each of ${warmUp.length} requests once, then ${seconds} s`,
        );
        let index = 0;
        await measure(candor.url, { ...scenario, next: () => pick(warmUp, index++) }, { amount: warmUp.length });
        if (scenario.settledWhen) await settle(candor.url, warmUp, scenario.settledWhen);
      } else {
        step(`${scenario.name} at ${size.toLocaleString("en")}: 2 s warm-up, then ${seconds} s`);
        await measure(candor.url, scenario, { duration: 2 });
      }
      const measured = await measureServer(candor, scenario, { duration: seconds });
      rows.push(rowOf(size, scenario.name, measured, baseRps, workers));
    }

    if (wanted("mixed")) {
      step(`mixed workload at ${size.toLocaleString("en")}: ${mixedSeconds} s`);
      mixedTables.push(
        await mixedWorkload(candor, size, baseRps, {
          signedOut: () =>
            Math.random() < 0.65
              ? { path: `/company/${companyPage()}` }
              : { path: `/manager-profile/${managerPage()}` },
          signedIn: () =>
            Math.random() < 0.65
              ? { path: `/company/${companyPage()}`, headers: session() }
              : { path: `/manager-profile/${managerPage()}`, headers: session() },
          search: () => searchPath(newTerm()),
          api: () =>
            Math.random() < 0.5
              ? { path: `/api/v1/companies/${companyPage()}` }
              : { path: `/api/v1/companies/${companyPage()}/reviews` },
          write: () => reviewOf(pick(targets.reviewCompanyIds, accountIndex), pick(accounts, accountIndex++).token),
        }),
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

    if (wanted("review submission")) {
      step(`review submission (signed in, API), ${seconds} s`);
      const reviewTargets = targets.reviewCompanyIds;
      let reviewIndex = 0;
      const submit: Scenario = {
        name: "review submission",
        method: "POST",
        next: () => {
          const index = reviewIndex++;
          return reviewOf(pick(reviewTargets, index), pick(accounts, index).token, index, true);
        },
      };
      const submitted = await measureServer(candor, submit, { duration: seconds }, true);
      for (const marker of submitted.acknowledged) acknowledged.add(marker);
      rows.push(rowOf(size, "review submission", submitted, baseRps, workers));
      if (wanted("helpful vote")) await helpfulVotes(candor, size, workers, reviewTargets, databaseUrl, baseRps);
      memory.push(
        `${size.toLocaleString("en")} companies, ${workers} process(es): ${peakRssMb(processTree(candor.pid))} MB`,
      );
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
      if (lost > 0 || duplicated > 0 || stored.mismatches > 0 || submitted.acknowledged.size === 0) {
        process.exitCode = 1;
      }
    } else {
      memory.push(
        `${size.toLocaleString("en")} companies, ${workers} process(es): ${peakRssMb(processTree(candor.pid))} MB`,
      );
      await candor.stop();
    }
  }

  if (wanted("writes")) await keptPagesUnderWrites(size, databaseUrl, targets, baseRps);
  await dropCopy();
  const loadAtEnd = os.loadavg();
  loads.push(
    `${size.toLocaleString("en")} companies: load average ${loadAtStart.map((value) => value.toFixed(1)).join(", ")} ` +
      `(1, 5, 15 min) at the start, ${loadAtEnd.map((value) => value.toFixed(1)).join(", ")} at the end`,
  );
}

/**
 * Helpful votes through the API on up to 500 reviews of `companyIds`, by 8 fresh accounts (so each (account, review)
 * pair is new until they wrap around). Afterwards each review's count must have grown by at least the votes
 * acknowledged for it (none lost) and at most by the accounts that sent it one (none counted twice); what lies between
 * was in flight when the run stopped. The aggregate check after the publication holds all counts to the receipts.
 */
async function helpfulVotes(
  candor: Candor,
  size: number,
  workers: number,
  companyIds: number[],
  databaseUrl: string,
  baseRps: number,
): Promise<void> {
  step(`helpful votes (signed in, API), ${seconds} s`);
  const voters: Array<{ token: string; voteKey: string }> = [];
  for (let i = 0; i < 8; i++) {
    const email = `bench-voter-${size}-${workers}-${i}-${Date.now()}@example.com`;
    await signUp(candor.url, email);
    voters.push(await apiCredentials(candor.url, email));
  }
  const before = await helpfulCounts(databaseUrl, companyIds);
  const reviewIds = [...before.keys()];
  let voteIndex = 0;
  const sent = new Set<string>();
  const vote: Scenario = {
    name: "helpful vote",
    method: "POST",
    next: () => {
      const index = voteIndex++;
      const voter = index % voters.length;
      const reviewId = pick(reviewIds, Math.floor(index / voters.length));
      const { token, voteKey } = voters[voter]!;
      sent.add(`${reviewId} ${voter}`);
      return {
        path: "/api/v1/helpful-votes",
        body: JSON.stringify({ review_id: reviewId, helpful: true }),
        headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "candor-vote-key": voteKey },
        marker: `${reviewId} ${voter}`,
      };
    },
  };
  const voted = await measureServer(candor, vote, { duration: seconds }, true);
  const after = await helpfulCounts(databaseUrl, companyIds);
  const perReview = (markers: Set<string>) => {
    const counts = new Map<string, number>();
    for (const marker of markers) counts.set(marker.split(" ")[0]!, (counts.get(marker.split(" ")[0]!) ?? 0) + 1);
    return counts;
  };
  const acknowledged = perReview(voted.acknowledged);
  const senders = perReview(sent);
  const grown = (id: string) => (after.get(id) ?? 0) - (before.get(id) ?? 0);
  const lost = reviewIds.filter((id) => grown(id) < (acknowledged.get(id) ?? 0)).length;
  const twice = reviewIds.filter((id) => grown(id) > (senders.get(id) ?? 0)).length;
  const inFlight = reviewIds.reduce((sum, id) => sum + Math.max(0, grown(id) - (acknowledged.get(id) ?? 0)), 0);
  checks.push(
    `${size.toLocaleString("en")} companies, ${workers} process${workers === 1 ? "" : "es"}: ${voted.acknowledged.size} helpful votes acknowledged on ${reviewIds.length} reviews; reviews with a vote lost: ${lost}, with more votes than accounts that sent one: ${twice}; ${inFlight} counted while in flight at the stop`,
  );
  rows.push(rowOf(size, "helpful vote", voted, baseRps, workers));
  if (lost > 0 || twice > 0 || (reviewIds.length > 0 && voted.acknowledged.size === 0)) process.exitCode = 1;
}

/**
 * A review of `companyId` through the API with `token`, carrying a marker: of this run's checked submissions when
 * `checked`, else one the submission check does not count.
 */
function reviewOf(companyId: number, token: string, seed = 0, checked = false): Next {
  const marker = checked ? newMarker().replace("crashmarker", markerPrefix) : newMarker();
  return {
    path: `/api/v1/companies/${companyId}/reviews`,
    method: "POST",
    body: JSON.stringify(companyReview(marker, seed)),
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    marker,
  };
}

function wanted(name: string): boolean {
  return !values.only || values.only.split(",").some((word) => name.includes(word.trim()));
}

/**
 * Kept pages while reviews are published, one a second: a server that publishes each submission at once
 * (PUBLISH_INTERVAL=0, the harshest schedule: every review its own batch), the same reads measured without and
 * then with the writes. The writes go to companies drawn with the readers' skew, so some land on read pages.
 */
async function keptPagesUnderWrites(size: number, databaseUrl: string, targets: Target, baseRps: number) {
  step(`kept pages while one review a second is published, at ${size.toLocaleString("en")}`);
  const candor = await startCandor(databaseUrl, `candor-writes-${size}`, 1, {
    PUBLISH_INTERVAL: "0",
    PUBLISH_MIN_AUTHORS: "1",
    MANAGER_MIN_REVIEWS: "1",
  });
  // One review per account and company (and 30 an hour per account): enough accounts for the runs' writes.
  const tokens: string[] = [];
  for (let i = 0; i < 4; i++) {
    const email = `bench-writes-${size}-${i}-${Date.now()}@example.com`;
    await signUp(candor.url, email);
    tokens.push(await accessToken(candor.url, email));
  }
  const reviewed = new Set<string>();
  const companyPage = skewed(targets.companyIds);
  const nextWrite = () => {
    for (;;) {
      const company = companyPage();
      const account = tokens.findIndex((_, index) => !reviewed.has(`${index}:${company}`));
      if (account === -1) continue;
      reviewed.add(`${account}:${company}`);
      return { company, account };
    }
  };
  let searchIndex = 0;
  const readers: Scenario[] = [
    {
      name: "company page (HTML)",
      next: () => ({ path: `/company/${companyPage()}` }),
      warmUp: [...new Set(targets.companyIds)].map((id) => ({ path: `/company/${id}` })),
    },
    {
      name: "search API",
      next: () => {
        const { country, term } = pick(targets.searches, searchIndex++);
        return { path: `/api/v1/companies?country=${country}&q=${encodeURIComponent(term)}` };
      },
      warmUp: targets.searches.map(({ country, term }) => ({
        path: `/api/v1/companies?country=${country}&q=${encodeURIComponent(term)}`,
      })),
    },
  ];
  for (const reader of readers) {
    let index = 0;
    const warmUp = reader.warmUp!;
    await measure(candor.url, { ...reader, next: () => pick(warmUp, index++) }, { amount: warmUp.length });
    const quiet = await measureServer(candor, reader, { duration: seconds });
    rows.push(rowOf(size, `${reader.name}, no writes (publishing server)`, quiet, baseRps, 1));
    let written = 0;
    let failed = 0;
    const inFlight: Promise<unknown>[] = [];
    const writer = setInterval(() => {
      const { company, account } = nextWrite();
      const review = reviewOf(company, tokens[account]!, written);
      const sent = fetch(`${candor.url}${review.path}`, {
        method: "POST",
        body: review.body,
        headers: { ...review.headers, "x-forwarded-for": newClientIp() },
      }).then(
        async (response) => {
          await response.body?.cancel();
          if (response.status === 201) written += 1;
          else failed += 1;
        },
        () => (failed += 1),
      );
      inFlight.push(sent);
    }, 1000);
    const busy = await measureServer(candor, reader, { duration: seconds });
    clearInterval(writer);
    await Promise.all(inFlight);
    const row = rowOf(size, `${reader.name}, 1 review/s published`, busy, baseRps, 1);
    rows.push(row);
    const kept = (busy.result.requests.average / quiet.result.requests.average) * 100;
    checks.push(
      `${size.toLocaleString("en")} companies, ${reader.name} while one review a second is published: ` +
        `${written} reviews published (${failed} refused), ${kept.toFixed(1)}% of the throughput without writes, ` +
        `${row.cacheHits === undefined ? "–" : (row.cacheHits * 100).toFixed(1)}% of answers from the cache`,
    );
  }
  memory.push(`${size.toLocaleString("en")} companies, publishing server: ${peakRssMb(processTree(candor.pid))} MB`);
  await candor.stop();
}

/**
 * The mixed workload: each request drawn by the shares above, latency measured per class (from the moment
 * autocannon builds the request to its answer). Answers a Markdown table.
 */
async function mixedWorkload(
  candor: Candor,
  size: number,
  baseRps: number,
  next: Record<MixedClass, () => Next>,
): Promise<string> {
  const classes = Object.keys(mixedShares) as MixedClass[];
  const latencies = new Map<MixedClass, number[]>(classes.map((name) => [name, []]));
  const failures = new Map<MixedClass, number>(classes.map((name) => [name, 0]));
  const draw = (): MixedClass => {
    let roll = Math.random();
    for (const name of classes) {
      roll -= mixedShares[name].share;
      if (roll < 0) return name;
    }
    return "signedOut";
  };
  const pids = processTree(candor.pid);
  const offset = await settledLog(candor.logFile);
  const cpuBefore = cpuSeconds(pids);
  const result = await autocannon({
    url: candor.url,
    connections,
    duration: mixedSeconds,
    requests: [
      {
        setupRequest: (request: autocannon.Request, context: Record<string, unknown>) => {
          const kind = draw();
          const chosen = next[kind]();
          context.kind = kind;
          context.started = performance.now();
          return {
            ...request,
            method: chosen.method ?? "GET",
            path: chosen.path,
            body: chosen.body,
            headers: { "x-forwarded-for": newClientIp(), ...chosen.headers },
          };
        },
        onResponse: (status: number, _body: string, context: Record<string, unknown>) => {
          const kind = context.kind as MixedClass;
          latencies.get(kind)!.push(performance.now() - (context.started as number));
          if (status >= 400) failures.set(kind, failures.get(kind)! + 1);
        },
      } as autocannon.Request,
    ],
  });
  const cpu = cpuSeconds(pids) - cpuBefore;
  await sleep(300);
  const { hits, misses } = cacheCounts(candor.logFile, offset);
  const total = result.requests.total;
  const lines = classes.map((name) => {
    const sorted = latencies.get(name)!.sort((a, b) => a - b);
    const count = sorted.length;
    return `| ${mixedShares[name].label} | ${count.toLocaleString("en")} | ${((count / Math.max(1, total)) * 100).toFixed(1)}% | ${milliseconds(quantile(sorted, 0.5))} | ${milliseconds(quantile(sorted, 0.99))} | ${milliseconds(sorted.at(-1))} | ${failures.get(name)} |`;
  });
  return [
    `Mixed workload at ${size.toLocaleString("en")} companies, ${mixedSeconds} s, ${connections} connections: ` +
      `${Math.round(result.requests.average).toLocaleString("en")} req/s = ${((result.requests.average / baseRps) * 100).toFixed(1)}% of the baseline; ` +
      `${((hits / Math.max(1, hits + misses)) * 100).toFixed(1)}% of cacheable answers from the cache; ` +
      `${((cpu * 1000) / Math.max(1, total)).toFixed(2)} ms of server CPU per request; ${result.errors + result.timeouts} errors.`,
    "",
    "| class | requests | share | p50 ms | p99 ms | max ms | 4xx/5xx |",
    "| --- | --: | --: | --: | --: | --: | --: |",
    ...lines,
    "",
  ].join("\n");
}

function rowOf(
  size: number,
  scenario: string,
  { result, latency, hits, misses, cpuMs }: Measured & { cpuMs?: number },
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
    p50: latency.p50,
    p99: latency.p99,
    errors,
    ratio: result.requests.average / baseRps,
    cacheHits: hits + misses > 0 ? hits / (hits + misses) : undefined,
    cpuMs,
  };
}

/** A latency for the tables: to the hundredth of a millisecond below 10 ms, to the tenth below 100, then whole. */
function milliseconds(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return "–";
  return value.toFixed(value < 10 ? 2 : value < 100 ? 1 : 0);
}

// The table: every scenario at every size, with its share of the baseline and the growth of its median latency.
const smallest = Math.min(...sizes);
const header =
  "| companies | processes | scenario | req/s | p50 ms | p99 ms | errors | vs baseline | p50 vs smallest | cache hits | CPU ms/req |\n" +
  "| --: | --: | --- | --: | --: | --: | --: | --: | --: | --: | --: |";
const lines = rows.map((row) => {
  const first = rows.find(
    (other) => other.size === smallest && other.scenario === row.scenario && other.workers === row.workers,
  );
  const growth = first && first.p50 > 0 ? `${(row.p50 / first.p50).toFixed(2)}x` : "–";
  return `| ${row.size.toLocaleString("en")} | ${row.workers} | ${row.scenario} | ${row.rps.toLocaleString("en")} | ${milliseconds(row.p50)} | ${milliseconds(row.p99)} | ${row.errors} | ${(row.ratio * 100).toFixed(1)}% | ${growth} | ${row.cacheHits === undefined ? "–" : `${(row.cacheHits * 100).toFixed(1)}%`} | ${row.cpuMs === undefined ? "–" : row.cpuMs.toFixed(3)} |`;
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
  `Engine: ${engine}. ${machine}. autocannon, ${connections} connections, ${seconds} s per scenario after a warm-up.` +
    (values.heap ? ` Server heap capped at ${Number(values.heap)} MB (--max-old-space-size).` : ""),
  "",
  "Load average of the machine (shared with other jobs) around each size:",
  ...loads.map((line) => `- ${line}`),
  "",
  table,
  "",
  ...sideBySide,
  ...mixedTables,
  "Server peak resident memory (VmHWM, all its processes) at the end of each server's run:",
  ...memory.map((line) => `- ${line}`),
  "",
  "Checks:",
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
