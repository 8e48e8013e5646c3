// The shipped deploy/haproxy.cfg: it starts with one process or several, follows the readiness check (/readyz),
// and keeps a process that answers its check slowly (1.5 s, as under write load) while taking out one that answers
// 503. Proved live: the file as shipped before (three servers required, /healthz, no `timeout check`) failed the
// first test with one server set, and with its checks on /readyz but the 1 s limit, it marked the slow process down.
import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import http from "node:http";
import path from "node:path";
import { after, describe, it } from "node:test";
import { freePort, root, sleep } from "../support/server.ts";

const config = path.join(root, "deploy/haproxy.cfg");

function appSettings(apps: string[]): Record<string, string> {
  return Object.fromEntries(apps.map((app, index) => [`CANDOR_APP${index + 1}`, app]));
}

/** A stand-in for a Candor process: answers pages with its name, and /readyz as told, after `checkDelayMs`. */
async function standIn(name: string, checkDelayMs: number) {
  let ready = true;
  const server = http.createServer((req, res) => {
    if (req.url === "/readyz") {
      setTimeout(() => res.writeHead(ready ? 200 : 503).end(), checkDelayMs);
      return;
    }
    res.writeHead(200, { "Content-Type": "text/plain" }).end(name);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${port}`,
    setReady: (value: boolean) => void (ready = value),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("the shipped HAProxy configuration", () => {
  const stops: Array<() => Promise<void> | void> = [];
  after(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  it("is valid with 1, 2 and 8 processes set", () => {
    for (const count of [1, 2, 8]) {
      const apps = Array.from({ length: count }, (_, index) => `127.0.0.1:${3001 + index}`);
      const output = execFileSync("haproxy", ["-c", "-f", config], {
        env: { PATH: process.env.PATH, CANDOR_HTTP_BIND: "127.0.0.1:8080", ...appSettings(apps) },
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
      assert.match(output, /Configuration file is valid/, `${count} processes`);
    }
  });

  it("keeps a process whose readiness answers in 1.5 s, and takes out one that answers 503", async () => {
    const quick = await standIn("quick", 0);
    const slow = await standIn("slow", 1_500);
    stops.push(quick.close, slow.close);
    const port = await freePort();
    const proxy: ChildProcess = spawn("haproxy", ["-f", config], {
      env: {
        PATH: process.env.PATH,
        CANDOR_HTTP_BIND: `127.0.0.1:${port}`,
        ...appSettings([quick.address, slow.address]),
      },
      stdio: "ignore",
    });
    stops.push(() => void proxy.kill("SIGTERM"));
    const answers = async (count: number) => {
      const names = new Set<string>();
      for (let request = 0; request < count; request += 1) {
        try {
          const response = await fetch(`http://127.0.0.1:${port}/`);
          names.add(response.status === 200 ? await response.text() : String(response.status));
        } catch {
          names.add("refused");
        }
      }
      return [...names].sort();
    };
    // Several rounds of checks (1 s apart, 2 failures take a process out): both stay in.
    await sleep(5_000);
    assert.deepEqual(await answers(8), ["quick", "slow"]);
    quick.setReady(false);
    await sleep(3_500);
    assert.deepEqual(await answers(8), ["slow"]);
  });
});
