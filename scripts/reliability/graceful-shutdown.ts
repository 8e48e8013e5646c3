// Graceful shutdown (docs/security.md): SIGTERM while requests are in flight. They must finish with 2xx, new
// connections must be refused, the process must exit 0 with "shut down cleanly", and the database must be closed
// cleanly (SQLite: no WAL left, integrity_check ok; PostgreSQL: no connection of the process left).
// Run `npm run build` first. Usage: node scripts/reliability/graceful-shutdown.ts [--engine sqlite|postgres]
import fs from "node:fs";
import http from "node:http";
import { parseArgs } from "node:util";
import SQLite from "better-sqlite3";
import {
  accessToken,
  bearer,
  adminQuery,
  companyReview,
  createDatabase,
  type Engine,
  freePort,
  newClientIp,
  newCompany,
  newMarker,
  newSecret,
  signUp,
  sleep,
  spawnServer,
  type TestDatabase,
  waitForHealth,
} from "./support.ts";

const { values: options } = parseArgs({ options: { engine: { type: "string", multiple: true } } });
const engines = (options.engine ?? ["sqlite", "postgres"]) as Engine[];

/**
 * A POST whose body arrives in two halves: the first now, the second after `holdMs`. The request is in flight the
 * whole time, as a slow client's upload would be.
 */
function slowPost(port: number, path: string, token: string, body: unknown, holdMs: number) {
  const payload = Buffer.from(JSON.stringify(body));
  const half = Math.floor(payload.length / 2);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        agent: false,
        headers: {
          ...bearer(token),
          "Content-Type": "application/json",
          "Content-Length": payload.length,
          "X-Forwarded-For": newClientIp(),
        },
      },
      (response) => {
        let text = "";
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on("error", reject);
    request.write(payload.subarray(0, half));
    setTimeout(() => request.end(payload.subarray(half)), holdMs);
  });
}

/** Whether a new TCP connection to the port is refused. */
async function refused(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`);
    await response.body?.cancel();
    return false;
  } catch {
    return true;
  }
}

async function connectionsOf(database: TestDatabase): Promise<number> {
  const result = await adminQuery<{ count: string }>(
    "select count(*) as count from pg_stat_activity where application_name = $1",
    [database.schema],
  );
  return Number(result.rows[0]?.count ?? 0);
}

async function runEngine(engine: Engine): Promise<string[]> {
  const failures: string[] = [];
  const check = (ok: boolean, message: string) => {
    if (!ok) failures.push(message);
  };
  const database = await createDatabase(engine, "shutdown");
  const port = await freePort();
  const baseURL = `http://127.0.0.1:${port}`;
  const server = spawnServer(database, port, { AUTH_SECRET: newSecret(), LOG_LEVEL: "info" });
  try {
    await waitForHealth(baseURL, server);
    const email = `shutdown-${process.pid}@example.com`;
    await signUp(baseURL, email);
    const token = await accessToken(baseURL, email);
    const created = await fetch(`${baseURL}/api/v1/companies`, {
      method: "POST",
      headers: {
        ...bearer(token),
        "Content-Type": "application/json",
        "X-Forwarded-For": newClientIp(),
      },
      body: JSON.stringify({ company: newCompany(newMarker()), review: companyReview(newMarker(), 1) }),
    });
    const { id } = (await created.json()) as { id: number };
    if (engine === "postgres") check((await connectionsOf(database)) > 0, "postgres: the pool holds no connection");

    // Five slow uploads, held open 1.5 s, and ten page reads; SIGTERM arrives while all are in flight.
    const markers = Array.from({ length: 5 }, () => newMarker());
    const uploads = markers.map((marker, index) =>
      slowPost(port, `/api/v1/companies/${id}/reviews`, token, companyReview(marker, index), 1500),
    );
    const reads = Array.from({ length: 10 }, (_, index) =>
      fetch(`${baseURL}/api/v1/companies/${(index % 20) + 1}/reviews`, {
        headers: { "X-Forwarded-For": newClientIp() },
      }).then(async (response) => ({ status: response.status, body: await response.text() })),
    );
    // Settled from the start: a request that fails while the signal is sent is a finding reported below, not an
    // unhandled rejection that ends the program before it says which request failed and how.
    const inFlight = Promise.allSettled([...uploads, ...reads]);
    await sleep(300);
    const signalled = Date.now();
    server.child.kill("SIGTERM");
    await sleep(200);
    check(await refused(port), `${engine}: a new connection was accepted after SIGTERM`);
    const answers = await inFlight;
    const completed = answers.filter((answer) => answer.status === "fulfilled" && answer.value.status < 300).length;
    for (const answer of answers) {
      if (answer.status === "rejected") {
        const reason = answer.reason as Error & { cause?: unknown };
        failures.push(`${engine}: an in-flight request failed: ${reason}${reason.cause ? ` (${reason.cause})` : ""}`);
      } else if (answer.value.status >= 300)
        failures.push(`${engine}: in-flight request answered ${answer.value.status}`);
    }
    const code = await server.exited;
    const took = Date.now() - signalled;
    check(code === 0, `${engine}: exit code ${code}`);
    check(server.log().includes("shut down cleanly"), `${engine}: no "shut down cleanly" in the log`);

    let databaseState: string;
    if (engine === "sqlite") {
      const wal = `${database.url}-wal`;
      const walBytes = fs.existsSync(wal) ? fs.statSync(wal).size : 0;
      check(walBytes === 0, `sqlite: ${walBytes} bytes left in the WAL`);
      const sqlite = new SQLite(database.url, { readonly: true, fileMustExist: true });
      const integrity = sqlite.pragma("integrity_check", { simple: true });
      const stored = sqlite
        .prepare("select count(*) as n from company_reviews where company_id = ? and review_text like 'crashmarker%'")
        .get(id) as { n: number };
      sqlite.close();
      check(integrity === "ok", `sqlite: integrity_check says ${String(integrity)}`);
      check(stored.n === markers.length + 1, `sqlite: ${stored.n} of ${markers.length + 1} reviews stored`);
      databaseState = `WAL ${walBytes} bytes, integrity_check ${String(integrity)}, ${stored.n} reviews stored`;
    } else {
      let left = await connectionsOf(database);
      for (let tries = 0; left > 0 && tries < 20; tries += 1) {
        await sleep(100);
        left = await connectionsOf(database);
      }
      check(left === 0, `postgres: ${left} connections of the process left in pg_stat_activity`);
      const stored = await adminQuery<{ n: string }>(
        `select count(*) as n from ${database.schema}.company_reviews where company_id = $1`,
        [id],
      );
      const count = Number(stored.rows[0]?.n);
      check(count === markers.length + 1, `postgres: ${count} of ${markers.length + 1} reviews stored`);
      databaseState = `${left} connections left in pg_stat_activity, ${count} reviews stored`;
    }
    console.log(
      `graceful-shutdown ${engine}: ${completed} of ${answers.length} in-flight requests completed with 2xx, ` +
        `new connections refused: ${failures.every((failure) => !failure.includes("accepted")) ? "yes" : "no"}, ` +
        `exit code ${code} after ${took} ms, "shut down cleanly" logged: ` +
        `${server.log().includes("shut down cleanly") ? "yes" : "no"}, ${databaseState}` +
        (failures.length > 0 ? " — FAILED" : ""),
    );
    return failures;
  } finally {
    if (server.child.exitCode === null) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
    await database.drop();
  }
}

let failures: string[] = [];
for (const engine of engines) failures = [...failures, ...(await runEngine(engine))];
for (const failure of failures) console.error(`  ${failure}`);
process.exit(failures.length > 0 ? 1 : 0);
