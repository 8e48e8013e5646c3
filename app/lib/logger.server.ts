import { pino } from "pino";
import { env } from "./env.server.ts";

/**
 * JSON logs on standard output, written asynchronously: a line is handed to the kernel as soon as the write before
 * it is done, so under load the lines of many requests go out in one write instead of one system call each on the
 * request's path. pino writes what is still buffered when the process exits, however it exits short of being killed.
 */
const destination = pino.destination({ dest: 1, sync: false });

/**
 * Never log request bodies, and never put an IP next to a review id (docs/data-model.md, what is never stored);
 * credentials and e-mail addresses are taken out of whatever is logged.
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
  destination,
);

/**
 * The request log (server/app.ts): one line per request of fixed fields (id, method, path without its query, status,
 * duration, cache), none of them from the request's headers or body, so there is nothing to redact and the
 * redaction's walk over every field is left out.
 */
export const requestLogger = pino({ level: env().LOG_LEVEL, base: undefined }, destination);
