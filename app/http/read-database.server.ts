import type { Kysely } from "kysely";
import { database } from "#app/db/database.server.ts";
import type { Database } from "#app/db/schema.ts";

/**
 * Where a read for this request goes. With DATABASE_READ_URL, visitors without a cookie or credentials (the
 * readers the page cache serves) read from the streaming replica, which may lag the primary by a moment; anyone who
 * sends a cookie or a token may have just written, and reads from the primary, so they see their own writes.
 */
export function readerFor(request: Request): Kysely<Database> {
  const handle = database();
  if (!handle.replica || request.headers.has("cookie") || request.headers.has("authorization")) return handle.db;
  return handle.read;
}
