import { sql } from "kysely";
import type { Logger } from "pino";
import { countReplicaFallback, setReplicaLag } from "#app/lib/metrics.server.ts";
import type { DatabaseHandle } from "./connection.server.ts";

/**
 * Whether the read replica (DATABASE_READ_URL) may serve anonymous readers (decision 0060): it answers, and it is
 * at most `maxLagSeconds` behind the primary. Checked every second by each process; in between, a change heard on the
 * channel that the replica did not replay within 5 s (server/shared-state.ts) marks it behind at once. While it is
 * down or behind, readers that would read it read the primary instead (logged once per change, counted per read),
 * so no page is rendered, nor kept, from data older than that.
 */
export const maxLagSeconds = 5;
const checkEveryMs = 1_000;
const answerWithinMs = 1_000;

type ReplicaState = { usable: boolean; lagSeconds: number | undefined; reason: string };
let state: ReplicaState = { usable: true, lagSeconds: 0, reason: "" };
let log: Logger | undefined;

function become(next: ReplicaState): void {
  if (next.usable !== state.usable) {
    if (next.usable) log?.info("the read replica is back: anonymous readers read it again");
    else log?.warn({ reason: next.reason }, "the read replica is unusable: anonymous readers read the primary");
  }
  state = next;
  setReplicaLag(next.lagSeconds ?? -1);
}

/** The replica's state as last measured; `usable` is what readerFor follows. */
export function replicaState(): Readonly<ReplicaState> {
  return state;
}

/** True when anonymous readers may read the replica; otherwise counts one read sent to the primary instead. */
export function replicaUsableForRead(): boolean {
  if (state.usable) return true;
  countReplicaFallback();
  return false;
}

/** A change the replica did not replay in time: readers go to the primary until the next check finds it caught up. */
export function replicaBehind(): void {
  become({ usable: false, lagSeconds: state.lagSeconds, reason: "a change was not replayed within 5 s" });
}

/** `work`, or a rejection once `ms` have passed without its answer. */
export function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * How far the replica is behind: 0 when it has replayed everything the primary had written when asked, else the age
 * of the last transaction it replayed.
 */
export async function measureLag(handle: DatabaseHandle): Promise<number> {
  const { rows: primary } = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(handle.db);
  const { rows } = await sql<{ caught_up: boolean | null; seconds: number | null }>`select
      pg_last_wal_replay_lsn() >= ${primary[0]!.lsn}::pg_lsn as caught_up,
      extract(epoch from now() - pg_last_xact_replay_timestamp())::float8 as seconds`.execute(handle.read);
  const row = rows[0]!;
  // null: not a replica at all (DATABASE_READ_URL names the primary).
  if (row.caught_up !== false) return 0;
  return Math.max(0, row.seconds ?? 0);
}

/** Checks the replica every second until stopped; nothing without one. */
export function watchReplica(handle: DatabaseHandle, logger: Logger): { stop: () => void } {
  log = logger;
  if (!handle.replica) return { stop: () => {} };
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const check = async () => {
    try {
      const lagSeconds = await within(measureLag(handle), answerWithinMs);
      // Back only once it has replayed all the primary had written: a page rendered from it then is no older
      // than one rendered from the primary a moment before.
      const usable = state.usable ? lagSeconds <= maxLagSeconds : lagSeconds === 0;
      become(
        usable
          ? { usable: true, lagSeconds, reason: "" }
          : { usable: false, lagSeconds, reason: `${lagSeconds.toFixed(1)} s behind the primary` },
      );
    } catch (error) {
      become({ usable: false, lagSeconds: undefined, reason: `it does not answer: ${String(error)}` });
    }
    if (!stopped) timer = setTimeout(() => void check(), checkEveryMs);
  };
  void check();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
