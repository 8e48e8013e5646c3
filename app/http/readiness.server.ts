import { database } from "#app/db/database.server.ts";
import { maxLagSeconds, replicaState, within } from "#app/db/replica-health.server.ts";
import { publicationSettings } from "#app/domain/publication.server.ts";
import { cacheUsable } from "#app/lib/data-version.server.ts";
import { queueKeyOnDisk } from "#app/lib/queue-keys.server.ts";

/**
 * The readiness check (`GET /readyz`, decision 0060), which the shipped HAProxy and nginx configurations follow;
 * `/healthz` stays the liveness check (the process answers and reaches the primary). Each part is "ok", "degraded"
 * (the process still serves correctly, more slowly) or "failed" (it should get no traffic): ready is no part failed.
 * - primary: a read within 2 s, else failed;
 * - replica (with DATABASE_READ_URL): down or more than 5 s behind is degraded, since readers then read the primary;
 * - redis (with REDIS_URL): a PING within 1 s, else failed (the shared rate limits live there);
 * - change channel: lost is degraded (cached pages are not served until it is back);
 * - queue key: the key that seals new reviews readable in QUEUE_KEY_DIR, else failed (each submission would fail);
 * - publication (PUBLISH_INTERVAL above 0): degraded when no run has succeeded for more than two intervals past its
 *   due time, read from the shared schedule, so every process and machine says the same. Degraded, not failed: a
 *   late publication is the same for every process, so failing it took them all out of the proxy's rotation at once
 *   and turned a late run under load (or one whose process was killed) into 503s for every reader and writer, while
 *   each process could still serve and queue. The operator sees it here, in the metrics and in the error log.
 * The answer names parts and states only, never a path, key or figure that concerns a review.
 */
export type PartState = "ok" | "degraded" | "failed";
export type Readiness = { ready: boolean; checks: Record<string, PartState> };

let redisPing: (() => Promise<unknown>) | undefined;

/** Installs (or with undefined, removes) the PING of the Redis the process shares state through. */
export function checkRedisWith(ping: (() => Promise<unknown>) | undefined): void {
  redisPing = ping;
}

const passes = (work: () => Promise<unknown>, ms: number): Promise<PartState> =>
  within(work(), ms).then(
    () => "ok" as const,
    () => "failed" as const,
  );

export async function readiness(now = Date.now()): Promise<Readiness> {
  const handle = database();
  const settings = publicationSettings();
  const checks: Record<string, PartState> = {};
  const tasks: Array<Promise<void>> = [];
  tasks.push(
    passes(() => handle.db.selectFrom("companies").select("id").limit(1).execute(), 2_000).then((state) => {
      checks.primary = state;
    }),
  );
  if (handle.replica) {
    const replica = replicaState();
    checks.replica = replica.usable && (replica.lagSeconds ?? 0) <= maxLagSeconds ? "ok" : "degraded";
  }
  if (redisPing) {
    const ping = redisPing;
    tasks.push(passes(ping, 1_000).then((state) => void (checks.redis = state)));
  }
  checks["change channel"] = cacheUsable() ? "ok" : "degraded";
  tasks.push(
    passes(async () => {
      const state = await handle.db
        .selectFrom("queue_state")
        .select(["queue_id", "key_id"])
        .where("id", "=", 1)
        .executeTakeFirstOrThrow();
      // A queue without a key gets one at its next submission (under the lock, where the owner is checked).
      if (state.key_id !== null && !queueKeyOnDisk(settings.keyDir, state.queue_id, state.key_id)) {
        throw new Error("the queue's key is not in QUEUE_KEY_DIR");
      }
    }, 2_000).then((state) => void (checks["queue key"] = state)),
  );
  if (settings.intervalSeconds > 0) {
    tasks.push(
      passes(async () => {
        const row = await handle.db
          .selectFrom("scheduled_jobs")
          .select("next_run_ms")
          .where("name", "=", "publication")
          .executeTakeFirst();
        // The due time moves forward only with a run that succeeded (app/domain/jobs.server.ts).
        if (row && now - Number(row.next_run_ms) > 2 * settings.intervalSeconds * 1000) {
          throw new Error("no publication succeeded for two intervals");
        }
      }, 2_000).then((state) => void (checks.publication = state === "failed" ? "degraded" : state)),
    );
  }
  await Promise.all(tasks);
  return { ready: Object.values(checks).every((state) => state !== "failed"), checks };
}
