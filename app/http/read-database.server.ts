import type { Kysely } from "kysely";
import type { RouterContextProvider } from "react-router";
import { database } from "#app/db/database.server.ts";
import { replicaUsableForRead } from "#app/db/replica-health.server.ts";
import type { Database } from "#app/db/schema.ts";
import { sharedReaderContext } from "#app/http/session.server.ts";

/**
 * Where a read for this request goes. With DATABASE_READ_URL, visitors without a cookie or credentials (the
 * readers the page cache serves) read from the streaming replica, which may lag the primary by a moment; anyone who
 * sends a cookie or a token may have just written, and reads from the primary, so they see their own writes. So
 * does the page kept for signed-in readers (`context` with `sharedReaderContext`, decision 0034), which reaches
 * React Router without its reader's cookies. While the replica is down or too far behind (app/db/replica-health.server.ts)
 * they read the primary too.
 */
export function readerFor(request: Request, context?: Readonly<RouterContextProvider>): Kysely<Database> {
  const handle = database();
  if (!handle.replica || request.headers.has("cookie") || request.headers.has("authorization")) return handle.db;
  if (context?.get(sharedReaderContext)) return handle.db;
  return replicaUsableForRead() ? handle.read : handle.db;
}
