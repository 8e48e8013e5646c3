import type { Kysely } from "kysely";
import { database } from "#app/db/database.server.ts";
import type { Database } from "#app/db/schema.ts";
import { authenticateAccessToken } from "#app/domain/api-tokens.server.ts";
import { rememberedUntilSessionsEnd } from "#app/lib/session-revocation.server.ts";

type BearerAccount = { userId: string; sessionId: string };

const verifiedTokens = rememberedUntilSessionsEnd<BearerAccount>(10_000);

/**
 * The account behind an `Authorization: Bearer` access token, or undefined (absent, unknown, expired). A token found
 * valid is believed as a session cookie is (`rememberedUntilSessionsEnd`): for a while, never past its own or its
 * session's expiry, and only until a session ends anywhere (a sign-out, a revoked token family, a deleted account).
 */
export async function bearerAccount(
  request: Request,
  { db = database().db, now = Date.now() }: { db?: Kysely<Database>; now?: number } = {},
): Promise<BearerAccount | undefined> {
  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer ([A-Za-z0-9._-]{20,200})$/.exec(header);
  if (!match) return undefined;
  const token = match[1]!;
  return verifiedTokens.check(token, now, async () => {
    const found = await authenticateAccessToken(db, token, now);
    if (!found) return undefined;
    const { validUntil, ...account } = found;
    return { value: account, expiresAt: validUntil };
  });
}
