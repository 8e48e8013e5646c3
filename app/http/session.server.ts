import { createContext, redirect, type RouterContextProvider } from "react-router";
import { type AccountUser, currentAccount } from "#app/domain/accounts.server.ts";
import { type Auth, auth, publicUrl } from "#app/domain/auth.server.ts";
import { database } from "#app/db/database.server.ts";
import { rememberedUntilSessionsEnd } from "#app/lib/session-revocation.server.ts";
import { type Moderator, moderatorOf } from "#app/domain/moderation.server.ts";
import { type PublicationNoteKind, toastTexts } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";

/** The signed-in account of this request, or null; set once per request by the root middleware. */
export const accountContext = createContext<AccountUser | null>(null);

/** True when the request carries a session cookie at all; visitors without one cost no database query. */
function hasSessionCookie(request: Request): boolean {
  return /(?:^|;\s*)(?:__Host-)?candor\.session_token=/.test(request.headers.get("cookie") ?? "");
}

/**
 * A request answered with the page kept for every signed-in reader (server/page-cache.ts, decision 0034): it
 * reaches React Router without its cookies, so no account is loaded (`accountContext` stays null) and nothing of an
 * account can be rendered into the page. What it carries of the reader is only that a valid session was shown, and
 * the reader's vote key, used for nothing but which of the shown reviews they marked helpful (`voteStateOf`). The
 * loader notes the reviews it shows (`shownReviews`), and `personal` when the reader voted for one of them: such
 * a page is this reader's own and is never kept.
 */
export type SharedReader = { voteKey: string | null; shownReviews?: string[]; personal: boolean };

export const sharedReaderContext = createContext<SharedReader | null>(null);

/** Whether the page is for a signed-in reader: the request's own account, or the page kept for all of them. */
export function isSignedIn(context: Readonly<RouterContextProvider>): boolean {
  return context.get(accountContext) !== null || context.get(sharedReaderContext) !== null;
}

// Cookies that make a page this reader's own for one view (a toast, a note after a submission, a review key): such
// a request is rendered as it always was.
const flashCookie = /(?:^|;\s*)candor_(?:toast|note|badge|review_key)=/;

const verifiedSessions = rememberedUntilSessionsEnd<boolean>(10_000);

function sessionCookieName(): string {
  return publicUrl().startsWith("https://") ? "__Host-candor.session_token" : "candor.session_token";
}

/**
 * Whether `cookie` (a Cookie request header) carries a session that better-auth accepts. A session found valid is
 * believed for a while, never past its own expiry, until a session ends anywhere (`rememberedUntilSessionsEnd`).
 */
export async function hasValidSession(cookie: string, instance: Auth = auth()): Promise<boolean> {
  const name = sessionCookieName().replace(".", "\\.");
  const value = new RegExp(`(?:^|;\\s*)${name}=([^;]+)`).exec(cookie)?.[1];
  if (!value) return false;
  const valid = await verifiedSessions.check(value, Date.now(), async () => {
    const session = await currentAccount(instance, new Headers({ cookie }), { refresh: true });
    return session ? { value: true, expiresAt: session.expiresAt.getTime() } : undefined;
  });
  return valid ?? false;
}

/** Whether `cookie` (a Cookie request header) makes this one page view the reader's own (a toast, a note, a key). */
export function hasFlashCookie(cookie: string): boolean {
  return flashCookie.test(cookie);
}

/**
 * The signed-in account of a request. Sessions are never refreshed (decision 0050: better-auth's
 * `disableSessionRefresh`), so no request writes anything for the account; a form post (a review submission above
 * all) asks better-auth not to refresh even if that setting were ever lifted.
 */
export async function loadAccount(request: Request): Promise<AccountUser | null> {
  if (!hasSessionCookie(request)) return null;
  const refresh = request.method === "GET" || request.method === "HEAD";
  const session = await currentAccount(auth(), request.headers, { refresh });
  return session?.user ?? null;
}

/**
 * Guard for pages that need an account: signed-out visitors go to sign in, and come back afterwards. `url` is the
 * loader's or action's own `url` argument, the page's address: `request.url` of a client-side navigation is the
 * internal `.data` address, which is no page to come back to.
 */
export function requireAccount(context: Readonly<RouterContextProvider>, url: URL): AccountUser {
  const account = context.get(accountContext);
  if (account) return account;
  throw redirect(paths.signIn(`${url.pathname}${url.search}`));
}

/** Guard for sign-in and sign-up: a signed-in user is sent to the home page. */
export function requireAnonymous(context: Readonly<RouterContextProvider>): void {
  if (context.get(accountContext)) throw redirect(paths.home());
}

// Toasts survive the redirect after a form in a short-lived cookie, read once by the next page. Over https (PUBLIC_URL)
// these cookies are Secure, as the session's are: what a reader just did never travels over plain HTTP.
const flashAttributes = (maxAge: number) =>
  `Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${publicUrl().startsWith("https://") ? "; Secure" : ""}`;
const toastCookie = "candor_toast";
export type ToastKind = keyof typeof toastTexts;
const toastKinds = Object.keys(toastTexts);

export function setToast(headers: Headers, kind: ToastKind): Headers {
  headers.append("Set-Cookie", `${toastCookie}=${kind}; ${flashAttributes(60)}`);
  return headers;
}

export function readToast(request: Request): ToastKind | null {
  const match = /(?:^|;\s*)candor_toast=([a-z-]+)/.exec(request.headers.get("cookie") ?? "");
  const kind = match?.[1];
  return toastKinds.includes(kind ?? "") ? (kind as ToastKind) : null;
}

export const clearToastCookie = () => `${toastCookie}=; ${flashAttributes(0)}`;

// Beside the toast, the note of when a queued submission will appear; it stays on the page it leads to.
const noteCookie = "candor_note";
const noteKinds: readonly PublicationNoteKind[] = ["review", "company", "manager", "new-manager"];

export function setPublicationNote(headers: Headers, kind: PublicationNoteKind): Headers {
  headers.append("Set-Cookie", `${noteCookie}=${kind}; ${flashAttributes(60)}`);
  return headers;
}

export function readPublicationNote(request: Request): PublicationNoteKind | null {
  const match = /(?:^|;\s*)candor_note=([a-z-]+)/.exec(request.headers.get("cookie") ?? "");
  const kind = match?.[1] as PublicationNoteKind | undefined;
  return kind && noteKinds.includes(kind) ? kind : null;
}

export const clearPublicationNoteCookie = `${noteCookie}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`;
// The review's one-time key, shown once on the page a submission leads to (docs/moderation.md), then cleared.
const reviewKeyCookie = "candor_review_key";
const reviewKeyPattern = /^[A-Za-z0-9_-]{22}$/;

export function setReviewKey(headers: Headers, key: string): Headers {
  headers.append("Set-Cookie", `${reviewKeyCookie}=${key}; Path=/; Max-Age=300; HttpOnly; SameSite=Lax`);
  return headers;
}

export function readReviewKey(request: Request): string | null {
  const key = /(?:^|;\s*)candor_review_key=([^;]*)/.exec(request.headers.get("cookie") ?? "")?.[1] ?? "";
  return reviewKeyPattern.test(key) ? key : null;
}

export const clearReviewKeyCookie = `${reviewKeyCookie}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`;

export const toastContext = createContext<ToastKind | null>(null);

/**
 * Guard for moderators' pages: signed-out visitors go to sign in; a signed-in account without a moderation role gets
 * null, for the page to answer 403.
 */
export async function moderatorOrNull(context: Readonly<RouterContextProvider>, url: URL): Promise<Moderator | null> {
  const account = requireAccount(context, url);
  return (await moderatorOf(database().db, account.id)) ?? null;
}
// Beside the note, what became of a verification token sent with the review: the badge comes, or why it does not.
const badgeCookie = "candor_badge";

export function setBadgeNote(headers: Headers, badge: { shown: boolean; domain: string }): Headers {
  const value = `${badge.shown ? "shown" : "withheld"}.${badge.domain}`;
  headers.append("Set-Cookie", `${badgeCookie}=${value}; Path=/; Max-Age=60; HttpOnly; SameSite=Lax`);
  return headers;
}

export function readBadgeNote(request: Request): { shown: boolean; domain: string } | null {
  const match = /(?:^|;\s*)candor_badge=(shown|withheld)\.([a-z0-9.-]{1,253})(?:;|$)/.exec(
    request.headers.get("cookie") ?? "",
  );
  return match ? { shown: match[1] === "shown", domain: match[2]! } : null;
}

export const clearBadgeNoteCookie = `${badgeCookie}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`;
