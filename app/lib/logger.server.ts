import { pino } from "pino";
import { env } from "./env.server.ts";

/**
 * JSON logs on standard output. Never log request bodies, and never put an IP next to a review id
 * (docs/data-model.md, what is never stored).
 *
 * Written asynchronously: a line is handed to the kernel as soon as the write before it is done, so under load the
 * lines of many requests go out in one write instead of one system call each on the request's path. pino writes
 * what is still buffered when the process exits, however it exits short of being killed.
 */
export const logger = pino(
  {
    level: env().LOG_LEVEL,
    base: undefined,
    redact: {
      paths: ["req.headers.cookie", "req.headers.authorization", "*.password", "*.email"],
      remove: true,
    },
  },
  pino.destination({ dest: 1, sync: false }),
);
