// Database faults (docs/security.md): the built server runs on a PostgreSQL 15 cluster of its own while load clients
// read and write; the script kills the app's connections (pg_terminate_backend) and stops and restarts PostgreSQL
// several times. The Candor process must never exit, must answer 503 with Retry-After (never another 5xx, never a
// hang) while the database is down, must serve 2xx again by itself once it is back, and every acknowledged write
// must exist exactly once afterwards with matching aggregates. It also starts the server while PostgreSQL is down.
// Fewer acknowledged writes than --min-writes (default 100) fail the run.
// Run `npm run build` first. Usage: node scripts/reliability/database-faults.ts [--terminations 6] [--restarts 3]
// [--min-writes 100]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { contributionMessages } from "#app/lib/messages.ts";
import {
  cleanUp,
  createOwnPostgres,
  freePort,
  newClientIp,
  newSecret,
  type Outcome,
  printProblems,
  sleep,
  spawnServer,
  type TestDatabase,
  tooFewWrites,
  verifyWrites,
  waitForHealth,
  Workload,
} from "./support.ts";

const { values: options } = parseArgs({
  options: {
    terminations: { type: "string", default: "6" },
    restarts: { type: "string", default: "3" },
    "down-seconds": { type: "string", default: "5" },
    clients: { type: "string", default: "16" },
    "min-writes": { type: "string", default: "100" },
  },
});
const minWrites = Number(options["min-writes"]);
const terminations = Number(options.terminations);
const restarts = Number(options.restarts);
const downMs = Number(options["down-seconds"]) * 1000;
const clients = Number(options.clients);
// Longest acceptable wait for any answer: the pool gives up on a connection after 5 s (connection.server.ts).
const timeoutMs = 15_000;
const recoveryLimitMs = 15_000;

const started = Date.now();
const problems: string[] = [];
const own = await createOwnPostgres("faults");
const applicationName = `candor_faults_${process.pid}`;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-faults-"));
const database: TestDatabase = {
  engine: "postgres",
  url: own.url(applicationName),
  dir,
  drop: async () => {
    own.remove();
    fs.rmSync(dir, { recursive: true, force: true });
  },
};
const port = await freePort();
const baseURL = `http://127.0.0.1:${port}`;

/** Whether the database is down right now (between the stop and the end of the start), for sorting outcomes. */
let down = false;
const counts = { requests: 0, ok: 0, unavailableWhileDown: 0, unavailableWhileUp: 0, other: 0 };

function check(outcome: Outcome): void {
  counts.requests += 1;
  const { status, path: address } = outcome;
  if (status >= 200 && status < 400) counts.ok += 1;
  else if (status === 503) {
    if (down) counts.unavailableWhileDown += 1;
    else counts.unavailableWhileUp += 1;
    if (!/^\d+$/.test(outcome.retryAfter ?? "")) problems.push(`503 without Retry-After: ${address}`);
    const api = address.startsWith("/api/");
    if (api && !outcome.contentType.startsWith("application/problem+json")) {
      problems.push(`503 of ${address} is ${outcome.contentType}, not problem+json`);
    }
    if (
      !api &&
      !(outcome.contentType.startsWith("text/html") && outcome.body.includes(contributionMessages.unavailable))
    ) {
      problems.push(`503 of ${address} is not the HTML error page: ${outcome.contentType}`);
    }
  } else if (status === 0) problems.push(`no answer within ${timeoutMs} ms from ${address}: ${outcome.error}`);
  else {
    counts.other += 1;
    problems.push(`${status} from ${address}: ${outcome.body.slice(0, 200)}`);
  }
}

/** Polls until `path` answers 2xx; returns how long that took. */
async function recovery(address: string): Promise<number> {
  const since = Date.now();
  while (Date.now() - since < 60_000) {
    try {
      const response = await fetch(`${baseURL}${address}`, {
        headers: { "X-Forwarded-For": newClientIp() },
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.body?.cancel();
      if (response.ok) return Date.now() - since;
    } catch {
      // Counted by the load clients; here only the time matters.
    }
    await sleep(100);
  }
  return Number.POSITIVE_INFINITY;
}

async function terminateConnections(): Promise<number> {
  const admin = new pg.Client({ connectionString: own.url("candor_faults_admin") });
  await admin.connect();
  try {
    const result = await admin.query<{ count: number }>(
      "select count(pg_terminate_backend(pid))::int as count from pg_stat_activity where application_name = $1",
      [applicationName],
    );
    return result.rows[0]?.count ?? 0;
  } finally {
    await admin.end();
  }
}

const report: Record<string, unknown> = {};
let server: ReturnType<typeof spawnServer> | undefined;
try {
  // 1. The server starts while PostgreSQL is down: it must wait for it, not exit.
  await own.stop();
  server = spawnServer(database, port, { AUTH_SECRET: newSecret() });
  let stopping = false;
  let exitedEarly = false;
  void server.exited.then(() => (exitedEarly = !stopping));
  // Until the server has tried the database and logged a retry (a fixed 4 s was spent on a busy machine before the
  // server got that far, and the run failed though the server waited as it should), then one more retry.
  const downSince = Date.now();
  const retried = (count: number) => (server!.log().match(/retrying/g)?.length ?? 0) >= count;
  while (!retried(2) && server.child.exitCode === null && Date.now() - downSince < 60_000) await sleep(50);
  if (server.child.exitCode !== null)
    throw new Error(`the server exited while the database was down:\n${server.log()}`);
  const retries = server.log().match(/retrying/g)?.length ?? 0;
  if (retries < 2) problems.push("the server did not log its retries while the database was down at start-up");
  const waitedMs = Date.now() - downSince;
  await own.start();
  const startupSince = Date.now();
  await waitForHealth(baseURL, server);
  report.startup = { waitedMs, retriesLogged: retries, healthyAfterStartMs: Date.now() - startupSince };

  // 2. Load: every client reads, and a third of them write too, each with an account of its own.
  const workload = new Workload(baseURL, check, timeoutMs);
  const writers = await workload.accounts("faults", Math.ceil(clients / 3));
  await workload.discover();
  let running = true;
  const load = Array.from({ length: clients }, async (_, index) => {
    const ip = newClientIp();
    const email = writers[index];
    while (running) {
      // A fresh address per write: this run tests faults, not the API write limit (60 an hour per client).
      const outcome =
        email && Math.random() < 0.4 ? await workload.write(email, newClientIp()) : await workload.read(ip);
      if (outcome.status === 503) await sleep(100);
    }
  });
  await sleep(3000);

  // 3. Connections killed under load, several rounds.
  const killed: number[] = [];
  for (let round = 0; round < terminations; round += 1) {
    killed.push(await terminateConnections());
    await sleep(1000 + Math.random() * 1000);
  }
  if (killed.reduce((sum, count) => sum + count, 0) === 0) problems.push("pg_terminate_backend found no connection");
  report.terminations = { rounds: terminations, connectionsKilled: killed };

  // 4. Full restarts: stop (fast, or immediate: a crash recovered from the WAL), some seconds down, start.
  const restartReports = [];
  for (let round = 0; round < restarts; round += 1) {
    const mode = round % 2 === 1 ? "immediate" : "fast";
    down = true;
    await own.stop(mode);
    const health: number[] = [];
    const since = Date.now();
    while (Date.now() - since < downMs) {
      const response = await fetch(`${baseURL}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
      await response.body?.cancel();
      health.push(response.status);
      await sleep(250);
    }
    if (health.some((status) => status !== 503)) problems.push(`/healthz while down answered ${health.join(", ")}`);
    await own.start();
    down = false;
    const [healthMs, pageMs, apiMs] = await Promise.all([
      recovery("/healthz"),
      recovery(`/company/${workload.companies[0]}`),
      recovery(`/api/v1/companies/${workload.companies[0]}`),
    ]);
    const recoveredMs = Math.max(healthMs, pageMs, apiMs);
    if (recoveredMs > recoveryLimitMs) problems.push(`restart ${round + 1}: 2xx again only after ${recoveredMs} ms`);
    restartReports.push({ mode, healthProbesWhileDown: health.length, recoveredMs: { healthMs, pageMs, apiMs } });
    await sleep(3000);
  }
  report.restarts = restartReports;

  running = false;
  await Promise.all(load);
  if (exitedEarly) problems.push("the Candor process exited during the faults");
  if (counts.unavailableWhileDown === 0) problems.push("no request was answered 503 while the database was down");

  stopping = true;
  server.child.kill("SIGTERM");
  const code = await server.exited;
  if (code !== 0) problems.push(`the server exited with ${code} on SIGTERM`);
  const unhandled = server.log().match(/"level":(50|60)/g)?.length ?? 0;
  if (unhandled > 0) problems.push(`${unhandled} error or fatal log lines`);

  const writes = await verifyWrites(database, workload.acknowledged, workload.sent);
  problems.push(...writes.problems, ...tooFewWrites("database-faults", workload.acknowledged.size, minWrites));
  report.load = { clients, ...counts };
  report.writes = {
    sent: workload.sent.size,
    acknowledged: workload.acknowledged.size,
    lost: writes.lost,
    duplicated: writes.duplicated,
    withoutReview: writes.orphans,
    aggregateMismatches: writes.mismatches,
    companiesChecked: writes.companies,
    managersChecked: writes.managers,
  };
} catch (error) {
  console.error(`server log:\n${server?.log().slice(-4000)}`);
  throw error;
} finally {
  await cleanUp(server, database);
}

console.log(JSON.stringify(report, null, 2));
printProblems("database-faults", problems);
console.log(
  `database-faults: ${((Date.now() - started) / 1000).toFixed(1)} s, ` +
    (problems.length === 0 ? "passed" : `FAILED (${problems.length} problems)`),
);
process.exit(problems.length === 0 ? 0 : 1);
