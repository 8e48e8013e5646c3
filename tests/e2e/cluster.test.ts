// WEB_CONCURRENCY: worker processes behind one port, a dead worker replaced, a rolling restart (SIGHUP) that never
// leaves a request unanswered, a clean stop on SIGTERM, and a clear refusal on SQLite.
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, it } from "node:test";
import {
  cleanUp,
  createDatabase,
  freePort,
  type ServerProcess,
  sleep,
  spawnServer,
  type ThrowawayDatabase,
  waitForHealth,
} from "../support/server.ts";

/** The worker processes of the cluster's primary, from /proc. */
function workers(server: ServerProcess): number[] {
  const pid = server.child.pid!;
  const text = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
  return text ? text.split(/\s+/).map(Number) : [];
}

/** Waits (checking every 20 ms, 30 s at most) until the primary has `count` workers, none of `except`, and answers. */
async function settle(server: ServerProcess, baseURL: string, count: number, except: number[] = []) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const current = workers(server);
    if (current.length === count && current.every((pid) => !except.includes(pid))) break;
    assert.equal(server.child.exitCode, null, server.log());
    assert.ok(Date.now() < deadline, `workers ${current.join(",")}, wanted ${count} new ones:\n${server.log()}`);
    await sleep(20);
  }
  await waitForHealth(baseURL, server, 30_000);
}

describe("WEB_CONCURRENCY=2 on PostgreSQL", () => {
  let database: ThrowawayDatabase;
  let server: ServerProcess;
  let baseURL: string;

  before(async () => {
    database = await createDatabase("postgres", "cluster");
    const port = await freePort();
    baseURL = `http://127.0.0.1:${port}`;
    server = spawnServer(database, port, { WEB_CONCURRENCY: "2", DEMO_DATA: "never" });
    await settle(server, baseURL, 2);
  });

  after(async () => {
    await cleanUp(server, database);
  });

  it("replaces a worker that dies", async () => {
    const [victim] = workers(server);
    process.kill(victim!, "SIGKILL");
    await settle(server, baseURL, 2, [victim!]);
  });

  it("restarts the workers one by one on SIGHUP without a failed request", async () => {
    const before = workers(server);
    let stop = false;
    const statuses: number[] = [];
    const failures: unknown[] = [];
    const load = (async () => {
      while (!stop) {
        try {
          const response = await fetch(`${baseURL}/healthz`, { headers: { Connection: "close" } });
          statuses.push(response.status);
          await response.body?.cancel();
        } catch (error) {
          failures.push(error);
        }
      }
    })();
    server.child.kill("SIGHUP");
    await settle(server, baseURL, 2, before);
    stop = true;
    await load;
    assert.deepEqual(failures, []);
    assert.ok(statuses.length > 0 && statuses.every((status) => status === 200), `statuses: ${statuses.join(",")}`);
  });

  it("stops every worker and exits cleanly on SIGTERM", async () => {
    const running = workers(server);
    server.child.kill("SIGTERM");
    assert.equal(await server.exited, 0, server.log());
    for (const pid of running) assert.throws(() => process.kill(pid, 0), "a worker outlived its primary");
  });
});

describe("WEB_CONCURRENCY=2 on SQLite", () => {
  it("refuses to start, saying why", async () => {
    const database = await createDatabase("sqlite", "cluster");
    const server = spawnServer(database, await freePort(), { WEB_CONCURRENCY: "2", DEMO_DATA: "never" });
    try {
      assert.equal(await server.exited, 1);
      assert.match(server.log(), /WEB_CONCURRENCY=2 needs PostgreSQL/);
    } finally {
      await cleanUp(server, database);
    }
  });
});
