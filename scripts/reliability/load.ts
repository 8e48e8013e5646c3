// Load (docs/security.md): 200 concurrent clients mix reads and writes for 60 seconds on loopback against the built
// server; no answer may be a 5xx (or missing), and every acknowledged write must be in the database exactly once
// afterwards with matching aggregates. On SQLite and on PostgreSQL (a fresh schema of the shared server).
// Each client is a client of its own to the rate limiters: the server trusts 127.0.0.1 as a proxy
// (TRUSTED_PROXIES) and every client sends its own X-Forwarded-For; a third of the clients also write, each with an
// account of its own, and stays within the API write limit (60 an hour per client) and the review limit its writes
// share with the forms (30 an hour). Production limits are unchanged.
// Fewer acknowledged writes than --min-writes (default 100 per engine) fail the run.
// Run `npm run build` first. Usage: node scripts/reliability/load.ts [--seconds 60] [--clients 200] [--engine …]
// [--min-writes 100]
import { parseArgs } from "node:util";
import {
  cleanUp,
  createDatabase,
  type Engine,
  freePort,
  newSecret,
  type Outcome,
  printProblems,
  quantile,
  runClients,
  spawnServer,
  tooFewWrites,
  verifyWrites,
  waitForHealth,
  Workload,
} from "./support.ts";

const { values: options } = parseArgs({
  options: {
    seconds: { type: "string", default: "60" },
    clients: { type: "string", default: "200" },
    engine: { type: "string", multiple: true },
    "min-writes": { type: "string", default: "100" },
  },
});
const minWrites = Number(options["min-writes"]);
const seconds = Number(options.seconds);
const clients = Number(options.clients);
const engines = (options.engine ?? ["sqlite", "postgres"]) as Engine[];

async function runEngine(engine: Engine) {
  const database = await createDatabase(engine, "load");
  const port = await freePort();
  const baseURL = `http://127.0.0.1:${port}`;
  const server = spawnServer(database, port, { AUTH_SECRET: newSecret(), DATABASE_POOL_SIZE: "20" });
  const outcomes: Outcome[] = [];
  const problems: string[] = [];
  try {
    await waitForHealth(baseURL, server);
    const workload = new Workload(baseURL, (outcome) => outcomes.push(outcome), 60_000);
    const writers = await workload.accounts("load", Math.ceil(clients / 3));
    await workload.discover();
    const deadline = Date.now() + seconds * 1000;
    const started = performance.now();
    await runClients(workload, writers, clients, deadline);
    const elapsed = (performance.now() - started) / 1000;
    server.child.kill("SIGTERM");
    const code = await server.exited;
    if (code !== 0) problems.push(`the server exited with ${code}`);

    const check = await verifyWrites(database, workload.acknowledged, workload.sent);
    problems.push(...check.problems, ...tooFewWrites(engine, workload.acknowledged.size, minWrites));
    const classes: Record<string, number> = {};
    for (const outcome of outcomes) {
      const name = outcome.status === 0 ? "no answer" : `${String(outcome.status).slice(0, 1)}xx`;
      classes[name] = (classes[name] ?? 0) + 1;
      if (outcome.status === 0) problems.push(`no answer from ${outcome.path}: ${outcome.error}`);
      else if (outcome.status >= 500 || (outcome.status >= 400 && outcome.status !== 404)) {
        problems.push(`${outcome.status} from ${outcome.path}: ${outcome.body.slice(0, 200)}`);
      }
    }
    const latencies = (kind?: Outcome["kind"]) =>
      outcomes
        .filter((outcome) => !kind || outcome.kind === kind)
        .map((outcome) => outcome.ms)
        .sort((a, b) => a - b);
    const all = latencies();
    const reads = outcomes.filter((outcome) => outcome.kind === "read").length;
    const summary = {
      engine,
      clients,
      seconds: Number(elapsed.toFixed(1)),
      requests: outcomes.length,
      byStatus: classes,
      readsPerSecond: Math.round(reads / elapsed),
      writesSent: workload.sent.size,
      writesAcknowledged: workload.acknowledged.size,
      writesPerSecond: Math.round(workload.acknowledged.size / elapsed),
      p50ms: Math.round(quantile(all, 0.5)),
      p99ms: Math.round(quantile(all, 0.99)),
      readP99ms: Math.round(quantile(latencies("read"), 0.99)),
      writeP99ms: Math.round(quantile(latencies("write"), 0.99)),
      serverErrors: outcomes.filter((outcome) => outcome.status >= 500).length,
      lost: check.lost,
      duplicated: check.duplicated,
      withoutReview: check.orphans,
      aggregateMismatches: check.mismatches,
      companiesChecked: check.companies,
      managersChecked: check.managers,
    };
    return { summary, problems };
  } finally {
    await cleanUp(server, database);
  }
}

const started = Date.now();
let failed = false;
for (const engine of engines) {
  const { summary, problems } = await runEngine(engine);
  printProblems(`load ${engine}`, problems);
  failed ||= problems.length > 0;
  console.log(`load ${engine}: ${JSON.stringify(summary)}${problems.length > 0 ? " — FAILED" : ""}`);
}
console.log(`load: ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failed ? 1 : 0);
