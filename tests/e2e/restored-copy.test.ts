// A copy of the live database started beside it, on the same QUEUE_KEY_DIR: restored with `npm run db:restore`, it
// gets a queue of its own and publishes without touching the live queue's keys; copied any other way (the SQLite file
// copied), it shares the live queue's id and is refused at start with a message saying what to do. Either way the
// live site keeps publishing. Proved live: with the restore's new queue identity left out (the copy keeping the live
// queue id) and the owner check in claimQueue disabled, the live site's next review failed with 500 (its key file
// destroyed by the copy's first publication), and the copied file started.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { ApiClient, companyReview } from "./support/api.ts";
import {
  adminQuery,
  type Engine,
  freePort,
  postgresAdminUrl,
  readDatabase,
  root,
  type RunningServer,
  spawnServer,
  startServer,
} from "../support/server.ts";

const run = (args: string[], env: Record<string, string>) =>
  execFileSync(process.execPath, ["scripts/backup.ts", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, ...env },
    encoding: "utf8",
  });

async function queueOf(engine: Engine, url: string): Promise<{ queueId: string; keyId: string | null }> {
  const rows = await readDatabase({ engine, url }, "select queue_id, key_id from queue_state");
  return { queueId: String(rows[0]!.queue_id), keyId: rows[0]!.key_id === null ? null : String(rows[0]!.key_id) };
}

async function publishedReviews(engine: Engine, url: string): Promise<number> {
  const rows = await readDatabase({ engine, url }, "select count(*) as n from company_reviews");
  return Number(rows[0]!.n);
}

for (const engine of ["sqlite", "postgres"] as const) {
  describe(`a copy of the database beside the live site, on one key directory (${engine})`, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-copy-"));
    const keyDir = path.join(dir, "queue-keys");
    const cleanUps: Array<() => Promise<void>> = [];
    after(async () => {
      for (const cleanUp of cleanUps.reverse()) await cleanUp();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    /** Posts one review of company 1 through `server` (on the database at `url`) with a new account: its status. */
    async function review(server: RunningServer, url = server.databaseUrl): Promise<number> {
      const api = await ApiClient.connect(server.baseURL);
      const account = await api.newAccount(url, engine);
      const answer = await api.post("/api/v1/companies/1/reviews", companyReview(), { token: account.accessToken });
      return answer.status;
    }

    it("a restored copy publishes under a queue of its own and the live site keeps publishing", async () => {
      const live = await startServer(engine, { env: { DEMO_DATA: "always", QUEUE_KEY_DIR: keyDir } });
      cleanUps.push(async () => void (await live.stop()));
      assert.ok((await review(live)) < 300, "the live site publishes");
      const liveQueue = await queueOf(engine, live.databaseUrl);

      const file = path.join(dir, "candor.backup");
      run([file], { DATABASE_URL: live.databaseUrl, AUTH_SECRET: "x".repeat(32) });
      let restoredUrl: string;
      if (engine === "sqlite") {
        restoredUrl = path.join(dir, "restored", "candor.sqlite");
      } else {
        const name = `candor_copy_${process.pid}_${Date.now()}`;
        await adminQuery(`create database ${name}`);
        cleanUps.push(async () => void (await adminQuery(`drop database if exists ${name} with (force)`)));
        const url = new URL(postgresAdminUrl);
        url.pathname = `/${name}`;
        url.search = `?options=${encodeURIComponent(new URL(live.databaseUrl).searchParams.get("options")!)}`;
        restoredUrl = url.href;
      }
      assert.match(run(["--restore", file], { DATABASE_URL: restoredUrl, QUEUE_KEY_DIR: keyDir }), /queue of its own/);
      const copyQueue = await queueOf(engine, restoredUrl);
      assert.notEqual(copyQueue.queueId, liveQueue.queueId, "the restored copy has a queue id of its own");

      // startServer makes a database of its own; DATABASE_URL points the copy's server at the restored one instead.
      const copy = await startServer(engine, {
        env: { DATABASE_URL: restoredUrl, DEMO_DATA: "never", QUEUE_KEY_DIR: keyDir },
      });
      cleanUps.push(async () => void (await copy.stop()));
      // A process keeps the keys it read in memory: the live key's file is looked at after each of the copy's
      // publications, as a restarted or second live process would need it.
      const liveKeyFile = async () =>
        path.join(keyDir, `${liveQueue.queueId}.${(await queueOf(engine, live.databaseUrl)).keyId}.key`);
      const before = await publishedReviews(engine, live.databaseUrl);
      for (let round = 0; round < 2; round += 1) {
        assert.ok((await review(copy, restoredUrl)) < 300, "the copy publishes");
        assert.ok(fs.existsSync(await liveKeyFile()), "the live queue's key is still there");
        assert.ok((await review(live)) < 300, `the live site still publishes:\n${live.output()}`);
      }
      assert.equal(await publishedReviews(engine, live.databaseUrl), before + 2);

      if (engine === "sqlite") {
        // The file copied by hand, not restored: the same queue id as the live site's, refused at start.
        const copied = path.join(dir, "copied");
        fs.mkdirSync(copied);
        fs.copyFileSync(file, path.join(copied, "candor.sqlite"));
        const port = await freePort();
        const refused = spawnServer({ url: path.join(copied, "candor.sqlite"), dir: copied }, port, {
          DEMO_DATA: "never",
          QUEUE_KEY_DIR: keyDir,
        });
        const code = await refused.exited;
        assert.notEqual(code, 0, "the copied file does not start");
        assert.match(refused.log(), /is a copy of that database/);
        assert.match(refused.log(), /queue:identity -- --new/);
        assert.ok((await review(live)) < 300, "the live site publishes after the refused start");
        assert.ok(
          fs.existsSync(
            path.join(keyDir, `${liveQueue.queueId}.${(await queueOf(engine, live.databaseUrl)).keyId}.key`),
          ),
        );
      }
    });
  });
}
