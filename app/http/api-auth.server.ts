import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { Kysely } from "kysely";
import { database } from "#app/db/database.server.ts";
import type { Database } from "#app/db/schema.ts";
import { authenticateAccessToken } from "#app/domain/api-tokens.server.ts";
import { cacheUsable } from "#app/lib/data-version.server.ts";
import { sessionGeneration } from "#app/lib/session-revocation.server.ts";
import { verifiedSessionMs } from "./session.server.ts";

type BearerAccount = { userId: string; sessionId: string };

const verifiedTokens = new LRUCache<string, BearerAccount & { until: number; generation: number }>({ max: 10_000 });

/**
 * The account behind an `Authorization: Bearer` access token, or undefined (absent, unknown, expired). A token found
 * valid is believed as a session cookie is (app/http/session.server.ts, `hasValidSession`): for `verifiedSessionMs`
 * at most, never past its own or its session's expiry, under the SHA-256 of the token, and only until a session ends
 * anywhere (a sign-out, a revoked token family, a deleted account: app/lib/session-revocation.server.ts) or while
 * the channel that says so is lost. A refusal is never remembered.
 */
export async function bearerAccount(
  request: Request,
  { db = database().db, now = Date.now() }: { db?: Kysely<Database>; now?: number } = {},
): Promise<BearerAccount | undefined> {
  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer ([A-Za-z0-9_-]{20,200})$/.exec(header);
  if (!match) return undefined;
  const token = match[1]!;
  const key = createHash("sha256").update(token).digest("base64url");
  const generation = sessionGeneration();
  const usable = cacheUsable();
  const known = usable ? verifiedTokens.get(key) : undefined;
  if (known && known.generation === generation && known.until > now) {
    return { userId: known.userId, sessionId: known.sessionId };
  }
  const found = await authenticateAccessToken(db, token, now);
  if (!found) {
    verifiedTokens.delete(key);
    return undefined;
  }
  const { validUntil, ...account } = found;
  // A session that ended while the token was being checked is not remembered.
  if (usable && sessionGeneration() === generation) {
    verifiedTokens.set(key, { ...account, until: Math.min(now + verifiedSessionMs, validUntil), generation });
  }
  return account;
}
