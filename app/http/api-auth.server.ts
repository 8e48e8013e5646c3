import { database } from "#app/db/database.server.ts";
import { authenticateAccessToken } from "#app/domain/api-tokens.server.ts";

/** The account behind an `Authorization: Bearer` access token, or undefined (absent, unknown, expired). */
export async function bearerAccount(request: Request): Promise<{ userId: string; sessionId: string } | undefined> {
  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer ([A-Za-z0-9_-]{20,200})$/.exec(header);
  if (!match) return undefined;
  return authenticateAccessToken(database().db, match[1]!);
}
