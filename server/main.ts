// Production entry: `npm start`. Runs the server bundle that `npm run build` wrote to build/server.
import type { RequestListener } from "node:http";
import { env } from "#app/lib/env.server.ts";
import { logger } from "#app/lib/logger.server.ts";
import { listenWithGracefulShutdown } from "./listen.ts";

type ServerBundle = {
  start: () => Promise<void>;
  stop: () => Promise<void>;
  createProductionApp: () => Promise<RequestListener>;
};

try {
  const config = env();
  const bundle = (await import(new URL("../build/server/index.js", import.meta.url).href)) as ServerBundle;
  await bundle.start();
  listenWithGracefulShutdown({
    handler: await bundle.createProductionApp(),
    host: config.HOST,
    port: config.PORT,
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    logger,
    onClose: bundle.stop,
  });
} catch (error) {
  logger.fatal({ err: error }, "could not start");
  process.exit(1);
}
