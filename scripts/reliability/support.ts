// Shared by the reliability scripts: the built server as a child process on a throwaway database, and HTTP helpers.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { once } from "node:events";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { companyCriteria, companyYesNo } from "#app/lib/ratings.ts";

export type Engine = "sqlite" | "postgres";

export const root = fileURLToPath(new URL("../..", import.meta.url));
export const postgresAdminUrl = process.env.RELIABILITY_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const password = "a long and private passphrase";

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

export type TestDatabase = { engine: Engine; url: string; dir: string; schema?: string; drop: () => Promise<void> };

/** A temporary SQLite file, or a fresh schema of the PostgreSQL database (selected through search_path). */
export async function createDatabase(engine: Engine, label: string): Promise<TestDatabase> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `candor-${label}-`));
  const removeDir = () => fs.rmSync(dir, { recursive: true, force: true });
  if (engine === "sqlite") {
    return { engine, url: path.join(dir, "candor.sqlite"), dir, drop: async () => removeDir() };
  }
  const schema = `candor_${label.replace(/\W/g, "_")}_${process.pid}_${Date.now()}`;
  await adminQuery(`create schema ${schema}`);
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

export function spawnServer(database: TestDatabase, port: number, extraEnv: Record<string, string> = {}) {
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    NODE_ENV: "production",
    HOST: "127.0.0.1",
    PORT: String(port),
    DATABASE_URL: database.url,
    DEMO_DATA: "always",
    LOG_LEVEL: "warn",
    TRUSTED_PROXIES: "127.0.0.1",
    OUTBOX_DIR: path.join(database.dir, "outbox"),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...extraEnv,
  };
  const child = spawn(process.execPath, ["server/main.ts"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  child.stdout?.on("data", (chunk) => (text += chunk));
  child.stderr?.on("data", (chunk) => (text += chunk));
  const exited = once(child, "exit").then(([code]) => code as number | null);
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  void exited.then(() => process.off("exit", killOnExit));
  const server: ServerProcess = { child, log: () => text, exited };
  return server;
}

export const newSecret = () => randomBytes(32).toString("hex");

export async function waitForHealth(baseURL: string, server: ServerProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null)
      throw new Error(`server exited with ${server.child.exitCode}:\n${server.log()}`);
    try {
      const response = await fetch(`${baseURL}/healthz`);
      await response.body?.cancel();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await sleep(50);
  }
  throw new Error(`the server did not become healthy within ${timeoutMs} ms:\n${server.log()}`);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let clients = 0;
/** A client address of its own for each request: behind TRUSTED_PROXIES no rate limit bucket fills up. */
export function newClientIp(): string {
  clients += 1;
  return `10.${(clients >> 16) & 255}.${(clients >> 8) & 255}.${clients & 255}`;
}

/** Signs up through the form (same origin), as a browser would; resolves with the session as a Cookie header. */
export async function signUp(baseURL: string, email: string): Promise<string> {
  const response = await fetch(`${baseURL}/signup`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: baseURL, "Sec-Fetch-Site": "same-origin", "X-Forwarded-For": newClientIp() },
    body: new URLSearchParams({ email, password }),
  });
  await response.body?.cancel();
  if (response.status !== 302) throw new Error(`sign-up of ${email} answered ${response.status}`);
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0]!)
    .join("; ");
}

/** An access token from POST /api/v1/auth/token (grant_type=password). */
export async function accessToken(baseURL: string, email: string): Promise<string> {
  const response = await fetch(`${baseURL}/api/v1/auth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": newClientIp() },
    body: JSON.stringify({ grant_type: "password", email, password }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (response.status !== 200 || !body.access_token) throw new Error(`token for ${email}: ${response.status}`);
  return body.access_token;
}

/** A marker made of letters only (the guidelines refuse digit runs that look like phone numbers). */
export function newMarker(): string {
  const letters = randomUUID()
    .replace(/-/g, "")
    .replace(/[0-9a-f]/g, (digit) => "ghijklmnopqrstuv"[Number.parseInt(digit, 16)]!);
  return `crashmarker${letters}`;
}

export function companyReview(marker: string, seed: number) {
  const rating = (offset: number) => ((seed + offset) % 5) + 1;
  return {
    ...Object.fromEntries(companyCriteria.map((key, index) => [key, rating(index)])),
    ...Object.fromEntries(companyYesNo.map((key, index) => [key, (seed + index) % 2 === 0])),
    tags: ["Hybrid"],
    review_text: `${marker} fair pay and a kind team, honest feedback.`,
  };
}

export function newCompany(marker: string) {
  return {
    name: `Crash Test ${marker}`,
    country: "US",
    state: "Oregon",
    city: "Portland",
    website: `${marker}.example.com`,
    glassdoor_url: `reviews.example.com/${marker}`,
    industry: "Software",
  };
}
