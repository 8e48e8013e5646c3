// Production entry: `npm start`. Runs the server bundle that `npm run build` wrote to build/server, in this process
// or, with WEB_CONCURRENCY above 1, in that many worker processes (server/cluster.ts).
import cluster from "node:cluster";
import type { RequestListener } from "node:http";
import { engineOf } from "#app/db/connection.server.ts";
import { env } from "#app/lib/env.server.ts";
import { logger } from "#app/lib/logger.server.ts";
import { runWorkers } from "./cluster.ts";
import { listenWithGracefulShutdown } from "./listen.ts";
import { clusterMetrics, serveMetrics } from "./metrics.ts";

type ServerBundle = {
  start: () => Promise<void>;
  metricsText: () => Promise<string>;
  stop: () => Promise<void>;
  createProductionApp: () => Promise<RequestListener>;
};

async function serve(config: ReturnType<typeof env>) {
  const bundle = (await import(new URL("../build/server/index.js", import.meta.url).href)) as ServerBundle;
  await bundle.start();
  // A worker's figures are gathered by its primary, which serves them (below).
  const metrics =
    config.METRICS_ADDRESS && cluster.isPrimary
      ? await serveMetrics(config.METRICS_ADDRESS, bundle.metricsText, logger)
      : undefined;
  listenWithGracefulShutdown({
    handler: await bundle.createProductionApp(),
    host: config.HOST,
    port: config.PORT,
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    logger,
    onClose: async () => {
      await metrics?.stop();
      await bundle.stop();
    },
  });
}

try {
  const config = env();
  if (config.RATE_LIMITS === "off" && cluster.isPrimary) {
    logger.warn("RATE_LIMITS=off: no rate limit at all (sign-in guesses included); for test suites only");
  }
  if (config.WEB_CONCURRENCY > 1 && cluster.isPrimary) {
    if (engineOf(config.DATABASE_URL) === "sqlite") {
      throw new Error(
        `WEB_CONCURRENCY=${config.WEB_CONCURRENCY} needs PostgreSQL: the embedded SQLite database is served by one process. Set WEB_CONCURRENCY=1, or DATABASE_URL to a postgres:// URL (docs/deploy.md).`,
      );
    }
    if (config.METRICS_ADDRESS) await serveMetrics(config.METRICS_ADDRESS, clusterMetrics(), logger);
    runWorkers({ count: config.WEB_CONCURRENCY, logger, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS });
  } else {
    await serve(config);
  }
} catch (error) {
  logger.fatal({ err: error }, "could not start");
  process.exit(1);
}
