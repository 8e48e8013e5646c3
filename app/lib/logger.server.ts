import cluster from "node:cluster";
import { pino } from "pino";
import { env } from "./env.server.ts";

/**
 * JSON logs on standard output, written asynchronously: a line is handed to the kernel as soon as the write before
 * it is done, so under load the lines of many requests go out in one write instead of one system call each on the
 * request's path. pino writes what is still buffered when the process exits, however it exits short of being killed.
 */
const destination = pino.destination({ dest: 1, sync: false });

/**
 * Which process wrote a line: its worker number (1, 2, ... as node:cluster numbers them, a replacement getting the
 * next), 0 for the cluster's primary or a server run as one process. Nothing about the request's person.
 */
const base = { worker: cluster.isWorker ? cluster.worker!.id : 0 };

/**
 * Never log request bodies, and never put an IP next to a review id (docs/data-model.md, what is never stored);
 * credentials and e-mail addresses are taken out of whatever is logged.
 */
export const logger = pino(
  {
    level: env().LOG_LEVEL,
    base,
    redact: {
      paths: ["req.headers.cookie", "req.headers.authorization", "*.password", "*.email"],
      remove: true,
    },
  },
  destination,
);

/**
 * The lines logged in one turn of the event loop, handed to `destination` as one text at the end of the turn. Given
 * line by line, the destination would append each to the text still waiting for the write under way and measure
 * that text's length in bytes again, which makes V8 copy it whole every time: under load about 4 KB per request
 * (docs/performance.md). What is gathered is written at exit too, as pino writes what its destination holds.
 */
export function gatheredPerTurn(into: { write(text: string): unknown; flushSync(): void; destroyed?: boolean }) {
  let lines: string[] = [];
  let scheduled = false;
  const hand = () => {
    scheduled = false;
    if (lines.length === 0) return;
    const text = lines.join("");
    lines = [];
    into.write(text);
  };
  const flushSync = () => {
    hand();
    into.flushSync();
  };
  process.once("exit", () => {
    if (!into.destroyed) flushSync();
  });
  return {
    write(line: string): boolean {
      lines.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(hand);
      }
      return true;
    },
    flushSync,
  };
}

/**
 * The request log's time: the minute (decision 0051). To the millisecond, a line dated each contribution finer than
 * its publication batch, and could be laid beside any other stamp (a transaction's commit, a session's).
 */
export function minuteOf(at = Date.now()): string {
  return `${new Date(at).toISOString().slice(0, 16)}Z`;
}

/**
 * The request log (server/app.ts): one line per request of fixed fields (method, route pattern, status, duration,
 * cache) dated to the minute, none of them from the request's headers or body, so there is nothing to redact and the
 * redaction's walk over every field is left out. Its lines are gathered per turn of the event loop.
 */
export const requestLogger = pino(
  { level: env().LOG_LEVEL, base, timestamp: () => `,"time":"${minuteOf()}"` },
  gatheredPerTurn(destination),
);
