import { sql } from "kysely";
import { expect, it } from "vitest";
import { openDatabase } from "#app/db/connection.server.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { claimTurn, isDue } from "./jobs.server.ts";

const turn = { job: "test-job", nextInMs: 60_000 };

describeEachEngine("turns of a scheduled job", (database, engine) => {
  it("plans a new job ahead instead of running it at once, and is due once its time has come", async () => {
    const { db } = database();
    expect(await isDue(db, "test-job", 0)).toBe(false);
    expect(await isDue(db, "test-job", 0)).toBe(true);
    await db
      .updateTable("scheduled_jobs")
      .set({ next_run_ms: Date.now() + 60_000 })
      .where("name", "=", "test-job")
      .execute();
    expect(await isDue(db, "test-job", 0)).toBe(false);
  });

  it("gives a due turn to exactly one of several processes claiming it at once", async () => {
    const { db, url } = database();
    await isDue(db, "test-job", 0);
    // Separate pools stand for separate processes (SQLite: one process, so one handle).
    const handles = engine === "postgres" ? Array.from({ length: 4 }, () => openDatabase(url, { poolSize: 1 })) : [];
    try {
      const claimers = engine === "postgres" ? handles.map((handle) => handle.db) : [db, db, db, db];
      const claims = await Promise.all(
        claimers.map((claimer) =>
          claimer.transaction().execute(async (trx) => {
            const claimed = await claimTurn(trx, turn);
            // The job's work, holding the turn for a moment.
            await new Promise((resolve) => setTimeout(resolve, 50));
            return claimed;
          }),
        ),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
    } finally {
      await Promise.all(handles.map((handle) => handle.close()));
    }
  });

  it("leaves the turn of a run that died mid-job to the next process", async () => {
    const { db, url } = database();
    await isDue(db, "test-job", 0);
    if (engine === "postgres") {
      // A process killed mid-job: its connection goes, its transaction is rolled back.
      const dying = openDatabase(url, { poolSize: 1 });
      const run = dying.db.transaction().execute(async (trx) => {
        expect(await claimTurn(trx, turn)).toBe(true);
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        await sql`select pg_terminate_backend(${rows[0]!.pid})`.execute(db);
        await sql`select 1`.execute(trx);
      });
      await expect(run).rejects.toThrow();
      await dying.close();
    } else {
      const run = db.transaction().execute(async (trx) => {
        expect(await claimTurn(trx, turn)).toBe(true);
        throw new Error("died mid-job");
      });
      await expect(run).rejects.toThrow("died mid-job");
    }
    expect(await isDue(db, "test-job", 0)).toBe(true);
    expect(await db.transaction().execute((trx) => claimTurn(trx, turn))).toBe(true);
    expect(await isDue(db, "test-job", 0)).toBe(false);
  });
});
