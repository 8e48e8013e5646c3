// The one harness that starts the built server (`npm run build` first) on a throwaway database: used by the browser
// and HTTP tests (tests/e2e), the reliability scripts and tests, and the benchmark.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import SQLite from "better-sqlite3";
import pg from "pg";
import { companyCriteria, companyYesNo, managerCriteria, managerYesNo } from "#app/lib/ratings.ts";
import { testPostgresUrl } from "./postgres-url.ts";

export type Engine = "sqlite" | "postgres";

export const root = fileURLToPath(new URL("../..", import.meta.url));
/** The PostgreSQL database in which every run creates its throwaway schema (TEST_DATABASE_URL). */
export const postgresAdminUrl = testPostgresUrl();

/**
 * How `npm start` runs the server (package.json's `start` script): the environment it sets before `node` (glibc's
 * malloc settings) and the V8 flags it gives, so that every test and the benchmark run the server with the memory
 * limits it has in production.
 */
export const serverStart: { env: Record<string, string>; nodeFlags: string[] } = (() => {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
    scripts: { start: string };
  };
  const words = scripts.start.split(/\s+/);
  const env = Object.fromEntries(
    words.slice(0, words.indexOf("node")).map((word) => word.split("=", 2) as [string, string]),
  );
  return { env, nodeFlags: words.filter((word) => word.startsWith("--max-")) };
})();

export const newSecret = () => randomBytes(32).toString("hex");
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function freePort(): Promise<number> {
  const probe = net.createServer();
  probe.listen(0, "127.0.0.1");
  await once(probe, "listening");
  const { port } = probe.address() as net.AddressInfo;
  probe.close();
  await once(probe, "close");
  return port;
}

export async function adminQuery<T extends pg.QueryResultRow>(statement: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: postgresAdminUrl });
  await client.connect();
  try {
    return await client.query<T>(statement, values);
  } finally {
    await client.end();
  }
}

/** A database the server may write: a temporary directory (its SQLite file, its outbox) and, on PostgreSQL, a schema. */
export type ThrowawayDatabase = {
  engine: Engine;
  url: string;
  dir: string;
  schema?: string;
  drop: () => Promise<void>;
};

/** A temporary SQLite file, or a fresh schema of the PostgreSQL database (selected through search_path). */
export async function createDatabase(engine: Engine, label: string): Promise<ThrowawayDatabase> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `candor-${label}-`));
  const removeDir = () => fs.rmSync(dir, { recursive: true, force: true });
  if (engine === "sqlite") {
    return { engine, url: path.join(dir, "candor.sqlite"), dir, drop: async () => removeDir() };
  }
  const schema = `candor_${label.replace(/\W/g, "_")}_${process.pid}_${Date.now()}`;
  try {
    await adminQuery(`create schema ${schema}`);
  } catch (error) {
    removeDir();
    throw error;
  }
  const url = new URL(postgresAdminUrl);
  url.search = `?options=${encodeURIComponent(`-c search_path=${schema}`)}&application_name=${schema}`;
  return {
    engine,
    url: url.href,
    dir,
    schema,
    drop: async () => {
      await adminQuery(`drop schema if exists ${schema} cascade`);
      removeDir();
    },
  };
}

/** One run of `node server/main.ts` on a fixed port and database; `log` collects stdout and stderr. */
export type ServerProcess = { child: ChildProcess; log: () => string; exited: Promise<number | null> };

/** Publish-at-once mode, with the queue's key files under `dir`. */
export function publishAtOnce(dir: string): Record<string, string> {
  return {
    PUBLISH_INTERVAL: "0",
    MANAGER_MIN_REVIEWS: "1",
    PUBLISH_MIN_AUTHORS: "1",
    QUEUE_KEY_DIR: path.join(dir, "queue-keys"),
    // Tests, scripts and the benchmark post many reviews of one subject, often the same text, on purpose: the
    // manipulation checks would hold them for a moderator. They are tested where they are turned on.
    MANIPULATION_CHECKS: "off",
    // The peer ranking writes whenever its turn comes (a minute after start, then every 10 minutes), which tests
    // that compare everything stored before and after a request would read as a change; its tests rank on demand.
    PEER_RANKING: "off",
  };
}

/**
 * `npm run reviews:publish` on this database: what a crash left queued (committed, perhaps never answered) is
 * published before the writes are counted.
 */
export function publishQueued(
  database: Pick<ThrowawayDatabase, "url" | "dir">,
  extraEnv: Record<string, string> = {},
): string {
  return execFileSync(process.execPath, ["scripts/publish.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH, DATABASE_URL: database.url, ...publishAtOnce(database.dir), ...extraEnv },
    encoding: "utf8",
  });
}

/**
 * Production mode, demo data, warnings and errors only, mail into `<dir>/outbox`, links back to the server itself;
 * `extraEnv` adds or replaces settings. `options.logFile` sends the server's output to a file instead of memory
 * (a benchmark logs a line per request); `options.nodeArgs` go before the script (e.g. --cpu-prof).
 */
export function spawnServer(
  database: Pick<ThrowawayDatabase, "url" | "dir">,
  port: number,
  extraEnv: Record<string, string> = {},
  options: { logFile?: string; nodeArgs?: string[] } = {},
): ServerProcess {
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    ...serverStart.env,
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: String(port),
    DATABASE_URL: database.url,
    DEMO_DATA: "always",
    LOG_LEVEL: "warn",
    AUTH_SECRET: newSecret(),
    OUTBOX_DIR: path.join(database.dir, "outbox"),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    // Tests, scripts and the benchmark look at a review right after writing it: each submission is published before
    // it is answered (the batching itself is tested in app/domain/publication.server.test.ts).
    ...publishAtOnce(database.dir),
    ...extraEnv,
  };
  const { logFile, nodeArgs = [] } = options;
  const logFd = logFile ? fs.openSync(logFile, "w") : undefined;
  // Flags given later win, so `nodeArgs` may override the defaults (the benchmark's --heap does).
  const child = spawn(process.execPath, [...serverStart.nodeFlags, ...nodeArgs, "server/main.ts"], {
    cwd: root,
    env,
    stdio: ["ignore", logFd ?? "pipe", logFd ?? "pipe"],
  });
  if (logFd !== undefined) fs.closeSync(logFd); // the child keeps its own copy
  let text = "";
  child.stdout?.on("data", (chunk) => (text += chunk));
  child.stderr?.on("data", (chunk) => (text += chunk));
  const exited = once(child, "exit").then(([code]) => code as number | null);
  // Never leave a server behind if this process dies first.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  void exited.then(() => process.off("exit", killOnExit));
  const log = logFile ? () => fs.readFileSync(logFile, "utf8") : () => text;
  return { child, log, exited };
}

/** The CPU time (user and system) a process has used, in ms, from /proc/PID/stat; null where that cannot be read. */
function cpuMsOf(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The fields after the command's closing parenthesis start at the state (3rd); utime and stime are the 14th and
    // 15th, in clock ticks of 10 ms (USER_HZ is 100 on Linux).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** A start that is stuck rather than slow: this long without a healthy answer even on the busiest machine. */
const stuckAfterMs = 10 * 60_000;

/**
 * Waits until the server answers /healthz. A busy machine can make a start take many times longer than usual, so
 * the limit is on the work the server does, not on the time: it fails once the server exited or spent
 * `cpuBudgetMs` of CPU time without becoming healthy (a start costs a few seconds), or when it shows no answer for
 * ten minutes whatever it spent (a start waiting forever, on a lock say).
 */
export async function waitForHealth(baseURL: string, server: ServerProcess, cpuBudgetMs = 60_000): Promise<void> {
  const startedAt = Date.now();
  for (;;) {
    if (server.child.exitCode !== null)
      throw new Error(`the server exited with ${server.child.exitCode}:\n${server.log()}`);
    try {
      const response = await fetch(`${baseURL}/healthz`);
      await response.body?.cancel();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    const spent = cpuMsOf(server.child.pid);
    if (spent !== null && spent > cpuBudgetMs)
      throw new Error(`the server spent ${spent} ms of CPU time without becoming healthy:\n${server.log()}`);
    if (Date.now() - startedAt > stuckAfterMs)
      throw new Error(`the server did not become healthy within ${stuckAfterMs} ms:\n${server.log()}`);
    await sleep(50);
  }
}

/** Kills the server if it still runs, then removes its database. */
export async function cleanUp(server: ServerProcess | undefined, database: ThrowawayDatabase): Promise<void> {
  if (server && server.child.exitCode === null) {
    server.child.kill("SIGKILL");
    await server.exited;
  }
  await database.drop();
}

export type RunningServer = {
  engine: Engine;
  baseURL: string;
  /** The server's process id, e.g. to read its memory from /proc. */
  pid: number;
  databaseUrl: string;
  /** Where the mailer writes its .eml files (no SMTP_URL is set), for tests to read. */
  outboxDir: string;
  /** Sends SIGTERM, waits for the process to end, removes its database; resolves with the exit code. */
  stop: () => Promise<number | null>;
  /** What the server wrote to stdout and stderr (LOG_LEVEL=warn: warnings and errors only). */
  output: () => string;
};

export type ServerOptions = {
  /**
   * Settings added to (or replacing) the defaults, e.g. TRUSTED_PROXIES, PUBLIC_URL, or DEMO_DATA=never for a
   * faster start. PUBLIC_URL defaults to the server's own address, so links in mails lead back to it.
   */
  env?: Record<string, string>;
};

/** Starts the built server on a free port and a fresh database, with demo data unless told otherwise. */
export async function startServer(engine: Engine, options: ServerOptions = {}): Promise<RunningServer> {
  const database = await createDatabase(engine, "e2e");
  const port = await freePort();
  const baseURL = `http://127.0.0.1:${port}`;
  const server = spawnServer(database, port, options.env);
  try {
    await waitForHealth(baseURL, server, 30_000);
  } catch (error) {
    await cleanUp(server, database);
    throw error;
  }
  let stopping = false;
  // A server that dies while its tests run leaves them only "connection refused": its last words go to the test
  // run's output instead of being lost with the process.
  void server.exited.then((code) => {
    if (stopping) return;
    const how = code === null ? `the signal ${server.child.signalCode}` : `code ${code}`;
    process.stderr.write(
      `\nThe ${engine} server on ${baseURL} exited on its own, with ${how}. Its output:\n${server.log()}\n`,
    );
  });
  return {
    engine,
    baseURL,
    pid: server.child.pid!,
    databaseUrl: database.url,
    outboxDir: path.join(database.dir, "outbox"),
    output: server.log,
    async stop() {
      stopping = true;
      let code = server.child.exitCode;
      if (code === null) {
        server.child.kill("SIGTERM");
        code = await server.exited;
      }
      await database.drop();
      return code;
    },
  };
}

type Row = Record<string, unknown>;

/** Runs a read-only query on the database the server wrote. */
export async function readDatabase(database: Pick<ThrowawayDatabase, "engine" | "url">, query: string): Promise<Row[]> {
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

// Companies and managers carry aggregates of their reviews (docs/data-model.md); has_oncall is not summed.
const subjects = [
  {
    kind: "company",
    table: "companies",
    months: "company_months",
    reviews: "company_reviews",
    key: "company_id",
    criteria: companyCriteria,
    yes: companyYesNo.filter((key) => key !== "has_oncall"),
  },
  {
    kind: "manager",
    table: "managers",
    months: "manager_months",
    reviews: "manager_reviews",
    key: "manager_id",
    criteria: managerCriteria,
    yes: managerYesNo,
  },
] as const;

export type SubjectTable = (typeof subjects)[number]["table"];

/**
 * A company or manager whose stored aggregates differ from a fresh aggregation of its reviews, and where; or (table
 * `vote_receipts`, id 0) helpful-vote counts that do not add up to the receipts.
 */
export type AggregateMismatch = { table: SubjectTable | "vote_receipts"; id: number; columns: string[] };

/**
 * Compares every stored aggregate (review count, yes counts, rating sums, the sum of squared rating totals, the
 * rank of "Best rated" lists, the rating and tag distributions, the monthly buckets' counts and sums) with a fresh aggregation over the reviews that stand: of every company and manager,
 * or only of the ids `only` names for a table (a benchmark's dataset is too large to check whole). `checked` counts
 * the subjects compared per table. A distribution row or monthly bucket whose count is 0 stands for no row. Helpful-vote counts are
 * checked against the receipts of the whole database, whatever `only` says.
 */
export async function checkAggregates(
  database: Pick<ThrowawayDatabase, "engine" | "url">,
  only?: Partial<Record<SubjectTable, number[]>>,
): Promise<{ mismatches: AggregateMismatch[]; checked: Record<SubjectTable, number> }> {
  const mismatches: AggregateMismatch[] = [];
  const checked: Record<SubjectTable, number> = { companies: 0, managers: 0 };
  for (const { kind, table, months, reviews, key, criteria, yes } of subjects) {
    const ids = only ? only[table] : undefined;
    if (only && !ids?.length) continue;
    const total = criteria.map((name) => `r.${name}`).join(" + ");
    const columns = [
      ["review_count", "count(r.id)"],
      ...yes.map((name) => [`${name}_yes`, `coalesce(sum(r.${name}), 0)`]),
      ...criteria.map((name) => [`sum_${name}`, `coalesce(sum(r.${name}), 0)`]),
      ["sum_total_squares", `coalesce(sum((${total}) * (${total})), 0)`],
      // ratingRank (app/lib/ratings.ts): a division of doubles, exact on both engines.
      [
        "rating_rank",
        `case when count(r.id) > 0 then cast(coalesce(sum(${total}), 0) + ${3 * 5 * criteria.length} as double precision)
           / (${criteria.length} * (count(r.id) + 5)) else 0 end`,
      ],
    ] as const;
    const standing = "r.id not in (select review_id from removed_reviews)";
    const rows = await readDatabase(
      database,
      `select s.id, ${columns.map(([column, fresh], index) => `s.${column}, ${fresh} as fresh_${index}`).join(", ")}
       from ${table} s left join ${reviews} r
         on r.${key} = s.id and ${standing}
       ${ids ? `where s.id in (${ids.map(Number).join(",")})` : ""} group by s.id`,
    );
    checked[table] = rows.length;
    for (const row of rows) {
      const wrong = columns.filter(([column], index) => Number(row[column]) !== Number(row[`fresh_${index}`]));
      if (wrong.length > 0) mismatches.push({ table, id: Number(row.id), columns: wrong.map(([column]) => column) });
    }

    // Each review's stored rating_total (what lists by score read) against the sum of its criteria.
    const wrongTotals = await readDatabase(
      database,
      `select r.${key} as id, count(*) as n from ${reviews} r where r.rating_total <> (${total})
       ${ids ? `and r.${key} in (${ids.map(Number).join(",")})` : ""} group by r.${key}`,
    );
    for (const row of wrongTotals) {
      mismatches.push({ table, id: Number(row.id), columns: [`${reviews}.rating_total (${Number(row.n)})`] });
    }

    // Distributions: every (subject, criterion, value) and (subject, tag) counted afresh, against the stored rows.
    const inIds = (column: string) => (ids ? `and ${column} in (${ids.map(Number).join(",")})` : "");
    const tagRows =
      database.engine === "sqlite"
        ? `cross join json_each(r.tags) t`
        : `cross join lateral json_array_elements_text(r.tags::json) as t(value)`;
    const fresh = [
      // The overall score of a review is the floored mean of its criteria; integer division floors positive numbers.
      `select r.${key} as id, 'rating overall=' || ((${total}) / ${criteria.length}) as k, count(*) as n
         from ${reviews} r where ${standing} ${inIds(`r.${key}`)} group by 1, 2`,
      ...criteria.map(
        (name) => `select r.${key} as id, 'rating ${name}=' || r.${name} as k, count(*) as n
         from ${reviews} r where ${standing} ${inIds(`r.${key}`)} group by 1, 2`,
      ),
      `select r.${key} as id, 'tag ' || t.value as k, count(*) as n
         from ${reviews} r ${tagRows} where ${standing} ${inIds(`r.${key}`)} group by 1, 2`,
    ];
    const stored = [
      `select subject_id as id, 'rating ' || criterion || '=' || value as k, count as n
         from rating_counts where subject = '${kind}' and count <> 0 ${inIds("subject_id")}`,
      `select subject_id as id, 'tag ' || tag as k, count as n
         from tag_counts where subject = '${kind}' and count <> 0 ${inIds("subject_id")}`,
    ];
    const counts = async (queries: string[]) => {
      const map = new Map<string, number>();
      for (const query of queries) {
        for (const row of await readDatabase(database, query)) map.set(`${row.id}\u0000${row.k}`, Number(row.n));
      }
      return map;
    };
    // Monthly buckets: per month of publication, the count and each criterion's sum, one entry per column.
    const bucketColumns = ["review_count", ...criteria.map((name) => `sum_${name}`)];
    const buckets = async (query: string, map: Map<string, number>) => {
      for (const row of await readDatabase(database, query)) {
        for (const column of bucketColumns) {
          if (Number(row[column]) !== 0) map.set(`${row.id}\u0000month ${row.month} ${column}`, Number(row[column]));
        }
      }
      return map;
    };
    const month = "substr(r.created_on, 1, 7)";
    const [expected, actual] = await Promise.all([
      counts(fresh).then((map) =>
        buckets(
          `select r.${key} as id, ${month} as month, count(*) as review_count,
             ${criteria.map((name) => `sum(r.${name}) as sum_${name}`).join(", ")}
           from ${reviews} r where ${standing} ${inIds(`r.${key}`)} group by r.${key}, ${month}`,
          map,
        ),
      ),
      counts(stored).then((map) =>
        buckets(
          `select subject_id as id, month, ${bucketColumns.join(", ")} from ${months}
           where subject_id is not null ${inIds("subject_id")}`,
          map,
        ),
      ),
    ]);
    const wrongById = new Map<number, string[]>();
    for (const entry of new Set([...expected.keys(), ...actual.keys()])) {
      if (expected.get(entry) === actual.get(entry)) continue;
      const [id, what] = entry.split("\u0000");
      wrongById.set(Number(id), [...(wrongById.get(Number(id)) ?? []), what!]);
    }
    for (const [id, what] of wrongById) mismatches.push({ table, id, columns: what });
  }

  // Helpful votes: a receipt names no review, so the counts are checked against the receipts as a whole: every
  // receipt is counted on exactly one review, or among the orphaned votes of withdrawn reviews; no count is negative.
  const [votes] = await readDatabase(
    database,
    `select (select count(*) from vote_receipts) as receipts,
       (select coalesce(sum(helpful_votes), 0) from company_reviews) + (select coalesce(sum(helpful_votes), 0) from manager_reviews)
         + coalesce((select orphaned from vote_totals where id = 1), 0) as counted,
       (select count(*) from company_reviews where helpful_votes < 0) + (select count(*) from manager_reviews where helpful_votes < 0) as negative`,
  );
  if (Number(votes!.receipts) !== Number(votes!.counted) || Number(votes!.negative) !== 0) {
    mismatches.push({
      table: "vote_receipts",
      id: 0,
      columns: [`${votes!.receipts} receipts, ${votes!.counted} votes counted, ${votes!.negative} negative counts`],
    });
  }
  return { mismatches, checked };
}
