import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { RouterContextProvider } from "react-router";
import { database } from "#app/db/database.server.ts";
import { serverSecret } from "#app/db/secret.server.ts";
import type { Database } from "#app/db/schema.ts";
import { publicUrl } from "#app/domain/auth.server.ts";
import {
  accountContext,
  hasFlashCookie,
  hasValidSession,
  type SharedReader,
  sharedReaderContext,
} from "#app/http/session.server.ts";
import {
  isAccountKeyOf,
  parseVoteKey,
  rewrapVoteKey,
  unlockVoteKey,
  votedAmong,
} from "#app/domain/helpful-votes.server.ts";

/**
 * The vote key travels with the browser, never kept by the server
 * (docs/decisions/0016-helpful-votes-with-a-key-only-the-account-holds.md): an HttpOnly cookie set when the password is
 * at hand (sign-in, sign-up, password change) for a session's life, and cleared at sign-out. Over https it is a
 * `__Host-` cookie, like the session's.
 */
const sessionSeconds = 60 * 60 * 24 * 30;

function cookieName(): string {
  return publicUrl().startsWith("https://") ? "__Host-candor.vote_key" : "candor.vote_key";
}

function attributes(maxAge: number): string {
  const secure = publicUrl().startsWith("https://") ? "; Secure" : "";
  return `Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
}

export function setVoteKeyCookie(headers: Headers, voteKey: string): Headers {
  headers.append("Set-Cookie", `${cookieName()}=${voteKey}; ${attributes(sessionSeconds)}`);
  return headers;
}

export function clearVoteKeyCookie(headers: Headers): Headers {
  headers.append("Set-Cookie", `${cookieName()}=; ${attributes(0)}`);
  headers.append("Set-Cookie", `${pendingCookieName()}=; ${attributes(0)}`);
  return headers;
}

/**
 * The account key (first made for votes, so its cookie and the grant's field keep the name "vote key") a browser sent
 * back (its cookie), or an API client (the `Candor-Account-Key` header, or its older name `Candor-Vote-Key`); null
 * without.
 */
export function readVoteKey(request: Request): string | null {
  const header = request.headers.get("candor-account-key") ?? request.headers.get("candor-vote-key");
  if (header !== null) return parseVoteKey(header.trim());
  return voteKeyOfCookie(request.headers.get("cookie") ?? "");
}

/**
 * The account key the request carries when it is the signed-in account's own (checked against the keyed digest kept
 * with the account: docs/decisions/0046-reviews-wait-under-a-key-only-the-author-holds.md); null when there is none or
 * it is another's or made up. A read only: nothing is written about the account on the way to a vote or a review.
 */
export async function accountKeyOf(request: Request, userId: string): Promise<string | null> {
  const key = readVoteKey(request);
  return key && (await isAccountKeyOf(database().db, userId, key)) ? key : null;
}

/** The value of the cookie `name` in a Cookie request header, or undefined. */
function cookieValue(cookie: string, name: string): string | undefined {
  return new RegExp(`(?:^|;\\s*)${name.replace(".", "\\.")}=([^;]*)`).exec(cookie)?.[1];
}

/** The vote key in a Cookie request header, or null. */
function voteKeyOfCookie(cookie: string): string | null {
  return parseVoteKey(cookieValue(cookie, cookieName()));
}

/**
 * For the page cache (server/page-cache.ts, decision 0034): the reader of a page view with cookies when the page
 * kept for every signed-in reader may answer it (a valid session, and no cookie that makes this one view the
 * reader's own), else null.
 */
export async function sharedReaderOf(cookie: string): Promise<SharedReader | null> {
  if (hasFlashCookie(cookie) || !(await hasValidSession(cookie))) return null;
  return { voteKey: voteKeyOfCookie(cookie), personal: false };
}

/** Whether the holder of `voteKey` marked any of `reviewIds` helpful (a read on the primary: their own votes). */
export async function votedForAny(voteKey: string, reviewIds: readonly string[]): Promise<boolean> {
  return (await votedAmong(database().db, voteKey, reviewIds)).size > 0;
}

async function userIdOf(email: string): Promise<string | undefined> {
  const row = await database()
    .db.selectFrom("users")
    .select("id")
    .where("email", "=", email.trim().toLowerCase())
    .executeTakeFirst();
  return row?.id;
}

/** After a password was accepted for `email`: the account's vote key, opened with it (made if it has none). */
export async function voteKeyAfterPassword(email: string, password: string): Promise<string> {
  const userId = await userIdOf(email);
  if (!userId) throw new Error("A password was accepted for an address without an account.");
  return unlockVoteKey(database().db, userId, password);
}

/** Sets the vote key cookie on `headers` after a password was accepted for `email`. */
export async function withVoteKey(headers: Headers, email: string, password: string): Promise<Headers> {
  return setVoteKeyCookie(headers, await voteKeyAfterPassword(email, password));
}

/**
 * A sign-in that asks for a second factor has the password at its first step and not at its second, but the vote key
 * may reach the browser only once both are given: whoever has the password alone must not read or change the
 * account's votes. So the first step sets the key sealed (AES-256-GCM under a key derived from the server secret,
 * bound to the account and to an expiry ten minutes on, like the second step's own challenge), and the second step,
 * once the code is right, opens it for the account it signed in and sets the vote key cookie. The browser alone
 * cannot open it, and a sealed key of one account opens for no other.
 */
const pendingSeconds = 10 * 60;

function pendingCookieName(): string {
  return `${cookieName()}_pending`;
}

function pendingKey(secret: string): Buffer {
  return createHmac("sha256", secret).update("candor vote key waiting for a second factor").digest();
}

function pendingBinding(userId: string, expires: number): Buffer {
  return Buffer.from(`${userId}\u0000${expires}`, "utf8");
}

/** The vote key of `userId` sealed under `secret` until `pendingSeconds` after `now`, as a cookie's value. */
export function sealPendingVoteKey(secret: string, userId: string, voteKey: string, now = Date.now()): string {
  const expires = now + pendingSeconds * 1000;
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", pendingKey(secret), iv);
  cipher.setAAD(pendingBinding(userId, expires));
  const sealed = Buffer.concat([cipher.update(voteKey, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `${expires}.${iv.toString("base64url")}.${sealed.toString("base64url")}`;
}

/** The vote key in a value of `sealPendingVoteKey`, or null (malformed, expired, altered, another account's). */
export function openPendingVoteKey(secret: string, userId: string, value: string, now = Date.now()): string | null {
  const match = /^(\d{13,16})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{40,200})$/.exec(value);
  if (!match) return null;
  const expires = Number(match[1]);
  if (expires <= now) return null;
  const iv = Buffer.from(match[2]!, "base64url");
  const sealed = Buffer.from(match[3]!, "base64url");
  if (iv.length !== 12 || sealed.length <= 16) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", pendingKey(secret), iv);
    decipher.setAAD(pendingBinding(userId, expires));
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    const plain = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
    return parseVoteKey(plain.toString("utf8"));
  } catch {
    return null;
  }
}

/** At the password step of a sign-in that continues with a second factor: the vote key, sealed, on `headers`. */
export async function withPendingVoteKey(headers: Headers, email: string, password: string): Promise<Headers> {
  const userId = await userIdOf(email);
  if (!userId) throw new Error("A password was accepted for an address without an account.");
  const value = sealPendingVoteKey(serverSecret(), userId, await unlockVoteKey(database().db, userId, password));
  // A vote key this browser still holds (an account whose session ended elsewhere) must not outlive the sign-in of
  // another: it goes now, and the account's own comes with the second factor.
  headers.append("Set-Cookie", `${cookieName()}=; ${attributes(0)}`);
  headers.append("Set-Cookie", `${pendingCookieName()}=${value}; ${attributes(pendingSeconds)}`);
  return headers;
}

/**
 * After the second factor signed `userId` in: the vote key sealed at the password step, opened and set as the vote
 * key cookie, and the sealed one cleared.
 */
export function withVoteKeyAfterSecondFactor(headers: Headers, request: Request, userId: string): Headers {
  const sealed = cookieValue(request.headers.get("cookie") ?? "", pendingCookieName()) ?? "";
  const voteKey = openPendingVoteKey(serverSecret(), userId, sealed);
  if (voteKey) {
    setVoteKeyCookie(headers, voteKey);
    headers.append("Set-Cookie", `${pendingCookieName()}=; ${attributes(0)}`);
    return headers;
  }
  // Expired or dropped: no vote key at all rather than one left from before (the next sign-in brings it).
  return clearVoteKeyCookie(headers);
}

/** After a password change: the same vote key, wrapped under the new password, set again on `headers`. */
export async function withRewrappedVoteKey(
  headers: Headers,
  userId: string,
  passwords: { currentPassword: string; newPassword: string },
): Promise<Headers> {
  return setVoteKeyCookie(headers, await rewrapVoteKey(database().db, userId, passwords));
}

/**
 * What a page's vote controls need (app/components/helpful-vote.tsx): signed in or not, which of the shown reviews
 * this reader marked helpful (their receipts recomputed, a read), and the page's own address to come back to: the
 * loader's `url` argument, as `request.url` of a client-side navigation is the internal `.data` address.
 *
 * For the page kept for every signed-in reader (`sharedReaderContext`), the vote key comes from the page cache, the
 * shown reviews are noted for the cache's later check, and a reader who voted for one of them makes the page
 * personal: not kept.
 */
export async function voteStateOf(
  page: { context: Readonly<RouterContextProvider>; request: Request; url: URL; db: Kysely<Database> },
  reviews: ReadonlyArray<{ id: string }>,
): Promise<{ signedIn: boolean; voted: string[]; returnTo: string }> {
  const { context, request, url, db } = page;
  const ids = reviews.map((review) => review.id);
  const shared = context.get(sharedReaderContext);
  if (shared) {
    shared.shownReviews = ids;
    const voted = shared.voteKey ? [...(await votedAmong(db, shared.voteKey, ids))] : [];
    if (voted.length > 0) shared.personal = true;
    return { signedIn: true, voted, returnTo: `${url.pathname}${url.search}` };
  }
  const signedIn = context.get(accountContext) !== null;
  const voteKey = signedIn ? readVoteKey(request) : null;
  const voted = voteKey ? [...(await votedAmong(db, voteKey, ids))] : [];
  return { signedIn, voted, returnTo: `${url.pathname}${url.search}` };
}
