import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import { hash, verify } from "@node-rs/argon2";
import { type BetterAuthOptions, betterAuth } from "better-auth";
import { APIError, createAuthMiddleware, getSessionFromCtx } from "better-auth/api";
import { twoFactor } from "better-auth/plugins/two-factor";
import type { Kysely } from "kysely";
import type { DatabaseHandle, Engine } from "#app/db/connection.server.ts";
import { maxPasswordLength, minPasswordLength, newPasswordProblem } from "#app/domain/password-policy.server.ts";
import { env } from "#app/lib/env.server.ts";
import { coarseStamps } from "#app/lib/account-stamps.ts";
import { logger } from "#app/lib/logger.server.ts";
import { sendMail } from "#app/lib/mail.server.ts";
import { sessionsRevoked } from "#app/lib/session-revocation.server.ts";
import { messages } from "#app/lib/messages.ts";

/**
 * OWASP's argon2id parameters (Password Storage Cheat Sheet): 19 MiB of memory, 2 iterations, 1 lane. The
 * algorithm is the library's const enum value Algorithm.Argon2id, which erasable TypeScript cannot import.
 */
const argon2id = 2;
const argon2Options = { algorithm: argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * The hash of a random password that nobody knows, made with the parameters of every stored hash: an address
 * without a password is checked against it, so that it costs the same argon2 verification as a wrong password.
 */
let noAccountHash: Promise<string> | undefined;
function hashOfNoAccount(): Promise<string> {
  noAccountHash ??= hash(randomBytes(32).toString("base64url"), argon2Options);
  return noAccountHash;
}

/** A stored hash and the password just found to match it, while better-auth signs that password in. */
const checkedPassword = new AsyncLocalStorage<{ stored: string; password: string }>();

/** argon2 verification, unless this very pair was checked already in the sign-in under way (checkPassword). */
function verifyPassword({ hash: stored, password }: { hash: string; password: string }): Promise<boolean> {
  const checked = checkedPassword.getStore();
  if (checked && checked.stored === stored && checked.password === password) return Promise.resolve(true);
  return verify(stored, password);
}

export type CheckedPassword = { stored: string; password: string };

/**
 * Checks an e-mail address and password with the same work whatever the answer: one lookup of the address and one
 * argon2 verification, against the account's hash, or against a hash of nobody's password where no account with a
 * password uses the address. An unknown address then takes as long as a wrong password. The right password gives
 * the pair to hand to signInChecked.
 */
export async function checkPassword(auth: Auth, email: string, password: string): Promise<CheckedPassword | null> {
  const context = await auth.$context;
  const found = await context.internalAdapter.findUserByEmail(email, { includeAccounts: true });
  const credential = found?.accounts.find(
    (account) => account.providerId === "credential" && account.accountId === found.user.id,
  );
  const stored = credential?.password ?? null;
  const valid = await verify(stored ?? (await hashOfNoAccount()), password);
  return stored !== null && valid ? { stored, password } : null;
}

/**
 * Runs better-auth's sign-in (`signIn`) for a password checkPassword accepted: better-auth looks the account up
 * again and verifies the password itself, and finds this pair already checked instead of spending a second argon2
 * verification on it. Another hash (the password changed meanwhile) or password is verified as always.
 */
export function signInChecked<T>(checked: CheckedPassword, signIn: () => Promise<T>): Promise<T> {
  return checkedPassword.run(checked, signIn);
}

/**
 * Every cookie better-auth may set. Over https they are named `__Host-candor.*`: a browser then keeps them only when
 * Secure, with Path=/ and no Domain, so no sibling subdomain can set or shadow them. better-auth's own prefix is the
 * weaker `__Secure-`, so the names are given here and its prefixing is off.
 */
const authCookieNames = [
  "session_token",
  "session_data",
  "dont_remember",
  "account_data",
  "two_factor",
  "trust_device",
];

function hostCookies(https: boolean) {
  if (!https) return undefined;
  return Object.fromEntries(authCookieNames.map((name) => [name, { name: `__Host-candor.${name}` }]));
}

/**
 * The better-auth endpoints that end or change no existing session (they read one, or open a new one). After any
 * other (sign-out, revoking sessions, a password change or reset, a deleted account, two-factor changes), every
 * process forgets which session cookies it found valid (app/lib/session-revocation.server.ts). A list of what may
 * be skipped rather than of what must not: an endpoint added later forgets too.
 */
const sessionKeeping = new Set([
  "/get-session",
  "/sign-in/email",
  "/sign-up/email",
  "/request-password-reset",
  "/send-verification-email",
  "/verify-email",
]);

/** The new password of each better-auth endpoint that sets one, so none can skip the strength floor. */
const newPasswordFields: Record<string, string> = {
  "/sign-up/email": "password",
  "/reset-password": "newPassword",
  "/change-password": "newPassword",
};

type AuthContext = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];

/**
 * The e-mail address of the account whose password a request sets: the sign-up's own, the reset link's account (the
 * token is looked up as better-auth will, unspent), or the signed-in account changing its password.
 */
async function accountEmailOf(ctx: AuthContext, body: Record<string, unknown> | undefined): Promise<string | null> {
  if (typeof body?.email === "string") return body.email;
  if (ctx.path === "/reset-password") {
    const token = typeof body?.token === "string" ? body.token : undefined;
    const verification = token
      ? await ctx.context.internalAdapter.findVerificationValue(`reset-password:${token}`)
      : null;
    const user = verification ? await ctx.context.internalAdapter.findUserById(verification.value) : null;
    return user?.email ?? null;
  }
  if (ctx.path === "/change-password") return (await getSessionFromCtx(ctx))?.user.email ?? null;
  return null;
}

/** better-auth's hooks that store a row's stamps coarsely as it is created or changed (app/lib/account-stamps.ts). */
function coarselyStamped() {
  return {
    create: { before: async (data: Record<string, unknown>) => ({ data: coarseStamps(data, "create") }) },
    update: { before: async (data: Record<string, unknown>) => ({ data: coarseStamps(data, "update") }) },
  };
}

export function publicUrl(): string {
  const { PUBLIC_URL, PORT } = env();
  return (PUBLIC_URL ?? `http://localhost:${PORT}`).replace(/\/+$/, "");
}

/**
 * better-auth on our own Kysely database. Its tables are created by our migrations (app/db/migrations), its own
 * rate limiter is off (ours keys on a hash of the client IP, app/lib/rate-limit.server.ts), and sessions never store
 * an IP address or user agent.
 */
export function authOptions(db: Kysely<any>, engine: Engine, secret: string) {
  const https = publicUrl().startsWith("https://");
  return {
    appName: messages.siteName,
    baseURL: publicUrl(),
    basePath: "/api/auth",
    secret,
    telemetry: { enabled: false },
    database: { db, type: engine, transaction: true },
    user: {
      modelName: "users",
      deleteUser: { enabled: true },
    },
    // A session lasts 30 days from sign-in and is never extended (decision 0050): a refresh would write the
    // account's session row on its way to whatever it does next (a review, a vote, an appeal).
    session: {
      modelName: "sessions",
      expiresIn: 60 * 60 * 24 * 30,
      disableSessionRefresh: true,
    },
    account: { modelName: "accounts" },
    // Reset tokens are kept as their SHA-256 only: whoever reads the database cannot use a pending link.
    verification: { modelName: "verifications", storeIdentifier: "hashed" },
    emailAndPassword: {
      enabled: true,
      minPasswordLength,
      maxPasswordLength,
      autoSignIn: true,
      requireEmailVerification: false,
      resetPasswordTokenExpiresIn: 60 * 60,
      revokeSessionsOnPasswordReset: true,
      // The reset ends whatever else the old password's holder may have: the account's other reset links (a mail read
      // later must not take the account back) and its trusted devices. better-auth keeps both as verification values
      // that name the user; the e-mail confirmation link is a signed token, not a row, and stays valid.
      onPasswordReset: async ({ user }: { user: { id: string } }) => {
        await db.deleteFrom("verifications").where("value", "=", user.id).execute();
      },
      password: {
        hash: (password: string) => hash(password, argon2Options),
        verify: verifyPassword,
      },
      // Links lead to our own pages, which call better-auth on the server; its HTTP handler is not exposed.
      sendResetPassword: async ({ user, token }: { user: { email: string }; token: string }) => {
        const url = `${publicUrl()}/reset-password?token=${encodeURIComponent(token)}`;
        await sendMail({
          to: user.email,
          subject: `Reset your ${messages.siteName} password`,
          text: `Someone asked to reset the password of your ${messages.siteName} account.\n\nTo choose a new password, open this link within one hour:\n${url}\n\nIf it was not you, ignore this message: your password stays as it is.\n`,
        });
      },
    },
    emailVerification: {
      sendOnSignUp: true,
      // The link confirms the address and nothing more: signing in from it would let whoever reads the mailbox
      // (or a mail scanner that opens links) in without the password and past a second factor.
      autoSignInAfterVerification: false,
      expiresIn: 60 * 60 * 24,
      sendVerificationEmail: async ({ user, token }: { user: { email: string }; token: string }) => {
        const url = `${publicUrl()}/verify-email?token=${encodeURIComponent(token)}`;
        await sendMail({
          to: user.email,
          subject: `Confirm your e-mail address for ${messages.siteName}`,
          text: `Welcome to ${messages.siteName}.\n\nTo confirm that this address is yours, open this link within 24 hours:\n${url}\n\nIf you did not create an account, ignore this message.\n`,
        });
      },
    },
    rateLimit: { enabled: false },
    // Only what needs attention, and never with e-mail addresses: better-auth logs them at info level.
    logger: {
      level: "error",
      log: (level: string, message: string) => logger.error({ source: "better-auth", level }, message),
    },
    advanced: {
      cookiePrefix: "candor",
      useSecureCookies: false,
      cookies: hostCookies(https),
      ipAddress: { disableIpTracking: true },
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax", secure: https, path: "/" },
    },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        const field = newPasswordFields[ctx.path];
        const body = ctx.body as Record<string, unknown> | undefined;
        const password: unknown = field ? body?.[field] : undefined;
        if (typeof password !== "string") return;
        // The account's own address and name are weak words for its password, however it is set.
        const email = await accountEmailOf(ctx, body);
        const problem = newPasswordProblem(password, email ?? undefined);
        if (problem) throw new APIError("BAD_REQUEST", { message: problem });
      }),
      after: createAuthMiddleware(async (ctx) => {
        if (!sessionKeeping.has(ctx.path)) sessionsRevoked();
      }),
    },
    plugins: [
      twoFactor({
        issuer: messages.siteName,
        twoFactorTable: "two_factors",
        backupCodeOptions: { amount: 10, length: 10 },
      }),
    ],
    // Every stamp about an account is stored to the day (decision 0050), an expiry within the day to the minute.
    databaseHooks: {
      user: coarselyStamped(),
      account: coarselyStamped(),
      verification: coarselyStamped(),
      session: {
        create: {
          // Never keep where or with what a session was opened (docs/data-model.md, what is never stored).
          before: async (session: Record<string, unknown>) => ({
            data: coarseStamps({ ...session, ipAddress: null, userAgent: null }, "create"),
          }),
        },
        update: { before: async (data: Record<string, unknown>) => ({ data: coarseStamps(data, "update") }) },
      },
    },
  } satisfies BetterAuthOptions;
}

export function createAuth(db: Kysely<any>, engine: Engine, secret: string) {
  // Made now, so that the first sign-in with an unknown address does not also pay for making it.
  void hashOfNoAccount();
  return betterAuth(authOptions(db, engine, secret));
}

export type Auth = ReturnType<typeof createAuth>;

// On globalThis, like the database, so the dev server's module reloads keep one instance.
const holder = globalThis as typeof globalThis & { __candorAuth?: Auth };

/** Creates the process-wide auth instance on the started database. Called once at start-up. */
export function startAuth(handle: DatabaseHandle, secret: string): Auth {
  holder.__candorAuth ??= createAuth(handle.db, handle.engine, secret);
  return holder.__candorAuth;
}

export function auth(): Auth {
  if (!holder.__candorAuth) throw new Error("Auth is not started: call startAuth() first.");
  return holder.__candorAuth;
}

export function stopAuth(): void {
  holder.__candorAuth = undefined;
}
