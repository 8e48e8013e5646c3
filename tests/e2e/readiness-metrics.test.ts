// The readiness check and the metrics: /healthz stays liveness while /readyz fails when the queue's key is gone and,
// two publication intervals later, says publication is degraded when it keeps failing; the metrics are served on METRICS_ADDRESS only,
// count reads by route kind and status, and never a write; a replica that does not answer sends anonymous readers to
// the primary (counted), with the readiness saying "degraded", not failed. Proved live: with /readyz answering as
// /healthz does (primary only), the first test failed at the missing key; with readerFor ignoring the replica's state,
// the second failed with 503 for an anonymous read.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { ApiClient, companyReview } from "./support/api.ts";
import { freePort, postgresAdminUrl, type RunningServer, sleep, startServer } from "../support/server.ts";

async function readyz(server: RunningServer): Promise<{ status: number; checks: Record<string, string> }> {
  const response = await fetch(`${server.baseURL}/readyz`);
  const body = (await response.json()) as { checks: Record<string, string> };
  return { status: response.status, checks: body.checks };
}

/** Reads the whole answer: one left unread is closed early, and a request that never finished is not counted. */
async function statusOf(url: string): Promise<number> {
  const response = await fetch(url);
  await response.arrayBuffer();
  return response.status;
}

/** The value of one sample line of the metrics text (0 when absent). */
function sample(text: string, line: string): number {
  const found = text.split("\n").find((entry) => entry.startsWith(`${line} `));
  return found ? Number(found.slice(line.length + 1)) : 0;
}

describe("readiness and metrics", () => {
  const servers: RunningServer[] = [];
  after(async () => {
    for (const server of servers) await server.stop();
  });

  it("fails readiness without the queue's key, is degraded after two failed publication intervals; metrics count reads only", async () => {
    const metricsPort = await freePort();
    const server = await startServer("sqlite", {
      env: {
        DEMO_DATA: "always",
        PUBLISH_INTERVAL: "1",
        RATE_LIMITS: "off",
        METRICS_ADDRESS: `127.0.0.1:${metricsPort}`,
      },
    });
    servers.push(server);
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const ready = await readyz(server);
    assert.equal(ready.status, 200, JSON.stringify(ready));
    assert.deepEqual(ready.checks, { primary: "ok", "change channel": "ok", "queue key": "ok", publication: "ok" });

    // The metrics are not on the site's address.
    assert.equal(await statusOf(`${server.baseURL}/metrics`), 404);
    const before = await (await fetch(metricsUrl)).text();
    for (let read = 0; read < 3; read += 1) assert.equal(await statusOf(`${server.baseURL}/guidelines`), 200);
    const api = await ApiClient.connect(server.baseURL);
    const account = await api.newAccount(server.databaseUrl);
    const posted = await api.post("/api/v1/companies/1/reviews", companyReview(), { token: account.accessToken });
    assert.equal(posted.status, 202, posted.text);
    const text = await (await fetch(metricsUrl)).text();
    const pages = 'candor_http_requests_total{kind="page",status="200"}';
    assert.ok(sample(text, pages) - sample(before, pages) >= 3, text);
    assert.match(text, /candor_http_request_duration_seconds_bucket\{le="0.005",kind="page"\}/);
    assert.match(text, /candor_page_cache_requests_total\{result="(hit|miss)"\}/);
    assert.doesNotMatch(text, /method="POST"|status="202"/, "a write is never counted");
    assert.doesNotMatch(text, /companies\/1|reviews/, "no path in the metrics");

    // The key directory lost (a file in its place, so no key can be made either): liveness holds, readiness fails.
    const keyDir = path.join(path.dirname(server.databaseUrl), "queue-keys");
    fs.renameSync(keyDir, `${keyDir}.away`);
    fs.writeFileSync(keyDir, "not a directory");
    assert.equal(await statusOf(`${server.baseURL}/healthz`), 200);
    const lost = await readyz(server);
    assert.equal(lost.status, 503);
    assert.equal(lost.checks["queue key"], "failed");
    // Publication fails at each turn; two intervals (1 s) past the due time, readiness says so, as degraded: a late
    // publication is the same for every process, and failing it took every process out of the proxy at once.
    // Proved live: with the part "failed" again, this assertion fails (and the reliability run's proxy answered 503).
    let stalled = await readyz(server);
    for (let wait = 0; stalled.checks.publication !== "degraded" && wait < 200; wait += 1) {
      await sleep(100);
      stalled = await readyz(server);
    }
    assert.equal(stalled.checks.publication, "degraded", JSON.stringify(stalled));
    const failing = await (await fetch(metricsUrl)).text();
    assert.ok(sample(failing, "candor_publication_failures_total") > 0, failing);

    // The directory back: the next turn publishes, and the process is ready again.
    fs.rmSync(keyDir);
    fs.renameSync(`${keyDir}.away`, keyDir);
    // Ready (200) comes back with the key directory; "degraded" leaves readiness 200 too, so the wait is for the
    // publication check itself: the next turn has published.
    let back = await readyz(server);
    for (let wait = 0; (back.status !== 200 || back.checks.publication !== "ok") && wait < 200; wait += 1) {
      await sleep(100);
      back = await readyz(server);
    }
    assert.equal(back.status, 200, JSON.stringify(back));
    const recovered = await (await fetch(metricsUrl)).text();
    assert.ok(sample(recovered, "candor_publication_runs_total") > 0, recovered);
    assert.match(recovered, /^candor_publication_queue_depth \d+$/m);
  });

  it("sends anonymous readers to the primary while the replica does not answer, and counts it", async () => {
    const metricsPort = await freePort();
    // A replica address nothing listens on: the replica is down.
    const down = new URL(postgresAdminUrl);
    down.port = String(await freePort());
    const server = await startServer("postgres", {
      env: {
        DEMO_DATA: "always",
        DATABASE_READ_URL: down.href,
        METRICS_ADDRESS: `127.0.0.1:${metricsPort}`,
        REDIS_URL: process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379",
      },
    });
    servers.push(server);
    let ready = await readyz(server);
    for (let wait = 0; ready.checks.replica !== "degraded" && wait < 100; wait += 1) {
      await sleep(100);
      ready = await readyz(server);
    }
    assert.equal(ready.status, 200, JSON.stringify(ready));
    assert.equal(ready.checks.replica, "degraded");
    assert.equal(ready.checks.redis, "ok");
    assert.equal(ready.checks["change channel"], "ok");
    for (const page of ["/", "/company/1", "/api/v1/companies/1"]) {
      assert.equal(await statusOf(`${server.baseURL}${page}`), 200, page);
    }
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    assert.ok(sample(text, "candor_replica_fallback_reads_total") >= 2, text);
    assert.equal(sample(text, "candor_replica_lag_seconds"), -1);
    assert.match(server.output(), /"worker":0.*the read replica is unusable/);
  });
});
