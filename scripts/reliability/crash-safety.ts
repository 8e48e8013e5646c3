// Crash safety (issue 6, item 1): writes under load while the server is killed with SIGKILL again and again; then
// every acknowledged write must exist exactly once and every company's aggregates must match its reviews.
// Run `npm run build` first. Usage: node scripts/reliability/crash-safety.ts [--kills 20] [--engine sqlite|postgres]
import { parseArgs } from "node:util";
import SQLite from "better-sqlite3";
import pg from "pg";
import { companyCriteria } from "#app/lib/ratings.ts";
import {
  accessToken,
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
  spawnServer,
  type TestDatabase,
  waitForHealth,
} from "./support.ts";

const { values: options } = parseArgs({
  options: {
    kills: { type: "string", default: "20" },
    engine: { type: "string", multiple: true },
    workers: { type: "string", default: "8" },
  },
});
const kills = Number(options.kills);
const workers = Number(options.workers);
const engines = (options.engine ?? ["sqlite", "postgres"]) as Engine[];

type Summary = {
  engine: Engine;
  kills: number;
  requests: number;
  acknowledged: number;
  lost: number;
  duplicated: number;
  orphans: number;
  mismatches: number;
  companies: number;
};

type Row = Record<string, unknown>;

/** Runs a read-only query on the database the server wrote. */
async function readDatabase(database: TestDatabase, query: string): Promise<Row[]> {
  if (database.engine === "sqlite") {
    const sqlite = new SQLite(database.url, { readonly: true, fileMustExist: true });
    try {
      return sqlite.prepare(query).all() as Row[];
    } finally {
      sqlite.close();
    }
  }
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<Row>(query)).rows;
  } finally {
    await client.end();
  }
}

async function verify(database: TestDatabase, acknowledged: Set<string>, sent: Set<string>) {
  const rows = await readDatabase(
    database,
    "select substr(review_text, 1, 43) as marker from company_reviews where review_text like 'crashmarker%'",
  );
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(String(row.marker), (counts.get(String(row.marker)) ?? 0) + 1);
  const problems: string[] = [];
  let lost = 0;
  let duplicated = 0;
  for (const marker of acknowledged) {
    const count = counts.get(marker) ?? 0;
    if (count === 0) {
      lost += 1;
      problems.push(`lost: ${marker}`);
    }
  }
  for (const [marker, count] of counts) {
    if (count > 1) {
      duplicated += 1;
      problems.push(`duplicated ×${count}: ${marker}`);
    }
    if (!sent.has(marker)) problems.push(`unknown marker in the database: ${marker}`);
  }
  // Demo companies may have no review yet (demo-data.server.ts); every company a user added came with its first.
  const orphans = await readDatabase(
    database,
    `select c.id from companies c
     where c.is_demo = 0 and not exists (select 1 from company_reviews r where r.company_id = c.id)`,
  );
  for (const row of orphans) problems.push(`company ${String(row.id)} has no review`);

  const sums = companyCriteria.map((key) => `coalesce(sum(r.${key}), 0) as fresh_${key}, c.sum_${key}`).join(", ");
  const aggregates = await readDatabase(
    database,
    `select c.id, c.review_count, count(r.id) as fresh_review_count, c.again_yes,
       coalesce(sum(r.again), 0) as fresh_again_yes, c.recommend_yes, coalesce(sum(r.recommend), 0) as fresh_recommend_yes,
       ${sums}
     from companies c left join company_reviews r on r.company_id = c.id group by c.id`,
  );
  const columns = ["review_count", "again_yes", "recommend_yes", ...companyCriteria.map((key) => `sum_${key}`)];
  let mismatches = 0;
  for (const row of aggregates) {
    const wrong = columns.filter((column) => {
      const fresh = row[column.startsWith("sum_") ? `fresh_${column.slice(4)}` : `fresh_${column}`];
      return Number(row[column]) !== Number(fresh);
    });
    if (wrong.length > 0) {
      mismatches += 1;
      problems.push(`company ${String(row.id)}: stored aggregates differ from its reviews in ${wrong.join(", ")}`);
    }
  }
  return { lost, duplicated, orphans: orphans.length, mismatches, problems, companies: aggregates.length };
}

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
            Authorization: `Bearer ${tokens.get(email)}`,
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
        else if (response.status < 500) throw new Error(`${path} answered ${response.status}: ${text}`);
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

    const result = await verify(database, acknowledged, sent);
    for (const problem of result.problems.slice(0, 50)) console.error(`  ${engine}: ${problem}`);
    return { engine, kills: killsDone, requests, acknowledged: acknowledged.size, ...result };
  } finally {
    if (server.child.exitCode === null) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
    await database.drop();
  }
}

const started = Date.now();
let failed = false;
for (const engine of engines) {
  const summary = await runEngine(engine);
  const bad = summary.lost + summary.duplicated + summary.orphans + summary.mismatches > 0;
  failed ||= bad;
  console.log(
    `crash-safety ${engine}: ${summary.kills} kills survived, ${summary.requests} requests sent, ` +
      `${summary.acknowledged} acknowledged writes checked, ${summary.lost} lost, ${summary.duplicated} duplicated, ` +
      `${summary.orphans} companies without a review, ${summary.mismatches} aggregate mismatches ` +
      `(${summary.companies} companies checked)` +
      (bad ? " — FAILED" : ""),
  );
}
console.log(`crash-safety: ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(failed ? 1 : 0);
