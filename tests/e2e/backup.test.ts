// `npm run db:backup` while the server runs, then `npm run db:restore` into a new database: the restored database
// holds the same rows, and a server starts on it and serves them.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { adminQuery, type Engine, postgresAdminUrl, readDatabase, root, startServer } from "../support/server.ts";

const tables = ["companies", "company_reviews", "managers", "manager_reviews", "users", "review_receipts"];

async function counts(engine: Engine, url: string): Promise<Record<string, number>> {
  const rows = await readDatabase(
    { engine, url },
    `select ${tables.map((table) => `(select count(*) from ${table}) as ${table}`).join(", ")}`,
  );
  return Object.fromEntries(tables.map((table) => [table, Number(rows[0]![table])]));
}

const run = (args: string[], env: Record<string, string>) =>
  execFileSync(process.execPath, ["scripts/backup.ts", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, ...env },
    encoding: "utf8",
  });

for (const engine of ["sqlite", "postgres"] as const) {
  describe(`backup and restore (${engine})`, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-backup-"));
    const cleanUps: Array<() => Promise<void>> = [];
    after(async () => {
      for (const cleanUp of cleanUps.reverse()) await cleanUp();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it("restores a backup taken while the server runs into a new database that a server then serves", async () => {
      const server = await startServer(engine, { env: { DEMO_DATA: "always" } });
      cleanUps.push(async () => void (await server.stop()));
      const original = await counts(engine, server.databaseUrl);
      assert.ok(original.companies! > 0 && original.company_reviews! > 0, "demo data to back up");

      const file = path.join(dir, "candor.backup");
      run([file], { DATABASE_URL: server.databaseUrl, AUTH_SECRET: "x".repeat(32) });

      let restoredUrl: string;
      if (engine === "sqlite") {
        restoredUrl = path.join(dir, "restored", "candor.sqlite");
      } else {
        const name = `candor_restore_${process.pid}_${Date.now()}`;
        await adminQuery(`create database ${name}`);
        cleanUps.push(async () => void (await adminQuery(`drop database if exists ${name} with (force)`)));
        const url = new URL(postgresAdminUrl);
        url.pathname = `/${name}`;
        const schema = new URL(server.databaseUrl).searchParams.get("options")!;
        url.search = `?options=${encodeURIComponent(schema)}`;
        restoredUrl = url.href;
      }
      const output = run(["--restore", file], {
        DATABASE_URL: restoredUrl,
        QUEUE_KEY_DIR: path.join(dir, "no-keys-here"),
      });
      assert.match(output, /Restored/);
      assert.deepEqual(await counts(engine, restoredUrl), original);

      const restored = await startServer(engine, { env: { DATABASE_URL: restoredUrl, DEMO_DATA: "never" } });
      cleanUps.push(async () => void (await restored.stop()));
      const companies = await fetch(`${restored.baseURL}/api/v1/companies/1`);
      assert.equal(companies.status, 200);
      await companies.body?.cancel();
    });

    if (engine === "postgres") {
      // A site's database keeps its tables in the schema `public`, which every new database already has.
      it("restores a database kept in the schema public into a new database", async () => {
        const names = ["source", "restored"].map((role) => `candor_public_${role}_${process.pid}_${Date.now()}`);
        const urls = names.map((name) => {
          const url = new URL(postgresAdminUrl);
          url.pathname = `/${name}`;
          url.search = "";
          return url.href;
        });
        for (const name of names) {
          await adminQuery(`create database ${name}`);
          cleanUps.push(async () => void (await adminQuery(`drop database if exists ${name} with (force)`)));
        }
        const [source, target] = urls as [string, string];
        execFileSync(process.execPath, ["scripts/seed.ts", "--companies", "10"], {
          cwd: root,
          env: { PATH: process.env.PATH, DATABASE_URL: source, AUTH_SECRET: "x".repeat(32) },
        });
        const original = await counts(engine, source);
        assert.ok(original.companies! > 0, "seeded companies to back up");
        const file = path.join(dir, "public.backup");
        run([file], { DATABASE_URL: source, AUTH_SECRET: "x".repeat(32) });
        const output = run(["--restore", file], {
          DATABASE_URL: target,
          QUEUE_KEY_DIR: path.join(dir, "no-keys-here"),
        });
        assert.match(output, /Restored/);
        assert.deepEqual(await counts(engine, target), original);
      });
    }
  });
}
