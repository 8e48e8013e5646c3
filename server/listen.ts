import http from "node:http";
import type { RequestListener } from "node:http";
import type { Logger } from "pino";

/**
 * The connection timeouts, set deliberately rather than left to defaults.
 *
 * Keep-alive: a response advertises `Keep-Alive: timeout=5` (keepAliveTimeout), and a client may reuse an idle
 * connection until then. undici (Node's fetch) stops reusing one 2 s before the advertised time, but only when its
 * timers get to run: on a busy machine a client can pick a connection that it still believes open seconds late,
 * while the server closes it ("SocketError: other side closed"). So the server keeps an idle connection open for
 * 30 s in truth (keepAliveTimeout + keepAliveTimeoutBuffer), six times what it promises: a client would have to
 * stall for 25 s to meet a closed connection. An idle socket costs only a file descriptor; 30 s is also below the
 * 60 s idle timeout of common load balancers, which therefore close first and never hit a closed connection either.
 *
 * Slow clients: the request headers must arrive within 20 s (headersTimeout) and the whole request, at most
 * maxBodyBytes of body, within 60 s (requestTimeout), which bounds how long a slowloris can hold a connection.
 */
export function setTimeouts(server: http.Server): void {
  server.keepAliveTimeout = 5_000;
  server.keepAliveTimeoutBuffer = 25_000;
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
}

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
  setTimeouts(server);
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
