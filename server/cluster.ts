import cluster, { type Worker } from "node:cluster";
import { once } from "node:events";
import type { Logger } from "pino";

/**
 * WEB_CONCURRENCY worker processes sharing one listening port (node:cluster hands each connection to one worker).
 * This process only watches them:
 * - the first worker starts alone (it applies migrations and loads demo data), the others once it listens;
 * - a worker that dies is replaced (after 1 s when it lived less than 10 s, so a start-up failure cannot spin);
 * - SIGTERM or SIGINT: every worker drains its requests and exits (listen.ts), then this process exits;
 * - SIGHUP: a rolling restart, one worker at a time: its replacement starts and listens before it is told to drain,
 *   so the port never goes unserved (a new build or new settings in the environment are picked up this way).
 */
export function runWorkers(options: { count: number; logger: Logger; shutdownTimeoutMs: number }): void {
  const { count, logger, shutdownTimeoutMs } = options;
  const retiring = new Set<Worker>();
  let stopping = false;
  let rolling = false;

  function fork(): Promise<Worker> {
    const worker = cluster.fork();
    const started = Date.now();
    worker.on("exit", (code, signal) => {
      if (stopping || retiring.has(worker)) return;
      logger.error({ pid: worker.process.pid, code, signal }, "a worker died; starting another");
      const delay = Date.now() - started < 10_000 ? 1_000 : 0;
      setTimeout(() => {
        if (!stopping) void fork().catch(() => {});
      }, delay);
    });
    return new Promise((resolve, reject) => {
      worker.once("listening", () => resolve(worker));
      worker.once("exit", () => reject(new Error("the worker exited before it listened")));
    });
  }

  async function retire(worker: Worker): Promise<void> {
    retiring.add(worker);
    const exited = once(worker, "exit");
    worker.process.kill("SIGTERM");
    await exited;
    retiring.delete(worker);
  }

  async function rollingRestart() {
    if (rolling || stopping) return;
    rolling = true;
    logger.info("rolling restart: replacing the workers one by one");
    try {
      for (const worker of Object.values(cluster.workers ?? {})) {
        if (!worker || retiring.has(worker) || stopping) continue;
        await fork();
        await retire(worker);
      }
      logger.info("rolling restart done");
    } catch (error) {
      logger.error({ err: error }, "rolling restart stopped: a new worker did not start");
    } finally {
      rolling = false;
    }
  }

  async function shutdown(signal: string) {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down the workers");
    const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
    const force = setTimeout(() => {
      for (const worker of workers) worker.process.kill("SIGKILL");
    }, shutdownTimeoutMs + 5_000);
    force.unref();
    const codes = await Promise.all(
      workers.map(async (worker) => {
        if (worker.isDead()) return worker.process.exitCode ?? 0;
        const exited = once(worker, "exit");
        worker.process.kill("SIGTERM");
        const [code] = await exited;
        return code as number | null;
      }),
    );
    process.exit(codes.every((code) => code === 0) ? 0 : 1);
  }

  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGHUP", () => void rollingRestart());

  void (async () => {
    try {
      await fork();
      await Promise.all(Array.from({ length: count - 1 }, () => fork()));
      logger.info({ workers: count }, "all workers are listening");
    } catch (error) {
      logger.fatal({ err: error }, "a worker could not start");
      await shutdown("start-up failure");
    }
  })();
}
