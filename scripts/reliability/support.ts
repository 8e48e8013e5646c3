// Shared by the reliability scripts: the harness's server behind a trusted proxy, HTTP helpers, payloads, checks.
import { execFile, execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { apiRateLimits, rateLimits } from "#app/lib/rate-limit.server.ts";
import { companyJson, companyReviewJson, managerJson, managerReviewJson } from "#tests/support/payloads.ts";
import {
  checkAggregates,
  freePort,
  readDatabase,
  sleep,
  spawnServer as spawnHarnessServer,
  type ThrowawayDatabase,
} from "#tests/support/server.ts";

export {
  adminQuery,
  cleanUp,
  createDatabase,
  type Engine,
  freePort,
  newSecret,
  postgresAdminUrl,
  publishAtOnce,
  publishQueued,
  readDatabase,
  root,
  type ServerProcess,
  sleep,
  type ThrowawayDatabase as TestDatabase,
  waitForHealth,
} from "#tests/support/server.ts";

export const password = "a long and private passphrase";

/** The harness's server behind TRUSTED_PROXIES=127.0.0.1: every client here sends an X-Forwarded-For of its own. */
export const spawnServer: typeof spawnHarnessServer = (database, port, extraEnv = {}, options) =>
  spawnHarnessServer(database, port, { TRUSTED_PROXIES: "127.0.0.1", ...extraEnv }, options);

let clients = 0;
/** A client address of its own for each request: behind TRUSTED_PROXIES no rate limit bucket fills up. */
export function newClientIp(): string {
  clients += 1;
  return `10.${(clients >> 16) & 255}.${(clients >> 8) & 255}.${clients & 255}`;
}

/** Posts the account form at `path` (same origin), as a browser would; resolves with the cookies it set. */
async function postAccountForm(baseURL: string, path: string, email: string): Promise<string[]> {
  const response = await fetch(`${baseURL}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: baseURL, "Sec-Fetch-Site": "same-origin", "X-Forwarded-For": newClientIp() },
    body: new URLSearchParams({ email, password }),
  });
  await response.body?.cancel();
  if (response.status !== 302) throw new Error(`${path} for ${email} answered ${response.status}`);
  return response.headers.getSetCookie().map((cookie) => cookie.split(";")[0]!);
}

/** Signs up through the form (same origin), as a browser would; resolves with the session as a Cookie header. */
export async function signUp(baseURL: string, email: string): Promise<string> {
  return (await postAccountForm(baseURL, "/signup", email)).join("; ");
}

/**
 * Signs in through the sign-in form, as a browser would; resolves with the session cookie as a Cookie header (not
 * the one-time notice, which a browser sends once).
 */
export async function signIn(baseURL: string, email: string): Promise<string> {
  const cookies = (await postAccountForm(baseURL, "/signin", email)).filter(
    (cookie) => !/toast/i.test(cookie.split("=")[0]!),
  );
  if (cookies.length === 0) throw new Error(`sign-in of ${email} set no session cookie`);
  return cookies.join("; ");
}

/** An access token from POST /api/v1/auth/token (grant_type=password). */
export async function accessToken(baseURL: string, email: string): Promise<string> {
  const response = await fetch(`${baseURL}/api/v1/auth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": newClientIp() },
    body: JSON.stringify({ grant_type: "password", email, password }),
  });
  const body = (await response.json()) as { access_token?: string; vote_key?: string };
  if (response.status !== 200 || !body.access_token) throw new Error(`token for ${email}: ${response.status}`);
  if (body.vote_key) accountKeys.set(body.access_token, body.vote_key);
  return body.access_token;
}

/** Each access token's account key, as the password grant answered it (`vote_key`). */
const accountKeys = new Map<string, string>();

/**
 * The headers of an API write with `token`: the bearer token and, as every review write needs, the account's own key
 * (docs/decisions/0046-reviews-wait-under-a-key-only-the-author-holds.md).
 */
export function bearer(token: string | undefined): Record<string, string> {
  const key = token ? accountKeys.get(token) : undefined;
  return { Authorization: `Bearer ${token}`, ...(key ? { "Candor-Account-Key": key } : {}) };
}

/** An access token and the account's vote key (POST /api/v1/helpful-votes needs both). */
export async function apiCredentials(baseURL: string, email: string): Promise<{ token: string; voteKey: string }> {
  const response = await fetch(`${baseURL}/api/v1/auth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": newClientIp() },
    body: JSON.stringify({ grant_type: "password", email, password }),
  });
  const body = (await response.json()) as { access_token?: string; vote_key?: string };
  if (response.status !== 200 || !body.access_token || !body.vote_key) {
    throw new Error(`credentials for ${email}: ${response.status}`);
  }
  return { token: body.access_token, voteKey: body.vote_key };
}

/**
 * A marker made of letters only (the guidelines refuse digit runs that look like phone numbers), and of letters that
 * spell nothing the profanity check refuses: no vowels, no c, l or s. With the letters g to v, 187 of 200,000
 * markers spelled "porn", "slut" or "shit" and their review was refused (a test failing once in a while, a
 * benchmark's write refused); with these, none of 1,000,000.
 */
export function newMarker(): string {
  const letters = randomUUID()
    .replace(/-/g, "")
    .replace(/[0-9a-f]/g, (digit) => "bdfghjkmnpqrtvwz"[Number.parseInt(digit, 16)]!);
  return `crashmarker${letters}`;
}

export function companyReview(marker: string, seed: number) {
  return companyReviewJson(
    { tags: ["Hybrid"], review_text: `${marker} fair pay and a kind team, honest feedback.` },
    { seed },
  );
}

export function newCompany(marker: string) {
  return companyJson({
    name: `Crash Test ${marker}`,
    website: `${marker}.example.com`,
    glassdoor_url: `reviews.example.com/${marker}`,
  });
}

export function managerReview(marker: string, seed: number) {
  return managerReviewJson(
    { tags: ["Supportive"], review_text: `${marker} listens first and shares credit.` },
    { seed },
  );
}

export function newManager(marker: string) {
  return managerJson({ first_name: "Avery", last_name: marker, linkedin_url: `https://www.linkedin.com/in/${marker}` });
}

const subjectTables = [
  ["companies", "company_reviews", "company_id"],
  ["managers", "manager_reviews", "manager_id"],
] as const;

export type WriteCheck = {
  lost: number;
  duplicated: number;
  orphans: number;
  mismatches: number;
  problems: string[];
  companies: number;
  managers: number;
};

/**
 * A run that acknowledged fewer writes than it states as its minimum tested nothing: its checks of what was written
 * pass on an empty database. Each script states its minimum (`--min-writes`), well below what it measured on a
 * loaded 2-core machine.
 */
export function tooFewWrites(label: string, acknowledged: number, minimum: number): string[] {
  return acknowledged >= minimum
    ? []
    : [`${label}: ${acknowledged} writes acknowledged, fewer than the minimum ${minimum}`];
}

/**
 * After a run: every acknowledged marker (a review's text starts with it) exists exactly once, no marker exists
 * twice or was never sent, every company or manager a user added has a review, and every stored aggregate equals a
 * fresh aggregation over its reviews (demo subjects included).
 */
export async function verifyWrites(database: ThrowawayDatabase, acknowledged: Set<string>, sent: Set<string>) {
  const counts = new Map<string, number>();
  for (const [, reviews] of subjectTables) {
    const rows = await readDatabase(
      database,
      `select substr(review_text, 1, 43) as marker from ${reviews} where review_text like 'crashmarker%'`,
    );
    for (const row of rows) counts.set(String(row.marker), (counts.get(String(row.marker)) ?? 0) + 1);
  }
  const check: WriteCheck = {
    lost: 0,
    duplicated: 0,
    orphans: 0,
    mismatches: 0,
    problems: [],
    companies: 0,
    managers: 0,
  };
  for (const marker of acknowledged) {
    if ((counts.get(marker) ?? 0) === 0) {
      check.lost += 1;
      check.problems.push(`lost: ${marker}`);
    }
  }
  for (const [marker, count] of counts) {
    if (count > 1) {
      check.duplicated += 1;
      check.problems.push(`duplicated ×${count}: ${marker}`);
    }
    if (!sent.has(marker)) check.problems.push(`unknown marker in the database: ${marker}`);
  }
  for (const [table, reviews, key] of subjectTables) {
    // Demo subjects may have no review yet (demo-data.server.ts); every one a user added came with its first.
    const orphans = await readDatabase(
      database,
      `select s.id from ${table} s
       where s.is_demo = 0 and not exists (select 1 from ${reviews} r where r.${key} = s.id)`,
    );
    check.orphans += orphans.length;
    for (const row of orphans) check.problems.push(`${table} ${String(row.id)} has no review`);
  }
  const aggregates = await checkAggregates(database);
  check.companies = aggregates.checked.companies;
  check.managers = aggregates.checked.managers;
  check.mismatches = aggregates.mismatches.length;
  for (const { table, id, columns } of aggregates.mismatches) {
    check.problems.push(`${table} ${id}: stored aggregates differ from its reviews in ${columns.join(", ")}`);
  }
  return check;
}

const postgresBin = "/usr/lib/postgresql/15/bin";

/**
 * A throwaway PostgreSQL 15 cluster of our own (initdb into a temporary directory, trust auth, listening on
 * 127.0.0.1 at a free port, its Unix socket in that directory), which a script may stop and start at will: the
 * shared server at :5432 must never be. Run as the postgres OS user when we are root, as initdb requires.
 */
export type OwnPostgres = {
  port: number;
  /** A connection URL to its `postgres` database with this application_name. */
  url: (applicationName: string) => string;
  start: () => Promise<void>;
  /** "fast" ends sessions and checkpoints; "immediate" is a crash, recovered from the WAL at the next start. */
  stop: (mode?: "fast" | "immediate") => Promise<void>;
  remove: () => void;
};

/**
 * With `replicaOf`, the cluster is a streaming replica of that one instead of a new cluster: a copy made with
 * pg_basebackup (-R writes the connection to the primary and standby.signal), started read-only on a port of its own.
 */
export async function createOwnPostgres(label: string, from: { replicaOf?: OwnPostgres } = {}): Promise<OwnPostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `candor-${label}-pg-`));
  const data = path.join(dir, "data");
  const asPostgres = process.getuid?.() === 0;
  if (asPostgres) execFileSync("chown", ["postgres:postgres", dir]);
  // Asynchronous (but for the last-resort clean-up), so that load clients keep running while pg_ctl waits.
  const command = (name: string, args: string[]): [string, string[]] => {
    const file = path.join(postgresBin, name);
    return asPostgres ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, args];
  };
  const run = (name: string, args: string[]) => promisify(execFile)(...command(name, args));
  const port = await freePort();
  if (from.replicaOf) {
    const source = ["-h", "127.0.0.1", "-p", String(from.replicaOf.port), "-U", "postgres"];
    await run("pg_basebackup", [...source, "-D", data, "-R", "-X", "stream", "-c", "fast"]);
  } else {
    await run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-instructions"]);
  }
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=60`;
  const pgCtl = (args: string[]) => ["-D", data, "-w", "-t", "60", ...args];
  let running = false;
  const removeOnExit = () => {
    if (running) execFileSync(...command("pg_ctl", pgCtl(["-m", "immediate", "stop"])), { stdio: "ignore" });
    running = false;
    process.off("exit", removeOnExit);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", removeOnExit);
  const instance: OwnPostgres = {
    port,
    url: (applicationName) => `postgres://postgres@127.0.0.1:${port}/postgres?application_name=${applicationName}`,
    start: async () => {
      await run("pg_ctl", pgCtl(["-l", path.join(dir, "postgres.log"), "-o", options, "start"]));
      running = true;
    },
    stop: async (mode = "fast") => {
      await run("pg_ctl", pgCtl(["-m", mode, "stop"]));
      running = false;
    },
    remove: removeOnExit,
  };
  await instance.start();
  return instance;
}

/** One answered (or unanswered: status 0) request of a load client. */
export type Outcome = {
  kind: "read" | "write";
  path: string;
  status: number;
  ms: number;
  contentType: string;
  retryAfter: string | null;
  body: string;
  /** For status 0: why there was no answer (a timeout, a refused or reset connection). */
  error?: string;
};

/**
 * The load clients' mix: reads (search API, search page, company and manager pages, API reads of a company, its
 * reviews and a manager) and writes through the JSON API with bearer tokens (a review of an existing company, a new
 * company with its first review, a new manager at an existing company with the first review), each review carrying
 * a unique marker. Every request reports its Outcome; a 2xx write is acknowledged.
 */
export class Workload {
  readonly acknowledged = new Set<string>();
  readonly sent = new Set<string>();
  readonly companies: number[] = [];
  readonly managers: number[] = [];
  private readonly tokens = new Map<string, string>();
  private seed = 0;
  private readonly baseURL: string;
  private readonly onOutcome: (outcome: Outcome) => void;
  private readonly timeoutMs: number;

  constructor(baseURL: string, onOutcome: (outcome: Outcome) => void, timeoutMs = 30_000) {
    this.baseURL = baseURL;
    this.onOutcome = onOutcome;
    this.timeoutMs = timeoutMs;
  }

  /** Signs up `count` accounts (a few at a time) and fetches their access tokens; returns their e-mails. */
  async accounts(label: string, count: number): Promise<string[]> {
    const emails = Array.from({ length: count }, (_, index) => `${label}-${process.pid}-${index}@example.com`);
    for (let first = 0; first < emails.length; first += 4) {
      await Promise.all(
        emails.slice(first, first + 4).map(async (email) => {
          await signUp(this.baseURL, email);
          this.tokens.set(email, await accessToken(this.baseURL, email));
        }),
      );
    }
    return emails;
  }

  /** Demo companies and managers to read and review. */
  async discover(): Promise<void> {
    for (const word of ["a", "e", "o", "i"]) {
      for (const [kind, list] of [
        ["companies", this.companies],
        ["managers", this.managers],
      ] as const) {
        const response = await fetch(`${this.baseURL}/api/v1/${kind}?country=US&q=${word}`, {
          headers: { "X-Forwarded-For": newClientIp() },
        });
        list.push(...((await response.json()) as Page).items.map((item) => item.id));
      }
    }
    if (this.companies.length === 0 || this.managers.length === 0) throw new Error("no demo data to read");
  }

  private pick<T>(list: readonly T[]): T {
    return list[Math.floor(Math.random() * list.length)]!;
  }

  async request(kind: Outcome["kind"], path: string, ip: string, init: RequestInit = {}): Promise<Outcome> {
    const started = performance.now();
    let outcome: Outcome;
    try {
      const response = await fetch(`${this.baseURL}${path}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), "X-Forwarded-For": ip },
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const body = await response.text();
      outcome = {
        kind,
        path,
        status: response.status,
        ms: performance.now() - started,
        contentType: response.headers.get("content-type") ?? "",
        retryAfter: response.headers.get("retry-after"),
        body,
      };
    } catch (error) {
      const reason = error instanceof Error ? `${error.name}: ${error.message} ${String(error.cause ?? "")}` : "?";
      outcome = { kind, path, status: 0, ms: performance.now() - started, contentType: "", retryAfter: null, body: "" };
      outcome.error = reason;
    }
    this.onOutcome(outcome);
    return outcome;
  }

  async read(ip: string): Promise<Outcome> {
    const company = this.pick(this.companies);
    const word = this.pick(["a", "co", "tech", "in", "data", "e"]);
    const path = this.pick([
      `/api/v1/companies?country=US&q=${word}`,
      `/search?country=US&q=${word}`,
      `/company/${company}`,
      `/manager-profile/${this.pick(this.managers)}`,
      `/api/v1/companies/${company}`,
      `/api/v1/companies/${company}/reviews`,
      `/api/v1/managers/${this.pick(this.managers)}`,
    ]);
    return this.request("read", path, ip);
  }

  /** One write as `email`: mostly reviews of existing companies, some new companies and new managers. */
  async write(email: string, ip: string): Promise<Outcome> {
    const marker = newMarker();
    this.seed += 1;
    const roll = Math.random();
    const [path, body] =
      roll < 0.6
        ? [`/api/v1/companies/${this.pick(this.companies)}/reviews`, companyReview(marker, this.seed)]
        : roll < 0.8
          ? ["/api/v1/companies", { company: newCompany(marker), review: companyReview(marker, this.seed) }]
          : [
              "/api/v1/managers",
              {
                company_id: this.pick(this.companies),
                manager: newManager(marker),
                review: managerReview(marker, this.seed),
              },
            ];
    this.sent.add(marker);
    const outcome = await this.request("write", path, ip, {
      method: "POST",
      headers: { ...bearer(this.tokens.get(email)), "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    if (outcome.status >= 200 && outcome.status < 300) {
      this.acknowledged.add(marker);
      const id = (JSON.parse(outcome.body) as { id?: number }).id;
      if (id && path === "/api/v1/companies") this.companies.push(id);
      if (id && path === "/api/v1/managers") this.managers.push(id);
    } else if (outcome.status === 401) {
      // An access token that expired during a long run: sign in again, as an API client would.
      this.tokens.set(email, await accessToken(this.baseURL, email).catch(() => ""));
    }
    return outcome;
  }
}

/**
 * `clients` load clients until `deadline`, each a client address of its own; the first ones write too, as
 * `writers[index]`, a quarter of their requests, and stay within the write limits their writes count against (the
 * API's and the review limit it shares with the forms, less a margin). Production limits are unchanged.
 */
export async function runClients(workload: Workload, writers: string[], clients: number, deadline: number) {
  const writeLimit = Math.min(apiRateLimits.apiWrite.points, rateLimits.review.points) - 5;
  await Promise.all(
    Array.from({ length: clients }, async (_, index) => {
      const ip = newClientIp();
      const email = writers[index];
      let writes = 0;
      // Spread the first requests over a second, as clients arriving would.
      await sleep(Math.random() * 1000);
      while (Date.now() < deadline) {
        if (email && writes < writeLimit && Math.random() < 0.25) {
          writes += 1;
          await workload.write(email, ip);
        } else await workload.read(ip);
      }
    }),
  );
}

type Page = { items: Array<{ id: number }> };

/** The value at a quantile of sorted numbers (nearest rank). */
export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Prints problems grouped by kind (numbers masked), the 30 most frequent first. */
export function printProblems(label: string, problems: string[]): void {
  const kinds = new Map<string, number>();
  for (const problem of problems) {
    const kind = problem.replace(/\d+/g, "N").slice(0, 300);
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  const sorted = [...kinds].sort((a, b) => b[1] - a[1]).slice(0, 30);
  for (const [kind, count] of sorted) console.error(`  ${label}: ${count} × ${kind}`);
}
