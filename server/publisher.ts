import { randomInt } from "node:crypto";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "#app/db/schema.ts";
import { contributionPublisher } from "#app/domain/contributions.server.ts";
import { isDue } from "#app/domain/jobs.server.ts";
import { percentileJob, rankPeers } from "#app/domain/percentiles.server.ts";
import { publicationHealth, type PublicationSettings, publishQueued } from "#app/domain/publication.server.ts";
import { scanForManipulation } from "#app/domain/signal-scan.server.ts";
import { forgetPastQuarters } from "#app/domain/verification.server.ts";
import { publicDataChanged } from "#app/lib/data-version.server.ts";
import { peerLimits } from "#app/lib/limits.ts";
import { recordPublication } from "#app/lib/metrics.server.ts";

/** A wait drawn uniformly from [0.5, 1.5] × the interval, so runs keep no fixed rhythm to line submissions up with. */
export function jitteredWaitMs(intervalSeconds: number): number {
  return Math.round(intervalSeconds * 1000 * (0.5 + randomInt(1_000_001) / 1_000_000));
}

/** How often each process looks whether the publication is due: at most every 5 s, more often for short intervals. */
export function pollMs(intervalSeconds: number): number {
  return Math.max(10, Math.min(5_000, Math.round((intervalSeconds * 1000) / 4)));
}

/**
 * Publishes queued reviews on a jittered schedule until stopped. The schedule is shared by every process on the
 * database (app/domain/jobs.server.ts): each looks every few seconds whether a turn is due, and one of them takes it
 * and plans the next, so several processes or machines publish as often as one would. A failed or interrupted run
 * leaves its turn to the next look. `stop` waits for a run under way.
 */
export function startPublishing(options: {
  db: Kysely<Database>;
  secret: string;
  settings: PublicationSettings;
  logger: Logger;
}): { stop: () => Promise<void> } {
  const { db, secret, settings, logger } = options;
  async function run() {
    try {
      const nextInMs = jitteredWaitMs(settings.intervalSeconds);
      if (!(await isDue(db, "publication", nextInMs))) return;
      const result = await publishQueued(db, contributionPublisher(secret), {
        settings,
        turn: { job: "publication", nextInMs },
      });
      if (result) {
        logger.info({ published: result.published, held: result.held, setAside: result.setAsideTotal }, "publication");
        if (result.setAside > 0) {
          logger.error(
            { setAside: result.setAside, setAsideTotal: result.setAsideTotal },
            "publication set queued reviews aside: it could not write them (npm run admin -- set-aside)",
          );
        }
        recordPublication({ failed: false, published: result.published, held: result.held });
      }
      // A quarter that ended leaves no address hash, code or private key behind (its own statements, after the batch).
      await forgetPastQuarters(db);
    } catch (error) {
      const { consecutiveFailures, lastSuccessAt } = publicationHealth();
      logger.error(
        { err: error, consecutiveFailures, lastSuccessAt: lastSuccessAt?.toISOString() ?? null },
        "publication failed; the queue is kept for the next run",
      );
      recordPublication({ failed: true });
    }
  }

  return repeat(run, () => pollMs(settings.intervalSeconds));
}

/** How often a process tries the daily manipulation scan; the scan claims its day, so it runs once a day in all. */
const scanTryMs = 60 * 60 * 1000;

/**
 * Runs the daily manipulation scan (docs/moderation.md): right after start-up, then once an hour, each try finding
 * the day's scan done (here or by another process) or running it. `stop` waits for a scan under way.
 */
export function startSignalScans(options: { db: Kysely<Database>; settings: PublicationSettings; logger: Logger }): {
  stop: () => Promise<void>;
} {
  const { db, settings, logger } = options;
  async function run() {
    try {
      const result = await scanForManipulation(db, settings);
      if (result) logger.info(result, "manipulation scan");
    } catch (error) {
      logger.error({ err: error }, "manipulation scan failed; the next try runs it again");
    }
  }

  return repeat(run, () => scanTryMs, jitteredWaitMs(60));
}

/** How often a process looks whether the peer ranking is due (each run is planned `runMinutes` after the last). */
const peerPollMs = 60 * 1000;

/**
 * Ranks subjects among their peers (app/domain/percentiles.server.ts) every `peerLimits.runMinutes`, a bounded number
 * of groups per run, whichever process finds the turn due first; the first run comes a minute after a database is
 * first seen. Cached pages let go after each run that ranked something, and the log says how long the run took and
 * the longest the event loop waited meanwhile. `stop` waits for a run under way.
 */
export function startPeerRanking(options: { db: Kysely<Database>; logger: Logger }): { stop: () => Promise<void> } {
  const { db, logger } = options;
  async function run() {
    try {
      if (!(await isDue(db, percentileJob, peerPollMs))) return;
      // How long the run took and the longest the event loop waited meanwhile (what a request could have waited).
      const delay = monitorEventLoopDelay({ resolution: 10 });
      delay.enable();
      const started = performance.now();
      const result = await rankPeers(db, { turn: { job: percentileJob, nextInMs: peerLimits.runMinutes * 60_000 } });
      delay.disable();
      if (result) {
        const ms = Math.round(performance.now() - started);
        logger.info({ ...result, ms, longestStallMs: Math.round(delay.max / 1e6) }, "peer ranking");
        publicDataChanged();
      }
    } catch (error) {
      logger.error({ err: error }, "peer ranking failed; the next turn ranks those groups again");
    }
  }

  return repeat(run, () => peerPollMs);
}

/**
 * Runs `run` after `firstMs` (by default the first `nextMs()`), then again `nextMs()` after each run has ended, so
 * runs never overlap in a process. `stop` ends the loop and waits for a run under way.
 */
function repeat(run: () => Promise<void>, nextMs: () => number, firstMs = nextMs()): { stop: () => Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  function schedule(waitMs: number) {
    if (stopped) return;
    timer = setTimeout(() => {
      running = run().finally(() => {
        running = undefined;
        schedule(nextMs());
      });
    }, waitMs);
  }
  schedule(firstMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
