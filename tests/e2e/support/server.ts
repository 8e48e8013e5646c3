import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

export type Engine = "sqlite" | "postgres";

export type RunningServer = {
  engine: Engine;
  baseURL: string;
  databaseUrl: string;
  /** Where the mailer writes its .eml files (no SMTP_URL is set), for tests to read. */
  outboxDir: string;
  /** Sends SIGTERM, waits for the process to end, removes its database; resolves with the exit code. */
  stop: () => Promise<number | null>;
  /** What the server wrote to stdout and stderr (LOG_LEVEL=warn: warnings and errors only). */
  output: () => string;
};

const root = fileURLToPath(new URL("../../..", import.meta.url));
/** The PostgreSQL database in which each run creates its throwaway schema; CI may point elsewhere. */
const postgresAdminUrl = process.env.E2E_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function freePort(): Promise<number> {
  const probe = net.createServer();
  probe.listen(0, "127.0.0.1");
  await once(probe, "listening");
  const { port } = probe.address() as net.AddressInfo;
  probe.close();
  await once(probe, "close");
  return port;
}

async function onAdminConnection(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresAdminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, empty database per run: a temporary SQLite file, or a new schema of the PostgreSQL database selected
 * through search_path, dropped afterwards.
 */
async function createDatabase(engine: Engine, dir: string): Promise<{ url: string; drop: () => Promise<void> }> {
  if (engine === "sqlite") return { url: path.join(dir, "candor.sqlite"), drop: async () => {} };
  const schema = `candor_e2e_${process.pid}_${Date.now()}`;
  await onAdminConnection(`create schema ${schema}`);
  const url = new URL(postgresAdminUrl);
  url.search = `?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return { url: url.href, drop: () => onAdminConnection(`drop schema if exists ${schema} cascade`) };
}

async function waitForHealth(baseURL: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(`${baseURL}/healthz`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server did not become healthy within 30 s:\n${output()}`);
}

export type ServerOptions = {
  /**
   * Settings added to (or replacing) the defaults, e.g. TRUSTED_PROXIES, PUBLIC_URL, or DEMO_DATA=never for a
   * faster start. PUBLIC_URL defaults to the server's own address, so links in mails lead back to it.
   */
  env?: Record<string, string>;
};

/** Starts the built production server (`npm run build` first) on a free port, with demo data unless told otherwise. */
export async function startServer(engine: Engine, options: ServerOptions = {}): Promise<RunningServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-e2e-"));
  const database = await createDatabase(engine, dir).catch((error: unknown) => {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  const cleanUp = async () => {
    await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const port = await freePort();
  const baseURL = `http://127.0.0.1:${port}`;
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: String(port),
    DATABASE_URL: database.url,
    DEMO_DATA: "always",
    LOG_LEVEL: "warn",
    AUTH_SECRET: randomBytes(32).toString("hex"),
    OUTBOX_DIR: path.join(dir, "outbox"),
    PUBLIC_URL: baseURL,
    // The suites look at a review right after writing it: each submission is published before it is answered.
    PUBLISH_INTERVAL: "0",
    MANAGER_MIN_REVIEWS: "1",
    PUBLISH_MIN_AUTHORS: "1",
    QUEUE_KEY_DIR: path.join(dir, "queue-keys"),
    ...options.env,
  };
  const child = spawn(process.execPath, ["server/main.ts"], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout?.on("data", (chunk) => (log += chunk));
  child.stderr?.on("data", (chunk) => (log += chunk));
  const output = () => log;
  // Never leave a server behind if this test process dies first.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);

  try {
    await waitForHealth(baseURL, child, output);
  } catch (error) {
    child.kill("SIGKILL");
    await cleanUp();
    throw error;
  }

  return {
    engine,
    baseURL,
    databaseUrl: database.url,
    outboxDir: path.resolve(root, env.OUTBOX_DIR!),
    output,
    async stop() {
      let code = child.exitCode;
      if (code === null) {
        const exited = once(child, "exit");
        child.kill("SIGTERM");
        [code] = (await exited) as [number | null];
      }
      process.off("exit", killOnExit);
      await cleanUp();
      return code;
    },
  };
}
