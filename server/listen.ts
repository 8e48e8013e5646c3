import http from "node:http";
import type { RequestListener } from "node:http";
import type { Logger } from "pino";

/**
 * Serves `handler` and shuts down gracefully on SIGTERM or SIGINT: stop accepting connections, let in-flight
 * requests finish (up to `timeoutMs`), then run `onClose` (closing the database) and exit.
 */
export function listenWithGracefulShutdown(options: {
  handler: RequestListener;
  host: string;
  port: number;
  timeoutMs: number;
  logger: Logger;
  onClose: () => Promise<void>;
}): http.Server {
  const { handler, host, port, timeoutMs, logger, onClose } = options;
  const server = http.createServer(handler);
  server.keepAliveTimeout = 5_000;
  let closing = false;

  async function shutdown(signal: string) {
    if (closing) return;
    closing = true;
    logger.info({ signal }, "shutting down: finishing in-flight requests");
    const force = setTimeout(() => {
      logger.warn("shutdown timeout: closing remaining connections");
      server.closeAllConnections();
    }, timeoutMs);
    force.unref();
    server.close(async () => {
      clearTimeout(force);
      try {
        await onClose();
        logger.info("shut down cleanly");
        process.exit(0);
      } catch (error) {
        logger.error({ err: error }, "error while shutting down");
        process.exit(1);
      }
    });
    server.closeIdleConnections();
  }

  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
  server.listen(port, host, () => {
    const address = server.address();
    const actualPort = typeof address === "object" && address ? address.port : port;
    logger.info({ port: actualPort }, `Candor is listening on http://localhost:${actualPort}`);
  });
  return server;
}
