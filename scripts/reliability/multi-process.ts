// Several processes, one truth (docs/deploy.md): three Candor processes behind HAProxy (deploy/haproxy.cfg, Debian's
// package), on a PostgreSQL primary of our own plus a streaming replica made from it with pg_basebackup on another
// port (DATABASE_READ_URL), publishing on a shared schedule (PUBLISH_INTERVAL=2). Mixed traffic goes through the proxy
// for a bounded time; one process is killed (SIGKILL) mid-load and started again, as systemd would. Then:
// - no acknowledged write is lost or doubled, and every aggregate matches its reviews;
// - a limit of 10 sign-in attempts from one address lets exactly 10 through, spread over the three processes;
// - a published review shows through every process within 1 s of its publication's commit;
// - every turn of the publication schedule ran once: no turn taken twice, none skipped, none taken early;
// - the replica streamed and served reads.
// - at least --min-writes (default 50) writes were acknowledged: a run that wrote nothing checked nothing.
// Only 127.0.0.1. Run `npm run build` first. Usage: node scripts/reliability/multi-process.ts [--seconds 20]
// [--clients 24] [--min-writes 50]
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { rateLimits } from "#app/lib/rate-limit.server.ts";
import {
  accessToken,
  bearer,
  companyReview,
  createOwnPostgres,
  freePort,
  newClientIp,
  newMarker,
  newSecret,
  type Outcome,
  printProblems,
  publishQueued,
  root,
  runClients,
  type ServerProcess,
  sleep,
  spawnServer,
  tooFewWrites,
  verifyWrites,
  waitForHealth,
  Workload,
} from "./support.ts";
import { headlineReviewCount } from "#tests/e2e/support/http.ts";

const { values: options } = parseArgs({
  options: {
    seconds: { type: "string", default: "20" },
    clients: { type: "string", default: "24" },
    "min-writes": { type: "string", default: "50" },
  },
});
const seconds = Number(options.seconds);
const clients = Number(options.clients);
const minWrites = Number(options["min-writes"]);
const intervalSeconds = 2;

const haproxy = spawnSync("haproxy", ["-v"], { encoding: "utf8" });
if (haproxy.error || haproxy.status !== 0) {
  console.error(
    "multi-process: HAProxy is not installed. Install Debian's package (as root: apt-get install haproxy) and run again.",
  );
  process.exit(1);
}

const problems: string[] = [];
const started = Date.now();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-multi-"));
const primary = await createOwnPostgres("multi-primary");
const replica = await createOwnPostgres("multi-replica", { replicaOf: primary });
const databaseUrl = primary.url("candor");
const database = { engine: "postgres" as const, url: databaseUrl, dir, drop: async () => {} };
const query = async <T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
};

const secret = newSecret();
type App = { name: string; port: number; baseURL: string; logFile: string; server: ServerProcess };
const apps: App[] = [];
let proxy: ReturnType<typeof spawn> | undefined;
let replicaReadsServed = 0;

async function startApp(app: Omit<App, "server">, demo: "always" | "never"): Promise<App> {
  const server = spawnServer(
    database,
    app.port,
    {
      AUTH_SECRET: secret,
      DATABASE_READ_URL: replica.url("candor-read"),
      DEMO_DATA: demo,
      LOG_LEVEL: "info",
      PUBLISH_INTERVAL: String(intervalSeconds),
      PUBLIC_URL: app.baseURL,
    },
    { logFile: app.logFile },
  );
  fs.appendFileSync(`${app.logFile}.all`, ""); // every run of this app, for the count of publications
  await waitForHealth(app.baseURL, server, 60_000);
  return { ...app, server };
}

/** The lines a process logged as JSON (each run of it: its log file is copied aside before it is replaced). */
function logLines(app: App): Array<Record<string, unknown>> {
  const text = fs.readFileSync(`${app.logFile}.all`, "utf8") + fs.readFileSync(app.logFile, "utf8");
  return text.split("\n").flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

try {
  // Migrated before any process starts, so the audit below sees every turn of the schedule.
  const migrated = spawnSync(process.execPath, ["scripts/migrate.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl },
    encoding: "utf8",
  });
  if (migrated.status !== 0) throw new Error(`migration failed: ${migrated.stderr}`);
  // Test instrumentation, not part of Candor: every committed turn of the publication (the other jobs keep their own
  // rows and rhythm), with the time it was taken.
  await query(
    databaseUrl,
    `create table turn_audit (id bigserial primary key, taken_ms bigint not null, due_ms bigint not null, next_ms bigint not null);
     create function audit_turn() returns trigger language plpgsql as $$ begin
       insert into turn_audit (taken_ms, due_ms, next_ms)
       values ((extract(epoch from clock_timestamp()) * 1000)::bigint, old.next_run_ms, new.next_run_ms);
       return new; end $$;
     create trigger audit_turn after update on scheduled_jobs for each row
       when (new.name = 'publication') execute function audit_turn();`,
  );

  for (const [index, name] of ["app1", "app2", "app3"].entries()) {
    const port = await freePort();
    const app = { name, port, baseURL: `http://127.0.0.1:${port}`, logFile: path.join(dir, `${name}.log`) };
    // The first process migrates and loads the demo data; the others start on the database it made.
    apps.push(await startApp(app, index === 0 ? "always" : "never"));
  }
  const proxyPort = await freePort();
  const proxyURL = `http://127.0.0.1:${proxyPort}`;
  proxy = spawn("haproxy", ["-f", path.join(root, "deploy/haproxy.cfg"), "-db"], {
    env: {
      PATH: process.env.PATH,
      CANDOR_HTTP_BIND: `127.0.0.1:${proxyPort}`,
      CANDOR_APP1: `127.0.0.1:${apps[0]!.port}`,
      CANDOR_APP2: `127.0.0.1:${apps[1]!.port}`,
      CANDOR_APP3: `127.0.0.1:${apps[2]!.port}`,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let proxyLog = "";
  proxy.stderr?.on("data", (chunk) => (proxyLog += chunk));
  process.once("exit", () => proxy?.kill("SIGKILL"));
  await waitForHealth(proxyURL, { child: proxy, log: () => proxyLog, exited: once(proxy, "exit").then(() => null) });

  // 1. A limit of N attempts lets exactly N through, whichever processes the proxy picks.
  const attacker = newClientIp();
  const statuses = await Promise.all(
    Array.from({ length: rateLimits.signIn.points + 6 }, () =>
      fetch(`${proxyURL}/api/v1/auth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": attacker },
        body: JSON.stringify({ grant_type: "password", email: "nobody@example.com", password: "not the password" }),
      }).then(async (response) => {
        await response.body?.cancel();
        return response.status;
      }),
    ),
  );
  const through = statuses.filter((status) => status === 401).length;
  if (through !== rateLimits.signIn.points || statuses.some((status) => status !== 401 && status !== 429)) {
    problems.push(`a limit of ${rateLimits.signIn.points} let ${through} through: ${statuses.join(",")}`);
  }

  // 2. Mixed traffic through the proxy; app2 is killed at 40 % of the run and started again at 60 %.
  const outcomes: Array<Outcome & { at: number }> = [];
  const workload = new Workload(proxyURL, (outcome) => outcomes.push({ ...outcome, at: Date.now() }), 60_000);
  const writers = await workload.accounts("multi", Math.ceil(clients / 3));
  await workload.discover();
  const deadline = Date.now() + seconds * 1000;
  let killedAt = 0;
  let restartedAt = 0;
  const chaos = (async () => {
    await sleep(seconds * 400);
    const victim = apps[1]!;
    victim.server.child.kill("SIGKILL");
    await victim.server.exited;
    killedAt = Date.now();
    await sleep(seconds * 200);
    fs.appendFileSync(`${victim.logFile}.all`, fs.readFileSync(victim.logFile));
    apps[1] = await startApp(victim, "never");
    restartedAt = Date.now();
  })();
  await runClients(workload, writers, clients, deadline);
  await chaos;
  // Requests that were under way in the killed process when it died get 502 from the proxy, or their connection
  // closed mid-answer (they are not acknowledged, and a write that was not acknowledged may or may not have
  // happened); nothing else may fail.
  const killWindow = (at: number) => killedAt > 0 && at >= killedAt - 1_000 && at <= killedAt + 3_000;
  let failedInKill = 0;
  for (const outcome of outcomes) {
    const failed = outcome.status === 0 || outcome.status >= 500 || (outcome.status >= 400 && outcome.status !== 404);
    if (!failed) continue;
    if ((outcome.status === 502 || outcome.status === 0) && killWindow(outcome.at)) failedInKill += 1;
    else
      problems.push(
        `${outcome.status || "no answer"} from ${outcome.path}: ${outcome.error ?? outcome.body.slice(0, 200)}`,
      );
  }

  // When the proxy answered for no process, its log says which check took each one out.
  if (outcomes.some((outcome) => outcome.status === 503 && outcome.body.includes("No server is available"))) {
    const changes = proxyLog.split("\n").filter((line) => / is (DOWN|UP)/.test(line));
    console.log(`multi-process: the proxy answered 503 for want of a process; its checks said:\n${changes.join("\n")}`);
    problems.push("the proxy had no process in its rotation (its checks are printed above)");
  }

  // 3. A review published by the schedule shows through every process within 1 s of its commit.
  const company = workload.companies[0]!;
  const page = `/company/${company}`;
  const reviewCount = async (app: App) => {
    const response = await fetch(`${app.baseURL}${page}`, { headers: { "X-Forwarded-For": newClientIp() } });
    const html = await response.text();
    return { cache: response.headers.get("x-cache"), count: headlineReviewCount(html) };
  };
  // Every queued write of the load is published first (by the schedule), so the count below moves by this review
  // alone.
  const queueEmptyBy = Date.now() + intervalSeconds * 1500 + 5_000;
  const queued = async () =>
    Number((await query<{ count: string }>(databaseUrl, "select count(*) as count from pending_reviews"))[0]!.count);
  while ((await queued()) > 0 && Date.now() < queueEmptyBy) await sleep(20);
  // The last publication's change may still be on its way to a process when the queue is seen empty, making a page it
  // just kept stale: every process must come to keep the page (a hit) once no more changes arrive.
  const keptBy = Date.now() + 10_000;
  const kept = await Promise.all(
    apps.map(async (app) => {
      let answer = await reviewCount(app);
      while (answer.cache !== "hit" && Date.now() < keptBy) answer = await reviewCount(app);
      return answer;
    }),
  );
  for (const [index, app] of apps.entries()) {
    if (kept[index]!.cache !== "hit") problems.push(`${app.name} did not keep ${page} (x-cache ${kept[index]!.cache})`);
  }
  // Readers reading the replica while it serves the load's end: the processes read public pages from it.
  replicaReadsServed = await replicaReads();
  const marker = newMarker();
  workload.sent.add(marker);
  const writer = await fetch(`${proxyURL}/api/v1/companies/${company}/reviews`, {
    method: "POST",
    headers: {
      ...bearer(await accessToken(proxyURL, writers[0]!)),
      "Content-Type": "application/json",
      "X-Forwarded-For": newClientIp(),
    },
    body: JSON.stringify(companyReview(marker, 1)),
  });
  await writer.body?.cancel();
  if (writer.ok) workload.acknowledged.add(marker);
  const stored = async () =>
    Number(
      (
        await query<{ count: string }>(
          databaseUrl,
          `select count(*) as count from company_reviews where company_id = ${company}`,
        )
      )[0]!.count,
    );
  const storedBefore = await stored();
  if (writer.status !== 202 && writer.status !== 201) problems.push(`the visibility write answered ${writer.status}`);
  else {
    // Published by whichever process takes the next turn (at most 1.5 × the interval away).
    const waitUntil = Date.now() + intervalSeconds * 1500 + 2_000;
    while ((await stored()) === storedBefore && Date.now() < waitUntil) await sleep(10);
    const committed = performance.now();
    const seen = await Promise.all(
      apps.map(async (app, index) => {
        for (;;) {
          const { count } = await reviewCount(app);
          const ms = performance.now() - committed;
          if (count > kept[index]!.count || ms > 1_000) return { app: app.name, ms: Math.round(ms), count };
        }
      }),
    );
    for (const [index, result] of seen.entries()) {
      if (result.count <= kept[index]!.count) {
        problems.push(`${result.app} still showed ${result.count} reviews ${result.ms} ms after the publication`);
      }
    }
    console.log(`multi-process: visible after ${seen.map((result) => `${result.app} ${result.ms} ms`).join(", ")}`);
  }

  // 4. Every turn of the publication ran once.
  const turns = await query<{ taken_ms: string; due_ms: string; next_ms: string }>(
    databaseUrl,
    "select taken_ms, due_ms, next_ms from turn_audit order by id",
  );
  for (const [index, turn] of turns.entries()) {
    if (Number(turn.taken_ms) < Number(turn.due_ms)) problems.push(`turn ${index} was taken before it was due`);
    if (index > 0 && turn.due_ms !== turns[index - 1]!.next_ms) {
      problems.push(
        `turn ${index} was due at ${turn.due_ms}, but the turn before planned ${turns[index - 1]!.next_ms}`,
      );
    }
  }
  const publications = apps.flatMap(logLines).filter((line) => line.msg === "publication").length;
  if (turns.length < seconds / (intervalSeconds * 1.5)) problems.push(`only ${turns.length} turns in ${seconds} s`);
  // One log line per turn; the killed process may have died between a turn's commit and its log line.
  if (publications > turns.length || publications < turns.length - 1) {
    problems.push(`${publications} publications logged for ${turns.length} turns`);
  }

  // 5. The replica streamed and served reads.
  const streaming = await query(primary.url("check"), "select 1 from pg_stat_replication where state = 'streaming'");
  if (streaming.length !== 1) problems.push("the replica is not streaming from the primary");
  if (replicaReadsServed <= 0) problems.push("no process read from the replica");

  // 6. Stop, publish what is still queued, and count every acknowledged write.
  for (const app of apps) {
    app.server.child.kill("SIGTERM");
    const code = await app.server.exited;
    if (code !== 0) problems.push(`${app.name} exited with ${code}`);
  }
  publishQueued(database, { AUTH_SECRET: secret });
  const check = await verifyWrites(database, workload.acknowledged, workload.sent);
  problems.push(...check.problems, ...tooFewWrites("multi-process", workload.acknowledged.size, minWrites));
  console.log(
    `multi-process: ${JSON.stringify({
      seconds,
      clients,
      requests: outcomes.length,
      writesAcknowledged: workload.acknowledged.size,
      lost: check.lost,
      duplicated: check.duplicated,
      aggregateMismatches: check.mismatches,
      failedWhileAProcessDied: failedInKill,
      killedAfterMs: killedAt - started,
      restartedAfterMs: restartedAt - started,
      signInStatuses: `${through}×401, ${statuses.length - through}×429`,
      publicationTurns: turns.length,
      publicationsLogged: publications,
      replicaReads: replicaReadsServed,
    })}`,
  );
} catch (error) {
  problems.push(`the run stopped: ${error instanceof Error ? error.stack : String(error)}`);
} finally {
  proxy?.kill("SIGTERM");
  for (const app of apps) if (app.server.child.exitCode === null) app.server.child.kill("SIGKILL");
  replica.remove();
  primary.remove();
  fs.rmSync(dir, { recursive: true, force: true });
}

/** The processes' connections to the replica whose last statement was a read of public data. */
async function replicaReads(): Promise<number> {
  const rows = await query<{ count: string }>(
    replica.url("check"),
    `select count(*) as count from pg_stat_activity where application_name = 'candor-read' and query ilike 'select%'`,
  );
  return Number(rows[0]?.count ?? 0);
}

printProblems("multi-process", problems);
console.log(`multi-process: ${((Date.now() - started) / 1000).toFixed(1)} s${problems.length > 0 ? " — FAILED" : ""}`);
process.exit(problems.length > 0 ? 1 : 0);
