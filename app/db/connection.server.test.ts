import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { type Kysely, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase, searchUpkeep, truncateWal } from "./connection.server.ts";
import { migrateToLatest } from "./migrate.server.ts";

const opened: Array<{ handle: DatabaseHandle; dir: string }> = [];

function open(options: Parameters<typeof openDatabase>[1]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-connection-"));
  const file = path.join(dir, "candor.sqlite");
  const handle = openDatabase(file, options);
  opened.push({ handle, dir });
  return { db: handle.db as unknown as Kysely<any>, file };
}

afterEach(async () => {
  for (const { handle, dir } of opened.splice(0)) {
    await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

async function pragma(db: Kysely<any>, name: string): Promise<unknown> {
  const { rows } = await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(db);
  return Object.values(rows[0]!)[0];
}

/** Writes about 4 MB in 100 commits (a sealed review is 32 KB, its commit as large). */
async function writeSealedSizedRows(db: Kysely<any>): Promise<void> {
  await sql`create table sealed (id integer primary key, body blob not null)`.execute(db);
  for (let i = 0; i < 100; i++) {
    await sql`insert into sealed (body) values (${Buffer.alloc(40 * 1024, i)})`.execute(db);
  }
}

describe("SQLite's WAL checkpoints", () => {
  it("are left to a thread of their own on the server's connection, which copies the WAL into the file", async () => {
    const { db, file } = open({ backgroundCheckpoints: true });
    expect(await pragma(db, "wal_autocheckpoint")).toBe(0);
    await writeSealedSizedRows(db);
    // No commit checkpoints any more: the database file grows only when the background thread copies pages into it.
    const deadline = Date.now() + 30_000;
    while (fs.statSync(file).size < 3 * 1024 * 1024) {
      expect(Date.now(), "the background checkpoint never copied the WAL into the file").toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { rows } = await sql<{ n: number }>`select count(*) as n from sealed`.execute(db);
    expect(rows[0]!.n).toBe(100);
  });

  it("never keep the truncation after a publication from emptying the WAL, however the two meet", async () => {
    const { db, file } = open({ backgroundCheckpoints: true });
    await sql`create table sealed (id integer primary key, body blob not null)`.execute(db);
    // Truncations at every moment of the thread's checkpoints: each finds the WAL emptied, none reports busy.
    for (let round = 0; round < 100; round++) {
      for (let i = 0; i < 5; i++) {
        await sql`insert into sealed (body) values (${Buffer.alloc(32 * 1024, round)})`.execute(db);
      }
      if (round % 2 === 0) await new Promise((resolve) => setTimeout(resolve, round % 7));
      await truncateWal(db);
      expect(fs.statSync(`${file}-wal`).size, `round ${round}`).toBe(0);
    }
  });

  it("start the WAL again from its beginning under writes that never pause", async () => {
    const { db, file } = open({ backgroundCheckpoints: true });
    await sql`create table sealed (id integer primary key, body blob not null)`.execute(db);
    // Passive checkpoints alone let the WAL grow as long as writes keep coming (each copy finds new pages behind it),
    // so its file grows with every write. Restarted, the WAL is written again from its beginning: its file stops
    // growing at the longest it got, while the writes go on.
    const walSize = () => fs.statSync(`${file}-wal`).size;
    let unchangedFor = 0;
    let last = 0;
    for (let i = 0; i < 6000 && unchangedFor < 500; i++) {
      await sql`insert into sealed (body) values (${Buffer.alloc(16 * 1024, i)})`.execute(db);
      if (i % 20 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
      const size = walSize();
      unchangedFor = size === last ? unchangedFor + 1 : 0;
      last = size;
    }
    expect(unchangedFor, "the WAL's file grew with every write").toBe(500);
  });

  it("let a transaction that reads before it writes wait for another connection's write lock", async () => {
    const { db, file } = open({ backgroundCheckpoints: true });
    await sql`create table counter (id integer primary key, n integer not null)`.execute(db);
    await sql`insert into counter (id, n) values (1, 0)`.execute(db);
    // Another connection (as the checkpoint thread restarting the WAL, or a publication from the command line) holds
    // the write lock for a moment. A transaction begun plainly would read, then fail "busy" at its write at once.
    const holder = new Worker(
      `const { parentPort, workerData } = require("node:worker_threads");
       const db = new (require(workerData.driver))(workerData.file);
       db.exec("begin immediate");
       parentPort.postMessage("holding");
       setTimeout(() => { db.exec("commit"); db.close(); parentPort.postMessage("released"); }, 300);`,
      { eval: true, workerData: { driver: createRequire(import.meta.url).resolve("better-sqlite3"), file } },
    );
    const messages: string[] = [];
    const released = new Promise<void>((resolve) =>
      holder.on("message", (message: string) => {
        messages.push(message);
        if (message === "released") resolve();
      }),
    );
    while (!messages.includes("holding")) await new Promise((resolve) => setTimeout(resolve, 5));
    await db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ n: number }>`select n from counter where id = 1`.execute(trx);
      await sql`update counter set n = ${rows[0]!.n + 1} where id = 1`.execute(trx);
    });
    await released;
    await holder.terminate();
    const { rows } = await sql<{ n: number }>`select n from counter where id = 1`.execute(db);
    expect(rows[0]!.n).toBe(1);
  });

  it("stay with the commits elsewhere (scripts), as SQLite does them by default", async () => {
    const { db } = open({});
    expect(await pragma(db, "wal_autocheckpoint")).toBe(1000);
  });

  it("stop with the connection: closing waits for the thread, and a closed database can be reopened", async () => {
    const { db, file } = open({ backgroundCheckpoints: true });
    await writeSealedSizedRows(db);
    const entry = opened.pop()!;
    await entry.handle.close();
    const again = openDatabase(file, { backgroundCheckpoints: true });
    opened.push({ handle: again, dir: entry.dir });
    const { rows } = await sql<{ n: number }>`select count(*) as n from sealed`.execute(
      again.db as unknown as Kysely<any>,
    );
    expect(rows[0]!.n).toBe(100);
  });
});

describe("the checkpoint thread", () => {
  it("never keeps a process alive that did not close its database", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-connection-"));
    try {
      const connection = JSON.stringify(path.resolve(import.meta.dirname, "connection.server.ts"));
      const file = JSON.stringify(path.join(dir, "candor.sqlite"));
      // A file, not `-e`: code given with --input-type=module would make the thread's CommonJS fail to start.
      const script = path.join(dir, "open.ts");
      fs.writeFileSync(
        script,
        `import { openDatabase } from ${connection};\nopenDatabase(${file}, { backgroundCheckpoints: true });\n`,
      );
      // Throws when the process is still running after 15 s (a start takes about one), or when it failed.
      const output = execFileSync(process.execPath, [script], { timeout: 15_000, encoding: "utf8" });
      expect(output, "the thread failed").toBe("");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the name-search indexes", () => {
  /** How many segments an FTS5 index holds: each has its rows in the index's `_idx` table. */
  const segments = async (db: Kysely<any>, table: string) =>
    (await sql<{ n: number }>`select count(distinct segid) as n from ${sql.table(`${table}_idx`)}`.execute(db)).rows[0]!
      .n;
  const matches = async (db: Kysely<any>, table: string, query: string) =>
    (
      await sql<{
        rowid: number;
      }>`select rowid from ${sql.table(table)} where ${sql.ref(table)} match ${query} order by rowid`.execute(db)
    ).rows.map((row) => row.rowid);

  it("are merged into one segment each by the checkpoint thread, finding the same names", async () => {
    // Filled by a connection without the thread, as the triggers add names: one statement each, so each name is a
    // segment of its own until FTS5 merges a few.
    const { db: filling, file } = open({});
    await migrateToLatest(filling);
    for (let id = 1; id <= 400; id++) {
      const name = `company ${id} ${["alpha", "beta", "gamma", "delta"][id % 4]} ${id % 7 === 0 ? "works" : "labs"}`;
      for (const table of searchUpkeep.tables) {
        await sql`insert into ${sql.table(table)} (rowid, folded_name, country) values (${id * 4096 + 1}, ${name}, 'DE')`.execute(
          filling,
        );
      }
    }
    const queries = ['"alp"', '"wor" AND "rks"', '"gam" AND "ma "', '"zzz"'];
    const before = await Promise.all(queries.map((query) => matches(filling, "companies_search", query)));
    expect(before.map((rowids) => rowids.length)).toEqual([100, 57, 100, 0]);
    for (const table of searchUpkeep.tables) expect(await segments(filling, table), table).toBeGreaterThan(4);
    await opened.pop()!.handle.close();

    const handle = openDatabase(file, {
      backgroundCheckpoints: true,
      // Its first look after 50 ms, not 10 s; steps of 2 pages, so the merge takes many turns.
      searchUpkeep: { ...searchUpkeep, firstAfterMs: 50, intervalMs: 50, stepPages: 2 },
    });
    opened.push({ handle, dir: path.dirname(file) });
    const db = handle.db as unknown as Kysely<any>;
    const deadline = Date.now() + 15_000;
    for (const table of searchUpkeep.tables) {
      while ((await segments(db, table)) > 1) {
        expect(Date.now(), `${table} was never merged`).toBeLessThan(deadline);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    expect(await Promise.all(queries.map((query) => matches(db, "companies_search", query)))).toEqual(before);
    for (const table of searchUpkeep.tables) {
      await sql`insert into ${sql.table(table)} (${sql.ref(table)}) values ('integrity-check')`.execute(db);
    }
  });
});
