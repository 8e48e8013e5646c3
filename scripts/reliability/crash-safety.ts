// Crash safety (docs/security.md): writes under load while the server is killed with SIGKILL again and again; then
// every acknowledged write must exist exactly once and every company's aggregates must match its reviews.
// Each life of the server acknowledges 10 writes at least before it is killed. Any 5xx answer fails the run, and so do
// fewer acknowledged writes than --min-writes (default 200 per engine).
// Run `npm run build` first. Usage: node scripts/reliability/crash-safety.ts [--kills 20] [--engine sqlite|postgres]
// [--min-writes 200]
import { parseArgs } from "node:util";
import {
  cleanUp,
  accessToken,
  bearer,
  companyReview,
  createDatabase,
  type Engine,
  freePort,
  newClientIp,
  newCompany,
  newMarker,
  newSecret,
  type ServerProcess,
  signUp,
  sleep,
  publishQueued,
  tooFewWrites,
  spawnServer,
  verifyWrites,
  waitForHealth,
} from "./support.ts";

const { values: options } = parseArgs({
  options: {
    kills: { type: "string", default: "20" },
    engine: { type: "string", multiple: true },
    workers: { type: "string", default: "8" },
    "min-writes": { type: "string", default: "200" },
  },
});
const minWrites = Number(options["min-writes"]);
/** Writes each life of the server acknowledges before it is killed: 20 kills make at least 200, the minimum. */
const writesPerLife = 10;
const kills = Number(options.kills);
const workers = Number(options.workers);
const engines = (options.engine ?? ["sqlite", "postgres"]) as Engine[];

type Summary = {
  engine: Engine;
  kills: number;
  requests: number;
  acknowledged: number;
  lost: number;
  /** What `npm run reviews:publish` said of the queue after the last kill. */
  published: string;
  /** 5xx answers: a kill closes connections, it never makes the server answer 5xx. */
  serverErrors: string[];
  tooFew: string[];
  duplicated: number;
  orphans: number;
  mismatches: number;
  companies: number;
  managers: number;
};

async function runEngine(engine: Engine): Promise<Summary> {
  const database = await createDatabase(engine, "crash");
  const port = await freePort();
  const baseURL = `http://127.0.0.1:${port}`;
  // The same secret across restarts: tokens stay valid, as they would in production.
  const env = { AUTH_SECRET: newSecret() };
  let server: ServerProcess = spawnServer(database, port, env);
  try {
    await waitForHealth(baseURL, server);
    const emails = Array.from({ length: 4 }, (_, index) => `crash-${process.pid}-${index}@example.com`);
    for (const email of emails) await signUp(baseURL, email);
    const tokens = new Map<string, string>();
    for (const email of emails) tokens.set(email, await accessToken(baseURL, email));

    const acknowledged = new Set<string>();
    const sent = new Set<string>();
    const companies: number[] = [];
    let requests = 0;
    let killsDone = 0;
    const serverErrors: string[] = [];
    let running = true;
    let up: Promise<void> = Promise.resolve();

    const createFirst = async (email: string, marker: string) => {
      const body = { company: newCompany(marker), review: companyReview(marker, requests) };
      return post("/api/v1/companies", email, body, marker);
    };
    const post = async (path: string, email: string, body: unknown, marker: string) => {
      await up;
      requests += 1;
      sent.add(marker);
      try {
        const response = await fetch(`${baseURL}${path}`, {
          method: "POST",
          headers: {
            ...bearer(tokens.get(email)),
            "Content-Type": "application/json",
            "X-Forwarded-For": newClientIp(),
          },
          body: JSON.stringify(body),
        });
        const text = await response.text();
        if (response.ok) {
          acknowledged.add(marker);
          return JSON.parse(text) as { id?: number };
        }
        if (response.status === 401) tokens.set(email, await accessToken(baseURL, email).catch(() => ""));
        else if (response.status >= 500)
          serverErrors.push(`${path} answered ${response.status}: ${text.slice(0, 200)}`);
        else throw new Error(`${path} answered ${response.status}: ${text}`);
      } catch (error) {
        if (error instanceof Error && error.message.includes("answered")) throw error;
        // The server died under the request: neither acknowledged nor refused. Wait for the restart.
        await sleep(20);
      }
      return undefined;
    };

    const worker = async (index: number) => {
      const email = emails[index % emails.length]!;
      while (running) {
        const marker = newMarker();
        if (companies.length < 5 || Math.random() < 0.25) {
          const created = await createFirst(email, marker);
          if (created?.id) companies.push(created.id);
        } else {
          const id = companies[Math.floor(Math.random() * companies.length)]!;
          await post(`/api/v1/companies/${id}/reviews`, email, companyReview(marker, requests), marker);
        }
      }
    };
    const load = Array.from({ length: workers }, (_, index) => worker(index));

    for (let kill = 1; kill <= kills; kill += 1) {
      // Each life of the server acknowledges writes before it is killed: on a busy machine a restart can take most of
      // a fixed interval, and a run of kills alone tests nothing. A server that acknowledges none fails the run.
      const before = acknowledged.size;
      const since = Date.now();
      while (acknowledged.size < before + writesPerLife) {
        if (Date.now() - since > 120_000) throw new Error(`no write acknowledged for 120 s before kill ${kill}`);
        await sleep(20);
      }
      await sleep(300 + Math.random() * 1200);
      let restarted!: () => void;
      up = new Promise((resolve) => (restarted = resolve));
      server.child.kill("SIGKILL");
      await server.exited;
      killsDone += 1;
      server = spawnServer(database, port, env);
      await waitForHealth(baseURL, server);
      restarted();
    }
    await sleep(500);
    running = false;
    await Promise.all(load);
    server.child.kill("SIGTERM");
    const code = await server.exited;
    if (code !== 0) throw new Error(`the last server exited with ${code}:\n${server.log()}`);

    const published = publishQueued(database, env).trim();
    const result = await verifyWrites(database, acknowledged, sent);
    for (const problem of result.problems.slice(0, 50)) console.error(`  ${engine}: ${problem}`);
    for (const error of serverErrors.slice(0, 20)) console.error(`  ${engine}: ${error}`);
    const tooFew = tooFewWrites(engine, acknowledged.size, minWrites);
    for (const problem of tooFew) console.error(`  ${problem}`);
    return {
      engine,
      kills: killsDone,
      requests,
      acknowledged: acknowledged.size,
      published,
      serverErrors,
      tooFew,
      ...result,
    };
  } finally {
    await cleanUp(server, database);
  }
}

const started = Date.now();
let failed = false;
for (const engine of engines) {
  const summary = await runEngine(engine);
  const bad =
    summary.lost + summary.duplicated + summary.orphans + summary.mismatches > 0 ||
    summary.serverErrors.length > 0 ||
    summary.tooFew.length > 0;
  failed ||= bad;
  console.log(
    `crash-safety ${engine}: ${summary.kills} kills survived, ${summary.requests} requests sent, ` +
      `${summary.acknowledged} acknowledged writes checked (at least ${minWrites} required), ` +
      `${summary.serverErrors.length} 5xx, ${summary.lost} lost, ${summary.duplicated} duplicated, ` +
      `${summary.orphans} companies or managers without a review, ${summary.mismatches} aggregate mismatches ` +
      `(${summary.companies} companies and ${summary.managers} managers checked; leftovers: ${summary.published})` +
      (bad ? " — FAILED" : ""),
  );
}
console.log(`crash-safety: ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failed ? 1 : 0);
