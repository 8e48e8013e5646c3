// SQL injection: Debian's sqlmap, on loopback only, against the search pages and API, every read
// endpoint with its path ids and cursors, the authenticated API writes and the HTML forms of the built server.
// A tiny deliberately injectable endpoint is scanned first with the same options: sqlmap must find it (the harness
// can fail). Requests to Candor go through a counting reverse proxy that gives each one a client address of its own
// (X-Forwarded-For behind TRUSTED_PROXIES=127.0.0.1), so that the per-IP rate limits, left as they are in production,
// never answer the scan with 429 instead of running the code under test.
//
//   node scripts/reliability/sqlmap.ts [--engine sqlite|postgres] [--level 1] [--risk 1]
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import path from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import {
  accessToken,
  bearer as bearerHeaders,
  companyReview,
  createDatabase,
  type Engine,
  freePort,
  newClientIp,
  newCompany,
  newMarker,
  newSecret,
  password,
  signUp,
  spawnServer,
  waitForHealth,
} from "./support.ts";
import { encodeCursor } from "#app/lib/cursor.server.ts";
import { managerCriteria, managerYesNo } from "#app/lib/ratings.ts";

const { values: options } = parseArgs({
  options: {
    engine: { type: "string", default: "sqlite" },
    level: { type: "string", default: "1" },
    risk: { type: "string", default: "1" },
  },
});
const engine = options.engine as Engine;
if (engine !== "sqlite" && engine !== "postgres") throw new Error(`--engine must be sqlite or postgres`);

/* ---------------------------------------------------------------- sqlmap itself */

function ensureSqlmap(): void {
  if (spawnSync("sqlmap", ["--version"], { stdio: "ignore" }).status === 0) return;
  if (process.getuid?.() !== 0) {
    console.error("sqlmap is not installed. Install the Debian package first: sudo apt-get install -y sqlmap");
    process.exit(2);
  }
  console.log("sqlmap is missing; installing the Debian package…");
  const install = spawnSync("apt-get", ["install", "-y", "sqlmap"], { stdio: "inherit" });
  if (install.status !== 0) {
    console.error("apt-get install -y sqlmap failed; install sqlmap and run this script again.");
    process.exit(2);
  }
}

type Target = {
  label: string;
  /** URL with `*` after every value (path or query) to inject into, unless `data` carries the parameters. */
  url: string;
  data?: string;
  headers?: string[];
  cookie?: string;
  /** Only these parameters (sqlmap -p); all of them otherwise. */
  only?: string;
  /** A status the endpoint answers on purpose to wrong input (a failed sign-in's 401), not a reason to stop. */
  ignoreCode?: number;
};

type ScanResult = {
  label: string;
  tested: string[];
  injectable: string[];
  requests: number;
  statuses: Map<number, number>;
  output: string;
};

const outputDir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "candor-sqlmap-"));

/** Requests and statuses seen by a counting proxy (Candor) or the control server, for the target being scanned. */
let seen = { requests: 0, statuses: new Map<number, number>() };
function count(status: number): void {
  seen.requests += 1;
  seen.statuses.set(status, (seen.statuses.get(status) ?? 0) + 1);
}

async function scan(target: Target): Promise<ScanResult> {
  seen = { requests: 0, statuses: new Map() };
  const args = [
    "-u",
    target.url,
    "--batch",
    "--flush-session",
    "--disable-coloring",
    `--level=${options.level}`,
    `--risk=${options.risk}`,
    "--time-sec=2",
    "--threads=4",
    "--drop-set-cookie",
    "--output-dir",
    outputDir,
  ];
  if (target.data !== undefined) args.push(`--data=${target.data}`);
  if (target.headers?.length) args.push(`--headers=${target.headers.join("\\n")}`);
  if (target.cookie) args.push(`--cookie=${target.cookie}`);
  if (target.only) args.push(`-p`, target.only);
  if (target.ignoreCode) args.push(`--ignore-code=${target.ignoreCode}`);
  const child = spawn("sqlmap", args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  await once(child, "exit");
  const tested = new Set<string>();
  const injectable = new Set<string>();
  // "GET parameter 'q' does not seem to be injectable", "(custom) URI parameter '#1*' appears to be '…' injectable",
  // and the final "Parameter: id (GET)" listing of injection points.
  for (const match of output.matchAll(/parameter '([^']+)' does not seem to be injectable/g)) tested.add(match[1]!);
  for (const match of output.matchAll(/parameter '([^']+)' (?:appears to be|is) '.*' injectable/g)) {
    injectable.add(match[1]!);
    tested.add(match[1]!);
  }
  for (const match of output.matchAll(/^Parameter: (\S+) \(/gm)) injectable.add(match[1]!);
  return {
    label: target.label,
    tested: [...tested],
    injectable: [...injectable],
    requests: seen.requests,
    statuses: seen.statuses,
    output,
  };
}

/* ---------------------------------------------------------------- positive control */

/** GET /item?id=1 builds its SQL by concatenation: sqlmap must report `id` as injectable. */
async function startControl(): Promise<{ url: string; close: () => Promise<void> }> {
  const db = new Database(":memory:");
  db.exec("create table items (id integer primary key, name text); insert into items (name) values ('one'), ('two')");
  const server = http.createServer((req, res) => {
    const id = new URL(req.url ?? "/", "http://control").searchParams.get("id") ?? "1";
    let status = 200;
    let body: string;
    try {
      const row = db.prepare(`select name from items where id = ${id}`).get() as { name: string } | undefined;
      body = row ? `<p>${row.name}</p>` : "<p>none</p>";
    } catch {
      status = 500;
      body = "<p>error</p>";
    }
    count(status);
    res.writeHead(status, { "Content-Type": "text/html" }).end(body);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/item?id=1`,
    close: async () => {
      server.close();
      await once(server, "close");
      db.close();
    },
  };
}

/* ---------------------------------------------------------------- counting proxy in front of Candor */

let created = 0;
/**
 * A company is a duplicate when its name and website match one already stored; sqlmap repeats the original value of
 * every parameter it is not testing, so the proxy puts a fresh prefix before each `name` (the payload, appended by
 * sqlmap, stays intact) and every create reaches the insert instead of stopping at "already exists".
 */
function withFreshName(body: Buffer, type: string | undefined): Uint8Array {
  created += 1;
  const tag = `Scan${created} `;
  if (type?.startsWith("application/json")) {
    try {
      const data = JSON.parse(body.toString("utf8")) as { company?: { name?: unknown } };
      if (typeof data.company?.name !== "string") return body;
      data.company.name = tag + data.company.name;
      return Buffer.from(JSON.stringify(data));
    } catch {
      return body;
    }
  }
  const form = new URLSearchParams(body.toString("latin1"));
  const name = form.get("name");
  if (name === null) return body;
  form.set("name", tag + name);
  return Buffer.from(form.toString(), "latin1");
}

/**
 * Cursors are base64url JSON, so a payload sqlmap appends to one only makes it malformed (read as "first page").
 * To put payloads inside a cursor's keys as well, the proxy turns `after_key=V` into `after=[V, 1]` and
 * `before_key=V` into `before=[V]`, encoded as the server encodes them.
 */
function withCursorKeys(url: string): string {
  const parsed = new URL(url, "http://proxy");
  const after = parsed.searchParams.get("after_key");
  const before = parsed.searchParams.get("before_key");
  if (after === null && before === null) return url;
  parsed.searchParams.delete("after_key");
  parsed.searchParams.delete("before_key");
  if (after !== null) parsed.searchParams.set("after", encodeCursor([after, 1]));
  if (before !== null) parsed.searchParams.set("before", encodeCursor([before]));
  return parsed.pathname + parsed.search;
}

async function startProxy(upstreamPort: number): Promise<{ baseURL: string; close: () => Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const received = Buffer.concat(chunks);
    const body = req.method === "POST" ? withFreshName(received, req.headers["content-type"]) : received;
    const headers: http.OutgoingHttpHeaders = { ...req.headers, "x-forwarded-for": newClientIp() };
    if (body.length > 0) headers["content-length"] = String(body.length);
    const upstream = http.request(
      { host: "127.0.0.1", port: upstreamPort, method: req.method, path: withCursorKeys(req.url ?? "/"), headers },
      (answer) => {
        count(answer.statusCode ?? 0);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => {
      count(502);
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    upstream.end(body);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as net.AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/* ---------------------------------------------------------------- the Candor targets */

async function getJson(baseURL: string, pathname: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseURL}${pathname}`, { headers: { "X-Forwarded-For": newClientIp() } });
  if (!response.ok) throw new Error(`GET ${pathname} answered ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}

/**
 * A search term with results, the id of the first, and a well-formed cursor (the next page's, or one of the same
 * shape) so that sqlmap's payloads in `after` reach the keyset condition instead of reading as "first page".
 */
async function searchFixture(baseURL: string, kind: "companies" | "managers") {
  for (const q of ["a", "e", "o", "n", "i"]) {
    const page = await getJson(baseURL, `/api/v1/${kind}?country=US&q=${q}`);
    const items = page.items as Array<{ id: number }> | undefined;
    if (!items?.length) continue;
    const cursor = typeof page.next === "string" ? page.next : encodeCursor([q, items[0]!.id]);
    return { q, id: items[0]!.id, cursor };
  }
  throw new Error(`no ${kind} found in the demo data`);
}

function managerReview(marker: string) {
  return {
    ...Object.fromEntries(managerCriteria.map((key) => [key, 4])),
    ...Object.fromEntries(managerYesNo.map((key) => [key, true])),
    tags: ["Supportive"],
    review_text: `${marker} clear goals and honest feedback every week.`,
  };
}

/** A review as its form posts it: answers as Yes or No, everything else as text, tags repeated. */
function asFormFields(review: Record<string, unknown>): Record<string, string | string[]> {
  return Object.fromEntries(
    Object.entries(review).map(([key, value]) => [
      key,
      Array.isArray(value) ? value.map(String) : typeof value === "boolean" ? (value ? "Yes" : "No") : String(value),
    ]),
  );
}

const formBody = (fields: Record<string, string | string[]>) => {
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    for (const one of [value].flat()) body.append(key, one);
  }
  return body.toString();
};

function candorTargets(base: string, fixture: Fixture): Target[] {
  const { companies, managers, token, cookie } = fixture;
  const bearer = Object.entries(bearerHeaders(token)).map(([name, value]) => `${name}: ${value}`);
  const json = [...bearer, "Content-Type: application/json"];
  const form = ["Sec-Fetch-Site: same-origin", `Origin: ${base}`];
  const company = newCompany("scan");
  const manager = {
    first_name: "Robin",
    last_name: "Scanner",
    title: "Engineering Manager",
    city: "Portland",
    state: "Oregon",
    linkedin_url: "linkedin.com/in/robin-scanner",
    department: "Platform",
    direct_reports: true,
  };
  const review = companyReview(newMarker(), 1);
  const mReview = managerReview(newMarker());
  const c = companies.id;
  const m = managers.id;
  const reviewForm = { ...asFormFields(review), recent_layoffs: "" };
  const mReviewForm = asFormFields(mReview);
  const managerForm = { ...manager, direct_reports: "Yes" };
  const cursorC = encodeURIComponent(companies.cursor);
  const cursorM = encodeURIComponent(managers.cursor);
  // Well-formed cursors, so that payloads appended to them are not simply "no cursor" at the first request.
  const cursorName = encodeCursor(["a", 1]);
  const reviewId = "00000000-0000-4000-8000-000000000000";
  const cursorReview = encodeCursor([reviewId]);
  return [
    // Search: API and pages.
    { label: "GET /api/v1/companies", url: `${base}/api/v1/companies?country=US*&q=${companies.q}*&after=${cursorC}*` },
    { label: "GET /api/v1/managers", url: `${base}/api/v1/managers?country=US*&q=${managers.q}*&after=${cursorM}*` },
    { label: "GET /api/v1/companies/suggestions", url: `${base}/api/v1/companies/suggestions?q=ac*` },
    { label: "GET /search", url: `${base}/search?kind=company*&country=US*&q=${companies.q}*&after=${cursorC}*` },
    { label: "GET /search (managers)", url: `${base}/search?kind=manager&country=US*&q=${managers.q}*` },
    // Reads with path ids and cursors.
    { label: "GET /api/v1/companies/{id}", url: `${base}/api/v1/companies/${c}*` },
    {
      label: "GET /api/v1/companies/{id}/reviews",
      url: `${base}/api/v1/companies/${c}*/reviews?before=${cursorReview}*`,
    },
    {
      label: "GET /api/v1/companies/{id}/managers",
      url: `${base}/api/v1/companies/${c}*/managers?after=${cursorName}*`,
    },
    { label: "GET /api/v1/managers/{id}", url: `${base}/api/v1/managers/${m}*` },
    {
      label: "GET /api/v1/managers/{id}/reviews",
      url: `${base}/api/v1/managers/${m}*/reviews?before=${cursorReview}*`,
    },
    { label: "GET /company/{id}", url: `${base}/company/${c}*?before=${cursorReview}*` },
    { label: "GET /manager-profile/{id}", url: `${base}/manager-profile/${m}*?before=${cursorReview}*` },
    { label: "GET /managers", url: `${base}/managers?company=${c}*&after=${cursorName}*` },
    // Payloads inside the cursors' keys (see withCursorKeys).
    { label: "GET /api/v1/companies (cursor key)", url: `${base}/api/v1/companies?country=US&q=a&after_key=a*` },
    { label: "GET /api/v1/managers (cursor key)", url: `${base}/api/v1/managers?country=US&q=a&after_key=a*` },
    {
      label: "GET /api/v1/companies/{id}/reviews (cursor key)",
      url: `${base}/api/v1/companies/${c}/reviews?before_key=${reviewId}*`,
    },
    {
      label: "GET /api/v1/managers/{id}/reviews (cursor key)",
      url: `${base}/api/v1/managers/${m}/reviews?before_key=${reviewId}*`,
    },
    {
      label: "GET /api/v1/companies/{id}/managers (cursor key)",
      url: `${base}/api/v1/companies/${c}/managers?after_key=a*`,
    },
    { label: "GET /company/review", url: `${base}/company/review?company=${c}*`, cookie },
    { label: "GET /manager/addAlone", url: `${base}/manager/addAlone?company_q=ac*`, cookie },
    // Authenticated API writes (JSON, bearer token).
    {
      label: "POST /api/v1/companies",
      url: `${base}/api/v1/companies`,
      data: JSON.stringify({ company, review }),
      headers: json,
    },
    {
      label: "POST /api/v1/managers",
      url: `${base}/api/v1/managers`,
      data: JSON.stringify({ company_id: c, manager, review: mReview }),
      headers: json,
    },
    {
      label: "POST /api/v1/companies/{id}/reviews",
      url: `${base}/api/v1/companies/${c}/reviews`,
      data: JSON.stringify(review),
      headers: json,
    },
    {
      label: "POST /api/v1/managers/{id}/reviews",
      url: `${base}/api/v1/managers/${m}/reviews`,
      data: JSON.stringify(mReview),
      headers: json,
    },
    {
      label: "POST /api/v1/auth/token",
      url: `${base}/api/v1/auth/token`,
      data: JSON.stringify({ grant_type: "password", email: fixture.email, password }),
      headers: ["Content-Type: application/json"],
      // The password is only ever compared with a hash, and trying it against one account would meet the
      // per-account sign-in limit (20 an hour), which stays as in production.
      only: "grant_type,email",
      ignoreCode: 401,
    },
    // HTML forms (session cookie, same-origin headers).
    {
      label: "POST /company/add",
      url: `${base}/company/add`,
      data: formBody({ ...company, ...reviewForm }),
      headers: form,
      cookie,
    },
    {
      label: "POST /manager/add",
      url: `${base}/manager/add?company=${c}`,
      data: formBody({ ...managerForm, ...mReviewForm }),
      headers: form,
      cookie,
    },
    {
      label: "POST /manager-review",
      url: `${base}/manager-review?manager=${m}`,
      data: formBody(mReviewForm),
      headers: form,
      cookie,
    },
    {
      label: "POST /feedback",
      url: `${base}/feedback`,
      data: formBody({ email: fixture.email, subject: "Search", message: "The search could show more countries." }),
      headers: form,
      cookie,
    },
    {
      label: "POST /signin",
      url: `${base}/signin`,
      data: formBody({ email: fixture.email, password }),
      headers: form,
      only: "email",
      ignoreCode: 401,
    },
  ];
}

type Fixture = {
  email: string;
  token: string;
  cookie: string;
  companies: { q: string; id: number; cursor: string };
  managers: { q: string; id: number; cursor: string };
};

/* ---------------------------------------------------------------- run */

function summary(result: ScanResult): string {
  const statuses = [...result.statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`);
  return `${result.label}: ${result.tested.length} parameters tested, ${result.requests} requests (${statuses.join(", ")}), ${result.injectable.length} injectable`;
}

async function main(): Promise<void> {
  ensureSqlmap();
  const started = Date.now();
  const failures: string[] = [];

  const control = await startControl();
  const controlResult = await scan({ label: "control GET /item?id=", url: control.url });
  await control.close();
  console.log(summary(controlResult));
  if (!controlResult.injectable.some((name) => name.includes("id"))) {
    failures.push("the deliberately injectable control endpoint was not found injectable");
    console.log(controlResult.output);
  }

  const database = await createDatabase(engine, "sqlmap");
  const port = await freePort();
  const server = spawnServer(database, port, { AUTH_SECRET: newSecret() });
  const origin = `http://127.0.0.1:${port}`;
  const results: ScanResult[] = [];
  try {
    await waitForHealth(origin, server);
    const proxy = await startProxy(port);
    const email = `sqlmap-${process.pid}@example.com`;
    const cookie = await signUp(origin, email);
    const fixture: Fixture = {
      email,
      cookie,
      token: await accessToken(origin, email),
      companies: await searchFixture(origin, "companies"),
      managers: await searchFixture(origin, "managers"),
    };
    for (const target of candorTargets(proxy.baseURL, fixture)) {
      const result = await scan(target);
      results.push(result);
      console.log(summary(result));
      if (result.injectable.length > 0) {
        failures.push(`${result.label}: sqlmap reports ${result.injectable.join(", ")} injectable`);
        console.log(result.output);
      }
      if (result.tested.length === 0) {
        failures.push(`${result.label}: sqlmap tested no parameter`);
        console.log(result.output);
      }
      const limited = result.statuses.get(429) ?? 0;
      if (limited > 0) failures.push(`${result.label}: ${limited} requests were rate limited (429)`);
      const errors = [...result.statuses].filter(([status]) => status >= 500).reduce((n, [, k]) => n + k, 0);
      if (errors > 0) failures.push(`${result.label}: ${errors} requests answered 5xx`);
    }
    await proxy.close();
  } finally {
    server.child.kill("SIGTERM");
    await server.exited;
    await database.drop();
    fs.rmSync(outputDir, { recursive: true, force: true });
  }

  const total = (pick: (result: ScanResult) => number) => results.reduce((n, result) => n + pick(result), 0);
  const statuses = new Map<number, number>();
  for (const result of results) {
    for (const [status, n] of result.statuses) statuses.set(status, (statuses.get(status) ?? 0) + n);
  }
  console.log(
    JSON.stringify(
      {
        engine,
        level: Number(options.level),
        risk: Number(options.risk),
        endpoints: results.length,
        parametersTested: total((result) => result.tested.length),
        requests: total((result) => result.requests),
        statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
        injectable: total((result) => result.injectable.length),
        control: {
          found: controlResult.injectable.length > 0,
          requests: controlResult.requests,
        },
        seconds: Math.round((Date.now() - started) / 1000),
      },
      null,
      2,
    ),
  );
  if (failures.length > 0) {
    console.error(`FAILED:\n- ${failures.join("\n- ")}`);
    process.exit(1);
  }
  console.log("sqlmap found nothing injectable in Candor and found the control.");
}

await main();
