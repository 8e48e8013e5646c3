import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import SQLite from "better-sqlite3";
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresDialect,
  sql,
  SqliteAdapter,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from "kysely";
import pg from "pg";
import { logger } from "#app/lib/logger.server.ts";
import type { Database } from "./schema.ts";

export type Engine = "sqlite" | "postgres";

export type DatabaseHandle = {
  db: Kysely<Database>;
  /** Where reads that may lag a little go: a streaming replica when DATABASE_READ_URL is set, else `db` itself. */
  read: Kysely<Database>;
  /** True when `read` is a replica. */
  replica: boolean;
  engine: Engine;
  /** PostgreSQL's connection pool (for the rate-limit store), undefined on SQLite. */
  pool?: pg.Pool;
  /**
   * SQLite's connection itself, undefined on PostgreSQL: for the few synchronous reads that must not wait behind
   * queued statements, such as noticing that another process changed the file (change-channel.server.ts).
   */
  sqlite?: SQLite.Database;
  /** The replica's connection pool, when `read` is a replica (for the metrics). */
  readPool?: pg.Pool;
  close: () => Promise<void>;
};

export function engineOf(url: string): Engine {
  return /^postgres(ql)?:\/\//i.test(url) ? "postgres" : "sqlite";
}

// COUNT(*) and SUM come back from PostgreSQL as int8 strings; our counts fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

/** Opens the embedded SQLite file (WAL, foreign keys on) or a PostgreSQL pool, by the shape of the URL. */
function postgresPool(url: string, poolSize: number): pg.Pool {
  // A request waits at most 5 s for a connection; then it is answered 503 (unavailable.server.ts), not left hanging.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000 });
  // A client that loses its server (pg_terminate_backend, a restart) must not crash the process: the pool reports
  // idle clients' errors, and a checked-out client between two queries emits its own. Its next query then fails
  // (answered 503, see unavailable.server.ts), the pool drops it and the next request gets a fresh connection.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
}

export function openDatabase(
  url: string,
  options: {
    poolSize?: number;
    readUrl?: string | undefined;
    /** SQLite: checkpoint the WAL in a thread of its own instead of in the commit that fills it (the server). */
    backgroundCheckpoints?: boolean;
    /** The checkpoint thread's upkeep of the name-search indexes (tests shorten its intervals). */
    searchUpkeep?: typeof searchUpkeep;
  } = {},
): DatabaseHandle {
  if (engineOf(url) === "postgres") {
    const pool = postgresPool(url, options.poolSize ?? 10);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    if (!options.readUrl) return { db, read: db, replica: false, engine: "postgres", pool, close: () => db.destroy() };
    const readPool = postgresPool(options.readUrl, options.poolSize ?? 10);
    const read = new Kysely<Database>({ dialect: new PostgresDialect({ pool: readPool }) });
    return {
      db,
      read,
      replica: true,
      engine: "postgres",
      pool,
      readPool,
      close: async () => {
        await Promise.all([db.destroy(), read.destroy()]);
      },
    };
  }
  if (options.readUrl) throw new Error("DATABASE_READ_URL needs DATABASE_URL to be PostgreSQL.");

  const file = url.replace(/^file:/, "");
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  // Deleted rows and freed pages are overwritten with zeros, so a deleted account or a published queue row leaves no
  // readable copy in the file (docs/decisions/0013-publication-in-sealed-batches.md).
  sqlite.pragma("secure_delete = ON");
  sqlite.pragma("busy_timeout = 5000");
  // 32 MB of page cache instead of 2 MB: at a million companies the pages a write or a page view touches are
  // spread over gigabytes, and every miss is a read from the operating system. It was 64 MB; halved to keep the
  // server within its memory budget, with renders and writes no slower in the benchmark at 1M (docs/performance.md,
  // "Memory").
  sqlite.pragma("cache_size = -32768");
  const checkpointer =
    options.backgroundCheckpoints && file !== ":memory:"
      ? startCheckpointer(sqlite, file, options.searchUpkeep ?? searchUpkeep)
      : undefined;
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }) });
  return {
    db,
    read: db,
    replica: false,
    engine: "sqlite",
    sqlite,
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/**
 * Transactions take SQLite's write lock as they begin ("begin immediate"). One begun plainly takes it at its first
 * write, and if another connection holds it then (the checkpoint thread restarting the WAL, a publication from the
 * command line), SQLite answers "busy" at once instead of waiting: a transaction that has read cannot wait for a
 * writer without risking a deadlock. Begun immediately, it waits its busy timeout like a single statement.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("begin immediate"));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

/** How often the checkpoint thread copies committed pages from the WAL into the database file. */
const checkpointIntervalMs = 250;

/**
 * The WAL's length (in pages, 4 KB each) past which the checkpoint thread also restarts it. Passive checkpoints alone
 * never let it start again from its beginning while writes keep coming: the next write restarts it only once every
 * page has been copied, and under steady writes some always arrive during the copy. It grew by 33 MB a second with
 * 700 reviews a second (the benchmark), and every write became slower as it grew.
 */
const restartWalPages = 8192;

/**
 * The name-search indexes (FTS5, migration 0025) the thread keeps in one segment each (decision 0043); how often it
 * looks whether one holds more (soon after start, then hourly: at a million companies a merge rewrites about 175 MB
 * of index); and how many pages one step of a merge writes at most: each step is a transaction of its own, which
 * holds other writers up for its few milliseconds.
 */
export const searchUpkeep = {
  tables: ["companies_search", "managers_search"],
  intervalMs: 60 * 60 * 1000,
  firstAfterMs: 10 * 1000,
  stepPages: 32,
};

// The checkpoint thread: its own connection to the file, a passive checkpoint (one that never waits for, nor holds
// up, readers and writers) every interval, and once the WAL is long a restarting one, which holds writers up while
// it copies what the passive one left (a moment) and lets the next write start the WAL again from its beginning.
// It waits at most 100 ms for the write lock or for readers, else tries again next time.
// Every upkeep interval it also merges each name-search index that holds more than one segment, one bounded step
// (FTS5's 'merge' with a negative page count: every segment into one, a few pages at a time) per turn of its event
// loop until a step finds nothing left to merge; a step that meets a busy database is tried again next interval.
// Closed when asked. CommonJS, evaluated as it is: no file to find in a build.
const checkpointerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file, { fileMustExist: true });
db.pragma("cache_size = -2048");
db.pragma("busy_timeout = 100");
db.pragma("synchronous = NORMAL");
db.pragma("secure_delete = ON");
const timer = setInterval(() => {
  const [passive] = db.pragma("wal_checkpoint(PASSIVE)");
  if (passive.log >= workerData.restartPages) db.pragma("wal_checkpoint(RESTART)");
}, workerData.intervalMs);
const { tables, intervalMs, firstAfterMs, stepPages } = workerData.searchUpkeep;
const changes = db.prepare("select total_changes()").pluck();
const quoted = (name) => '"' + name.replaceAll('"', '""') + '"';
function segments(table) {
  const exists = db.prepare("select count(*) from sqlite_schema where type = 'table' and name = ?").pluck();
  if (exists.get(table) === 0) return 0;
  return db.prepare("select count(distinct segid) from " + quoted(table + "_idx")).pluck().get();
}
/** One step of merging: false once it had nothing left to do (FTS5 then writes fewer than two rows). */
function mergeStep(table) {
  const before = changes.get();
  db.prepare("insert into " + quoted(table) + " (" + quoted(table) + ", rank) values ('merge', ?)").run(-stepPages);
  return changes.get() - before >= 2;
}
let upkeepTimer;
function failed(error) {
  parentPort.postMessage({ upkeepFailed: String(error && error.message) });
  upkeepTimer = setTimeout(upkeep, intervalMs);
}
function upkeep() {
  try {
    const table = tables.find((name) => segments(name) > 1);
    if (table === undefined) {
      upkeepTimer = setTimeout(upkeep, intervalMs);
      return;
    }
    const step = () => {
      try {
        upkeepTimer = mergeStep(table) ? setImmediate(step) : setImmediate(upkeep);
      } catch (error) {
        failed(error);
      }
    };
    step();
  } catch (error) {
    failed(error);
  }
}
upkeepTimer = setTimeout(upkeep, firstAfterMs);
parentPort.on("message", (message) => {
  if (message !== "stop") return;
  clearInterval(timer);
  clearTimeout(upkeepTimer);
  clearImmediate(upkeepTimer);
  db.close();
  parentPort.close();
});
`;

/**
 * SQLite checkpoints the WAL in whichever commit takes it past 1,000 pages: that commit copies 4 MB into the
 * database file and waits for two fsyncs, some 15 ms, on the thread that answers every request. A sealed review is
 * 32 KB, so it came every hundred or so reviews. Here the connection never checkpoints itself and a thread of its own
 * does it in the background; if that thread cannot run, the connection checkpoints as before. The same thread keeps
 * the name-search indexes merged (`searchUpkeep`); a failed merge step is logged and tried again later.
 */
function startCheckpointer(
  sqlite: SQLite.Database,
  file: string,
  upkeep: typeof searchUpkeep,
): { stop: () => Promise<void> } {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(checkpointerSource, {
    eval: true,
    workerData: {
      driver,
      file,
      intervalMs: checkpointIntervalMs,
      restartPages: restartWalPages,
      searchUpkeep: upkeep,
    },
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
  });
  sqlite.pragma("wal_autocheckpoint = 0");
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  worker.once("error", (error) => {
    logger.warn({ err: error }, "the WAL checkpoint thread stopped; the connection checkpoints the WAL itself again");
    if (sqlite.open) sqlite.pragma("wal_autocheckpoint = 1000");
  });
  worker.on("message", (message: { upkeepFailed?: string }) => {
    if (message.upkeepFailed) {
      logger.warn({ reason: message.upkeepFailed }, "merging the name-search index failed; tried again later");
    }
  });
  // After the listener, which would hold the event loop otherwise: the thread never keeps the process alive.
  worker.unref();
  return {
    stop: async () => {
      // Held by the event loop again until it has closed its connection.
      worker.ref();
      worker.postMessage("stop");
      await exited;
    },
  };
}

/**
 * On SQLite, copies every page in the WAL into the database file and empties the WAL, so no superseded page (a
 * published queue row, a deleted account) survives there. Nothing on PostgreSQL.
 *
 * A checkpoint that finds another one running (the checkpoint thread's, a moment long) reports "busy" at once, and
 * one that waited its 5 s for a reader does too: it is tried again until it is done. After a minute it gives up with
 * a warning; the next publication or deletion truncates the WAL.
 */
export async function truncateWal(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { rows } = await sql<{ busy: number }>`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    if (rows[0]?.busy === 0) return;
    if (Date.now() > deadline) {
      logger.warn("the SQLite WAL could not be truncated for a minute: a reader held it; the next checkpoint will");
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Kysely prepares every query anew; compiling the SQL costs more than running most of ours. Statements are kept
 * by their SQL text (our queries have a bounded set of shapes; the oldest go first past `limit`).
 */
function withStatementCache(sqlite: SQLite.Database, limit = 500) {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        statement = sqlite.prepare(sql);
        if (statements.size >= limit) statements.delete(statements.keys().next().value!);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
