import { createHash, randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "#app/db/schema.ts";
import type { Auth } from "#app/domain/auth.server.ts";
import { dayMs, dayOf } from "#app/lib/account-stamps.ts";
import { sessionsRevoked } from "#app/lib/session-revocation.server.ts";
import { currentAccount, signIn, verifyTotp } from "./accounts.server.ts";

/**
 * Tokens for JSON API clients, as Supabase Auth does them: signing in gives a short-lived access token and a
 * refresh token; refreshing spends the refresh token and returns a new pair; presenting a spent refresh token
 * again means it was stolen or replayed, so the whole family (the better-auth session behind it) is revoked.
 */
export const accessTokenSeconds = 15 * 60;
export const refreshTokenSeconds = 30 * 24 * 60 * 60;

export type TokenPair = {
  access_token: string;
  token_type: "bearer";
  expires_in: number;
  /** Unix time in seconds. */
  expires_at: number;
  refresh_token: string;
};

function digest(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * An access token carries its own expiry after its random part (`<43 characters>.<expiry in ms, base 36>`). The
 * database keeps only the token's SHA-256, which covers the expiry too, so a client cannot move it, and the stored
 * row says when it was issued no finer than the day (decision 0050): an expiry stored to the minute, 15 minutes after
 * a sign-in or a refresh, would date that moment as finely as the request log does.
 */
function accessTokenExpiry(token: string): number | undefined {
  const match = /^[\w-]{43}\.([0-9a-z]{1,12})$/.exec(token);
  return match ? parseInt(match[1]!, 36) : undefined;
}

/** Issues a fresh access and refresh token for a session (the token family). */
export async function issueTokenPair(db: Kysely<Database>, sessionId: string, now = Date.now()): Promise<TokenPair> {
  const accessExpiresAt = now + accessTokenSeconds * 1000;
  const access = `${newToken()}.${accessExpiresAt.toString(36)}`;
  const refresh = newToken();
  await db
    .insertInto("api_tokens")
    .values([
      {
        token_hash: digest(access),
        session_id: sessionId,
        kind: "access",
        // The end of the day it expires in: the row outlives the token by less than a day.
        expires_at: dayOf(accessExpiresAt).getTime() + dayMs,
      },
      {
        token_hash: digest(refresh),
        session_id: sessionId,
        kind: "refresh",
        expires_at: dayOf(now + refreshTokenSeconds * 1000).getTime(),
      },
    ])
    .execute();
  return {
    access_token: access,
    token_type: "bearer",
    expires_in: accessTokenSeconds,
    expires_at: Math.floor(accessExpiresAt / 1000),
    refresh_token: refresh,
  };
}

export type RefreshOutcome = { ok: true; pair: TokenPair } | { ok: false; reason: "unknown" | "expired" | "reused" };

/**
 * Spends a refresh token. A second use of the same token revokes its family: the session and every token of it.
 */
export async function refreshTokenPair(
  db: Kysely<Database>,
  refreshToken: string,
  now = Date.now(),
): Promise<RefreshOutcome> {
  const hash = digest(refreshToken);
  const outcome = await db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom("api_tokens")
      .select(["session_id", "expires_at", "used"])
      .where("token_hash", "=", hash)
      .where("kind", "=", "refresh")
      .executeTakeFirst();
    if (!row) return { ok: false, reason: "unknown" } as const;
    // Spend it only if nobody else has: of two concurrent refreshes with one token, exactly one wins.
    const spent = await trx
      .updateTable("api_tokens")
      .set({ used: 1 })
      .where("token_hash", "=", hash)
      .where("used", "=", 0)
      .executeTakeFirst();
    if (Number(spent.numUpdatedRows) !== 1) {
      await trx.deleteFrom("sessions").where("id", "=", row.session_id).execute();
      return { ok: false, reason: "reused" } as const;
    }
    if (Number(row.expires_at) <= now) return { ok: false, reason: "expired" } as const;
    const session = await trx
      .selectFrom("sessions")
      .select("expiresAt")
      .where("id", "=", row.session_id)
      .executeTakeFirst();
    if (!session) return { ok: false, reason: "unknown" } as const;
    // Access tokens of an expired session never authenticate: refuse, rather than hand out a useless pair.
    if (new Date(session.expiresAt).getTime() <= now) return { ok: false, reason: "expired" } as const;
    return { ok: true, pair: await issueTokenPair(trx, row.session_id, now) } as const;
  });
  if (!outcome.ok && outcome.reason === "reused") sessionsRevoked();
  return outcome;
}

/**
 * The user and session behind a valid, unexpired access token, with the moment (ms) it stops being valid: its own
 * expiry or its session's, whichever comes first. Undefined for an unknown or expired token.
 */
export async function authenticateAccessToken(
  db: Kysely<Database>,
  accessToken: string,
  now = Date.now(),
): Promise<{ userId: string; sessionId: string; validUntil: number } | undefined> {
  const row = await db
    .selectFrom("api_tokens")
    .innerJoin("sessions", "sessions.id", "api_tokens.session_id")
    .select([
      "sessions.userId as userId",
      "sessions.id as sessionId",
      "sessions.expiresAt as sessionExpiresAt",
      "api_tokens.expires_at",
    ])
    .where("api_tokens.token_hash", "=", digest(accessToken))
    .where("api_tokens.kind", "=", "access")
    .executeTakeFirst();
  const expiresAt = accessTokenExpiry(accessToken);
  if (!row || expiresAt === undefined) return undefined;
  const validUntil = Math.min(expiresAt, Number(row.expires_at), new Date(row.sessionExpiresAt).getTime());
  if (validUntil <= now) return undefined;
  return { userId: row.userId, sessionId: row.sessionId, validUntil };
}

/** Ends the family of a refresh token (API sign-out). Unknown tokens are ignored. */
export async function revokeTokenFamily(db: Kysely<Database>, refreshToken: string): Promise<void> {
  const row = await db
    .selectFrom("api_tokens")
    .select("session_id")
    .where("token_hash", "=", digest(refreshToken))
    .executeTakeFirst();
  if (!row) return;
  await db.deleteFrom("sessions").where("id", "=", row.session_id).execute();
  sessionsRevoked();
}

/** A Cookie request header carrying the cookies that a better-auth response set. */
function cookieHeaderFrom(setCookies: Headers): Headers {
  const pairs = setCookies.getSetCookie().map((cookie) => cookie.split(";")[0]);
  return new Headers({ cookie: pairs.join("; ") });
}

export type PasswordGrant =
  | { ok: true; pair: TokenPair }
  | { ok: false; reason: "invalid_credentials" | "two_factor_required" | "invalid_code"; message: string };

/**
 * Signs in an API client with e-mail and password (and a TOTP code when the account has two-factor on), and opens
 * a token family on a fresh better-auth session.
 */
export async function passwordGrant(
  auth: Auth,
  db: Kysely<Database>,
  input: { email: string; password: string; totpCode?: string | undefined },
  headers: Headers,
): Promise<PasswordGrant> {
  const signedIn = await signIn(auth, input, headers);
  if (!signedIn.ok) return { ok: false, reason: "invalid_credentials", message: signedIn.message };
  let sessionCookies = signedIn.headers;
  if (signedIn.value.twoFactor) {
    if (!input.totpCode) {
      return {
        ok: false,
        reason: "two_factor_required",
        message: "This account uses two-factor authentication: send totp_code too.",
      };
    }
    const verified = await verifyTotp(auth, { code: input.totpCode }, cookieHeaderFrom(signedIn.headers));
    if (!verified.ok) return { ok: false, reason: "invalid_code", message: verified.message };
    sessionCookies = verified.headers;
  }
  const account = await currentAccount(auth, cookieHeaderFrom(sessionCookies));
  if (!account) throw new Error("better-auth signed in without a session.");
  return { ok: true, pair: await issueTokenPair(db, account.sessionId) };
}
