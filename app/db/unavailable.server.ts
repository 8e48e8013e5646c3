/**
 * Whether an error means "the database cannot be reached right now" (refused or lost connection, server shutting
 * down or starting up) rather than a fault of the request or of our code. Such errors are answered 503 with
 * Retry-After, and the pool reconnects by itself once the server is back.
 */

/** Seconds a client should wait before trying again while the database is unavailable. */
export const unavailableRetryAfterSeconds = 5;

// Node's socket errors on connect, read or write (ENOENT only for a Unix socket that is gone, see below).
const socketCodes = new Set(["ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH"]);
// PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01 admin_shutdown, 57P02 crash_shutdown,
// 57P03 cannot_connect_now (starting up or shutting down), 53300 too_many_connections.
const sqlStates = /^(08...|57P0[123]|53300)$/;
// What node-postgres throws without a code: a connection that ended, or a pool that waited too long for one.
const messages =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/;

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== "object" || error === null) return false;
  const { code, syscall, message, cause, errors } = error as Record<string, unknown>;
  if (typeof code === "string" && (socketCodes.has(code) || sqlStates.test(code))) return true;
  if (code === "ENOENT" && syscall === "connect") return true;
  if (typeof message === "string" && messages.test(message)) return true;
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}
