import { APIError } from "better-auth/api";
import type { Kysely } from "kysely";
import { z } from "zod";
import { accountTables, eraseDeleted } from "#app/db/erase.server.ts";
import type { Database } from "#app/db/schema.ts";
import { runInBackground } from "#app/lib/background.server.ts";
import { hasControlCharacters } from "#app/lib/control-characters.ts";
import { contributionMessages } from "#app/lib/messages.ts";
import { type Auth, checkPassword, signInChecked } from "#app/domain/auth.server.ts";
import {
  newPasswordProblem,
  newPasswordSchema,
  newPasswordSchemaFor,
  passwordMessages,
} from "./password-policy.server.ts";

/** The texts of the accounts area; the first is the spec's. */
export const accountMessages = {
  invalidCredentials: "Invalid email or password",
  emailInvalid: "Enter a valid e-mail address.",
  emailTaken: "An account with this e-mail address already exists. Sign in, or reset its password.",
  resetSent:
    "If an account uses this e-mail address, we have sent it a link to choose a new password. The link works once, within one hour.",
  resetInvalid: "This password reset link is invalid or has expired. Ask for a new one.",
  passwordChanged: "Your password is changed. Your other sessions are signed out.",
  currentPasswordWrong: "Your current password is not correct.",
  verificationSent: "We have sent you a link to confirm your e-mail address.",
  verificationInvalid: "This confirmation link is invalid or has expired. Ask for a new one from your account page.",
  emailVerified: "Your e-mail address is confirmed.",
  codeInvalid: "This code is not correct. Check your authenticator app and try again.",
  twoFactorEnabled: "Two-factor authentication is on.",
  twoFactorDisabled: "Two-factor authentication is off.",
  signedOutEverywhere: "You are signed out on every device.",
  accountDeleted: "Your account is deleted. Your reviews stay published: they were never linked to it.",
} as const;

const email = z.string().trim().toLowerCase().max(254).pipe(z.email(accountMessages.emailInvalid));

/** An address typed to sign in: not checked as an address (that would tell), but never with control characters. */
export const signInEmailSchema = z
  .string()
  .trim()
  .max(254, accountMessages.invalidCredentials)
  .refine((address) => !hasControlCharacters(address), accountMessages.invalidCredentials);

/**
 * The token of a mailed link, as it came back: better-auth makes letters and digits (reset) or a JWT (e-mail
 * confirmation). Anything else, a NUL byte among it, is an invalid link before any database sees it.
 */
const linkTokenSchema = z
  .string()
  .min(1)
  .max(500)
  .regex(/^[\w.~-]+$/);

/** Spec: sign-in submits only when the e-mail is longer than 5 characters and the password longer than 2. */
export const signInSchema = z.object({
  email: signInEmailSchema.pipe(z.string().min(6, accountMessages.invalidCredentials)),
  password: z.string().min(3, accountMessages.invalidCredentials).max(1000, accountMessages.invalidCredentials),
});

/** The password is checked against the address typed with it: one rating of its strength, not one per rule. */
export const signUpSchema = z.object({ email, password: z.string() }).superRefine((input, context) => {
  if (typeof input.password !== "string") return;
  const problem = newPasswordProblem(input.password, input.email);
  if (problem) context.addIssue({ code: "custom", path: ["password"], message: problem });
});
export const emailSchema = z.object({ email });
export const resetPasswordSchema = z.object({ token: linkTokenSchema, password: newPasswordSchema });
/** A password change of the account of `email`: the new password must not be guessable from the address either. */
export function changePasswordSchemaFor(email: string) {
  return z.object({
    currentPassword: z.string().min(1, accountMessages.currentPasswordWrong).max(1000),
    newPassword: newPasswordSchemaFor(email),
  });
}
export const passwordSchema = z.object({ password: z.string().min(1, accountMessages.currentPasswordWrong).max(1000) });
export const codeSchema = z.object({
  code: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9-]{6,20}$/, accountMessages.codeInvalid),
  trustDevice: z.literal("on").optional(),
});

export type AccountResult<T = undefined> =
  { ok: true; headers: Headers; value: T } | { ok: false; message: string; status: number };

function failure(message: string, status = 400): { ok: false; message: string; status: number } {
  return { ok: false, message, status };
}

/** Set-Cookie headers that better-auth returned, to forward on our own response. */
function cookiesOf(headers: Headers): Headers {
  const forwarded = new Headers();
  for (const cookie of headers.getSetCookie()) forwarded.append("Set-Cookie", cookie);
  return forwarded;
}

function isApiError(error: unknown): error is APIError {
  return error instanceof APIError;
}

/** A refusal of the new password by the password rule (auth.server.ts's hook), said as the rule says it. */
function passwordRefusalOf(error: APIError): string | undefined {
  const said: unknown = error.body?.message;
  return Object.values(passwordMessages).find((message) => message === said);
}

/**
 * Runs a better-auth call. A refusal (a 4xx from better-auth) becomes `message` with `status`, or the password rule's
 * own message when that refused; anything else is a fault and is thrown. The cookies the call set are kept for the
 * caller to forward.
 */
async function attempt<T>(
  call: () => Promise<{ headers?: Headers; value: T }>,
  message: string,
  status = 400,
): Promise<AccountResult<T>> {
  try {
    const { headers, value } = await call();
    return { ok: true, headers: headers ? cookiesOf(headers) : new Headers(), value };
  } catch (error) {
    if (isApiError(error) && error.statusCode < 500) return failure(passwordRefusalOf(error) ?? message, status);
    throw error;
  }
}

export type SignInOutcome = { twoFactor: boolean };

/**
 * Signs in with e-mail and password. An unknown e-mail and a wrong password get the same answer after the same work
 * (checkPassword: one lookup, one argon2 verification); only the right password reaches better-auth.
 */
export async function signIn(
  auth: Auth,
  input: { email: string; password: string },
  headers: Headers,
): Promise<AccountResult<SignInOutcome>> {
  const email = input.email.trim().toLowerCase();
  const checked = await checkPassword(auth, email, input.password);
  if (!checked) return failure(accountMessages.invalidCredentials, 401);
  return attempt(
    async () => {
      const { headers: cookies, response } = await signInChecked(checked, () =>
        auth.api.signInEmail({
          body: { email, password: input.password, rememberMe: true },
          headers,
          returnHeaders: true,
        }),
      );
      return {
        headers: cookies,
        value: { twoFactor: Boolean((response as { twoFactorRedirect?: boolean }).twoFactorRedirect) },
      };
    },
    accountMessages.invalidCredentials,
    401,
  );
}

export async function signUp(
  auth: Auth,
  input: { email: string; password: string },
  headers: Headers,
): Promise<AccountResult> {
  try {
    const { headers: responseHeaders } = await auth.api.signUpEmail({
      body: { email: input.email, password: input.password, name: "" },
      headers,
      returnHeaders: true,
    });
    return { ok: true, headers: cookiesOf(responseHeaders), value: undefined };
  } catch (error) {
    if (isApiError(error) && error.statusCode === 422) return failure(accountMessages.emailTaken, 409);
    if (isApiError(error) && error.statusCode < 500)
      return failure(error.message || contributionMessages.somethingWrong);
    throw error;
  }
}

export async function signOut(auth: Auth, headers: Headers): Promise<Headers> {
  try {
    const { headers: responseHeaders } = await auth.api.signOut({ headers, returnHeaders: true });
    return cookiesOf(responseHeaders);
  } catch (error) {
    // Already signed out (no or expired session): nothing to end.
    if (isApiError(error) && error.statusCode < 500) return new Headers();
    throw error;
  }
}

/**
 * Always the same answer, after the same work, whether or not an account uses the address (no account enumeration):
 * looking the address up, storing the token and sending the mail all happen in the background, once `answered`
 * resolves (the answer is complete), so no part of them can delay it, nor can a slow mail server.
 * Tests wait for that with backgroundSettled().
 */
export function requestPasswordReset(auth: Auth, address: string, answered?: Promise<void>): void {
  runInBackground(
    "password reset",
    () => auth.api.requestPasswordReset({ body: { email: address, redirectTo: "/reset-password" } }),
    answered,
  );
}

export async function resetPassword(auth: Auth, input: { token: string; password: string }): Promise<AccountResult> {
  if (!linkTokenSchema.safeParse(input.token).success) return failure(accountMessages.resetInvalid);
  return attempt(async () => {
    await auth.api.resetPassword({ body: { token: input.token, newPassword: input.password } });
    return { value: undefined };
  }, accountMessages.resetInvalid);
}

export async function verifyEmail(auth: Auth, token: string): Promise<AccountResult> {
  if (!linkTokenSchema.safeParse(token).success) return failure(accountMessages.verificationInvalid);
  return attempt(async () => {
    const { headers } = await auth.api.verifyEmail({ query: { token }, returnHeaders: true });
    return { headers, value: undefined };
  }, accountMessages.verificationInvalid);
}

export async function sendVerificationEmail(auth: Auth, address: string): Promise<void> {
  await auth.api.sendVerificationEmail({ body: { email: address, callbackURL: "/account" } });
}

/**
 * Changes the password and signs out every other session of the account. better-auth re-issues this session too:
 * forward the returned cookie or the user is signed out.
 */
export async function changePassword(
  auth: Auth,
  input: { currentPassword: string; newPassword: string },
  headers: Headers,
): Promise<AccountResult> {
  return attempt(async () => {
    const { headers: cookies } = await auth.api.changePassword({
      body: { currentPassword: input.currentPassword, newPassword: input.newPassword, revokeOtherSessions: true },
      headers,
      returnHeaders: true,
    });
    return { headers: cookies, value: undefined };
  }, accountMessages.currentPasswordWrong);
}

/** Ends every session of the account, this one included. */
export async function signOutEverywhere(auth: Auth, headers: Headers): Promise<Headers> {
  await auth.api.revokeSessions({ headers });
  return signOut(auth, headers);
}

/**
 * Deletes the signed-in account, given its password, and erases its rows: its e-mail, id and password hash leave no
 * copy in the database files, their WAL or `pg_wal` (eraseDeleted: SQLite's secure_delete and an emptied WAL;
 * PostgreSQL's tables copied afresh and the WAL segments that recorded them removed). `afterDeletion` runs between
 * the two, for whatever else must go first (the account's rate-limit rows).
 */
export async function deleteAccount(
  auth: Auth,
  db: Kysely<Database>,
  password: string,
  headers: Headers,
  afterDeletion: () => Promise<void> = async () => {},
): Promise<AccountResult> {
  const result = await attempt(async () => {
    const { headers: cookies } = await auth.api.deleteUser({ body: { password }, headers, returnHeaders: true });
    return { headers: cookies, value: undefined };
  }, accountMessages.currentPasswordWrong);
  if (result.ok) {
    await afterDeletion();
    await eraseDeleted(db, accountTables);
  }
  return result;
}

export type TwoFactorSetup = { totpURI: string; backupCodes: string[] };

/** Starts enabling TOTP: returns the secret's URI (for the QR code) and backup codes; a first code confirms it. */
export async function startTwoFactor(
  auth: Auth,
  password: string,
  headers: Headers,
): Promise<AccountResult<TwoFactorSetup>> {
  return attempt(async () => {
    const setup = await auth.api.enableTwoFactor({ body: { password }, headers });
    if (setup.method !== "totp") throw new Error("Expected a TOTP set-up from better-auth.");
    return { value: { totpURI: setup.totpURI, backupCodes: setup.backupCodes } };
  }, accountMessages.currentPasswordWrong);
}

/** Checks a TOTP code: confirms a pending set-up, or completes a sign-in challenge. */
export async function verifyTotp(
  auth: Auth,
  input: { code: string; trustDevice?: boolean },
  headers: Headers,
): Promise<AccountResult<{ userId: string }>> {
  return attempt(
    async () => {
      const { headers: cookies, response } = await auth.api.verifyTOTP({
        body: { code: input.code, trustDevice: input.trustDevice ?? false },
        headers,
        returnHeaders: true,
      });
      return { headers: cookies, value: { userId: response.user.id } };
    },
    accountMessages.codeInvalid,
    401,
  );
}

/** Completes a sign-in challenge with a one-time backup code instead of the app. */
export async function verifyBackupCode(
  auth: Auth,
  code: string,
  headers: Headers,
): Promise<AccountResult<{ userId: string }>> {
  return attempt(
    async () => {
      const { headers: cookies, response } = await auth.api.verifyBackupCode({
        body: { code },
        headers,
        returnHeaders: true,
      });
      return { headers: cookies, value: { userId: response.user.id } };
    },
    accountMessages.codeInvalid,
    401,
  );
}

/** Turns two-factor off. better-auth re-issues the session: forward the returned cookie or the user is signed out. */
export async function disableTwoFactor(auth: Auth, password: string, headers: Headers): Promise<AccountResult> {
  return attempt(async () => {
    const { headers: cookies } = await auth.api.disableTwoFactor({ body: { password }, headers, returnHeaders: true });
    return { headers: cookies, value: undefined };
  }, accountMessages.currentPasswordWrong);
}

export type AccountUser = { id: string; email: string; emailVerified: boolean; twoFactorEnabled: boolean };

/** The signed-in account of a request, or null. */
export async function currentAccount(
  auth: Auth,
  headers: Headers,
  options: { refresh?: boolean } = {},
): Promise<{ user: AccountUser; sessionId: string; expiresAt: Date } | null> {
  // disableRefresh: the session is read, never extended or rewritten, by this request.
  const session = await auth.api.getSession({ headers, query: { disableRefresh: options.refresh === false } });
  if (!session) return null;
  return {
    sessionId: session.session.id,
    expiresAt: new Date(session.session.expiresAt),
    user: {
      id: session.user.id,
      email: session.user.email,
      emailVerified: Boolean(session.user.emailVerified),
      twoFactorEnabled: Boolean((session.user as { twoFactorEnabled?: boolean | null }).twoFactorEnabled),
    },
  };
}
