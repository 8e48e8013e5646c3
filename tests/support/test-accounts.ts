import { base32 } from "@better-auth/utils/base32";
import { createOTP } from "@better-auth/utils/otp";
import type { Kysely } from "kysely";
import type { Database } from "#app/db/schema.ts";
import type { TestDatabase } from "#tests/support/test-database.ts";
import { type Auth, createAuth } from "#app/domain/auth.server.ts";
import { currentAccount, signIn, signUp, startTwoFactor, verifyTotp } from "#app/domain/accounts.server.ts";

/**
 * Accounts for integration tests, made through the real better-auth instance on the test database. The
 * mail that sign-up sends lands in the test file's private outbox (test-outbox.ts, loaded by the Vitest setup file).
 */

export const testAuthSecret = "candor-integration-test-secret-0123456789";
export const testPassword = "violet tractor sings quietly";

export function createTestAuth(database: TestDatabase): Auth {
  return createAuth(database.db, database.engine, testAuthSecret);
}

/** better-auth's columns that the application never reads itself, typed for the tests that look at them. */
type AuthTables = {
  sessions: { ipAddress: string | null; userAgent: string | null; createdAt: Date | string; updatedAt: Date | string };
  accounts: { id: string; userId: string; providerId: string; password: string | null };
  verifications: { id: string; identifier: string; value: string; expiresAt: Date | string };
};

export function withAuthTables(db: Kysely<Database>) {
  return db.withTables<AuthTables>();
}

/** The Cookie request header a browser sends back after these Set-Cookie response headers. */
export function cookieHeader(setCookies: Headers): Headers {
  const pairs = setCookies
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0] ?? "")
    .filter((pair) => !pair.endsWith("="));
  return new Headers({ cookie: pairs.join("; ") });
}

export type TestAccount = { userId: string; email: string; password: string; headers: Headers };

/** Signs up, and returns the request headers of the browser that did (signed in). */
export async function signUpAccount(auth: Auth, email = "ada@example.com", password = testPassword) {
  const result = await signUp(auth, { email, password }, new Headers());
  if (!result.ok) throw new Error(`Sign-up failed: ${result.message}`);
  const headers = cookieHeader(result.headers);
  const account = await currentAccount(auth, headers);
  if (!account) throw new Error("Sign-up left no session.");
  return { userId: account.user.id, email, password, headers } satisfies TestAccount;
}

/** Signs in (without a second factor) and returns the request headers of that new session. */
export async function signInAccount(auth: Auth, account: { email: string; password: string }): Promise<Headers> {
  const result = await signIn(auth, account, new Headers());
  if (!result.ok || result.value.twoFactor) throw new Error("Sign-in did not open a session.");
  return cookieHeader(result.headers);
}

/** Whether this e-mail and password sign in (to a session, or to a second-factor challenge). */
export async function passwordSignsIn(auth: Auth, email: string, password: string): Promise<boolean> {
  return (await signIn(auth, { email, password }, new Headers())).ok;
}

/** The current code for the secret of an otpauth:// URI, computed as better-auth's two-factor plugin does. */
export async function totpCode(totpURI: string): Promise<string> {
  const secret = new URL(totpURI).searchParams.get("secret");
  if (!secret) throw new Error("The TOTP URI carries no secret.");
  return createOTP(base32.decode(secret)).totp();
}

/** A six-digit code that is not the current one (nor, but for a one-in-a-million chance, its neighbours). */
export async function wrongTotpCode(totpURI: string): Promise<string> {
  return String((Number(await totpCode(totpURI)) + 500_000) % 1_000_000).padStart(6, "0");
}

/** Turns two-factor on (set-up, then a first code) and returns its URI, backup codes and the re-issued session. */
export async function enableTwoFactor(auth: Auth, account: TestAccount) {
  const setup = await startTwoFactor(auth, account.password, account.headers);
  if (!setup.ok) throw new Error(`Two-factor set-up failed: ${setup.message}`);
  const confirmed = await verifyTotp(auth, { code: await totpCode(setup.value.totpURI) }, account.headers);
  if (!confirmed.ok) throw new Error(`Two-factor confirmation failed: ${confirmed.message}`);
  return { ...setup.value, headers: cookieHeader(confirmed.headers) };
}
