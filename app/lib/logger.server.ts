import { pino } from "pino";
import { env } from "./env.server.ts";

/**
 * JSON logs. Never log request bodies, and never put an IP next to a review id (docs/data-model.md, what is never stored).
 */
export const logger = pino({
  level: env().LOG_LEVEL,
  base: undefined,
  redact: {
    paths: ["req.headers.cookie", "req.headers.authorization", "*.password", "*.email"],
    remove: true,
  },
});
