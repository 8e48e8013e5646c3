import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import { backgroundSettled } from "#app/lib/background.server.ts";
import * as outbox from "#tests/support/test-outbox.ts";
import { describeEachEngine, type TestDatabase } from "#tests/support/test-database.ts";
import { dump } from "#tests/support/test-dump.ts";
import type { Auth } from "#app/domain/auth.server.ts";
import {
  accountMessages,
  currentAccount,
  requestPasswordReset,
  resetPassword,
  resetPasswordSchema,
  signIn,
  verifyEmail,
} from "./accounts.server.ts";
import { passwordMessages } from "./password-policy.server.ts";
import {
  createTestAuth,
  passwordSignsIn,
  signInAccount,
  signUpAccount,
  withAuthTables,
} from "#tests/support/test-accounts.ts";

const newPassword = "a brand new passphrase";

/** What better-auth stores for a reset token: the SHA-256 of its identifier, base64url. */
function storedIdentifier(token: string): string {
  return createHash("sha256").update(`reset-password:${token}`).digest("base64url");
}

/** Every value of every table, as text. */
async function everyValue(database: TestDatabase): Promise<string[]> {
  const tables = await dump(database.db, database.engine);
  return [...tables.values()].flatMap((rows) => rows.flatMap((row) => Object.values(row)));
}

describeEachEngine("password reset", (database) => {
  /** Asks for a reset link for `email` and returns the token of the one mail it sends. */
  async function resetToken(auth: Auth, email: string): Promise<string> {
    outbox.clearOutbox();
    requestPasswordReset(auth, email);
    await backgroundSettled();
    const mails = outbox.sentMails();
    expect(mails).toHaveLength(1);
    expect(mails[0]?.to).toBe(email);
    return outbox.linkToken(mails[0]!, "/reset-password");
  }

  it("mails one single-use link that sets a new password", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);
    const token = await resetToken(auth, account.email);

    const first = await resetPassword(auth, { token, password: newPassword });
    const second = await resetPassword(auth, { token, password: "yet another passphrase" });

    expect(first.ok).toBe(true);
    expect(second).toEqual({ ok: false, message: accountMessages.resetInvalid, status: 400 });
    expect(await passwordSignsIn(auth, account.email, newPassword)).toBe(true);
  });

  it("refuses a new password made of the account's own address, as sign-up does, and keeps the link", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth, "hank.miller@example.com");
    const token = await resetToken(auth, account.email);

    const personal = await resetPassword(auth, { token, password: "hankmiller1984" });
    expect(personal).toEqual({ ok: false, message: passwordMessages.personal, status: 400 });
    expect(await passwordSignsIn(auth, account.email, "hankmiller1984")).toBe(false);
    expect((await resetPassword(auth, { token, password: newPassword })).ok).toBe(true);
  });

  it("retires the account's earlier links once one of them has set a new password", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);
    const other = await signUpAccount(auth, "other@example.com");
    const earlier = await resetToken(auth, account.email);
    const later = await resetToken(auth, account.email);
    const othersLink = await resetToken(auth, other.email);

    expect((await resetPassword(auth, { token: later, password: newPassword })).ok).toBe(true);

    // A mail read later (a leaked mailbox, a forwarded message) no longer takes the account back.
    expect(await resetPassword(auth, { token: earlier, password: "yet another passphrase" })).toEqual({
      ok: false,
      message: accountMessages.resetInvalid,
      status: 400,
    });
    expect(await passwordSignsIn(auth, account.email, newPassword)).toBe(true);
    // Another account's pending link is not touched.
    expect((await resetPassword(auth, { token: othersLink, password: newPassword })).ok).toBe(true);
  });

  it("refuses a link once its hour is over", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);
    const token = await resetToken(auth, account.email);
    const verifications = withAuthTables(database().db);
    const stored = await verifications
      .selectFrom("verifications")
      .select("expiresAt")
      .where("identifier", "=", storedIdentifier(token))
      .executeTakeFirstOrThrow();
    expect(new Date(stored.expiresAt).getTime() - Date.now()).toBeGreaterThan(59 * 60 * 1000);
    // Stored to the minute, rounded up (decision 0050): an hour, and less than a minute more.
    expect(new Date(stored.expiresAt).getTime() - Date.now()).toBeLessThanOrEqual(61 * 60 * 1000);
    expect(new Date(stored.expiresAt).getTime() % 60_000).toBe(0);
    await verifications
      .updateTable("verifications")
      .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
      .where("identifier", "=", storedIdentifier(token))
      .execute();

    const result = await resetPassword(auth, { token, password: newPassword });

    expect(result).toEqual({ ok: false, message: accountMessages.resetInvalid, status: 400 });
    expect(await passwordSignsIn(auth, account.email, account.password)).toBe(true);
  });

  it("ends every session of the account and retires the old password", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);
    const otherBrowser = await signInAccount(auth, account);
    const token = await resetToken(auth, account.email);

    expect((await resetPassword(auth, { token, password: newPassword })).ok).toBe(true);

    expect(await currentAccount(auth, account.headers)).toBeNull();
    expect(await currentAccount(auth, otherBrowser)).toBeNull();
    const sessions = await database().db.selectFrom("sessions").select("id").execute();
    expect(sessions).toEqual([]);
    const withOld = await signIn(auth, { email: account.email, password: account.password }, new Headers());
    expect(withOld).toEqual({ ok: false, message: accountMessages.invalidCredentials, status: 401 });
    expect(await passwordSignsIn(auth, account.email, newPassword)).toBe(true);
  });

  it("stores only a hash of the token: no column of any table holds the mailed token", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);
    const token = await resetToken(auth, account.email);
    // better-auth's tokens: 24 letters and digits, about 143 bits.
    expect(token).toMatch(/^[A-Za-z0-9]{24,}$/);

    const values = await everyValue(database());

    expect(values.filter((value) => value.includes(token))).toEqual([]);
    expect(values).toContain(storedIdentifier(token));
    // Someone who reads the database and sends what is stored gets nowhere.
    const stolen = await resetPassword(auth, { token: storedIdentifier(token), password: newPassword });
    expect(stolen).toEqual({ ok: false, message: accountMessages.resetInvalid, status: 400 });
    expect(await passwordSignsIn(auth, account.email, account.password)).toBe(true);
    expect((await resetPassword(auth, { token, password: newPassword })).ok).toBe(true);
  });

  it("answers a token with a NUL byte or other stray characters as an invalid link, not a fault", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);
    const token = await resetToken(auth, account.email);

    for (const bad of [
      `${token}\u0000`,
      `\u0000${token}`,
      `${token.slice(0, 8)}\u0000${token.slice(8)}`,
      "a\u0000",
      `${token} `,
      "ｔｏｋｅｎ",
      "x".repeat(501),
    ]) {
      expect(await resetPassword(auth, { token: bad, password: newPassword }), JSON.stringify(bad)).toEqual({
        ok: false,
        message: accountMessages.resetInvalid,
        status: 400,
      });
      expect(await verifyEmail(auth, bad)).toEqual({
        ok: false,
        message: accountMessages.verificationInvalid,
        status: 400,
      });
    }
    expect(await passwordSignsIn(auth, account.email, account.password)).toBe(true);
  });

  it("refuses a new password that is easy to guess, even asked of better-auth directly", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);
    const token = await resetToken(auth, account.email);

    for (const weak of ["aaaaaaaa", "        "]) {
      expect(resetPasswordSchema.safeParse({ token, password: weak }).error?.issues[0]?.message).toBe(
        passwordMessages.weak,
      );
      await expect(auth.api.resetPassword({ body: { token, newPassword: weak } })).rejects.toMatchObject({
        statusCode: 400,
        message: passwordMessages.weak,
      });
    }
    expect(await passwordSignsIn(auth, account.email, account.password)).toBe(true);
    expect((await resetPassword(auth, { token, password: newPassword })).ok).toBe(true);
  });

  it("does the lookup and the mail only once the answer is complete, for known and unknown addresses alike", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);
    outbox.clearOutbox();
    let answer: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));

    requestPasswordReset(auth, account.email, answered);
    requestPasswordReset(auth, "nobody@example.com", answered);

    // Nothing has happened while the answer is under way, however many turns of the event loop it takes.
    const verifications = withAuthTables(database().db).selectFrom("verifications").select("id");
    for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(await verifications.execute()).toEqual([]);
    expect(outbox.sentMails()).toEqual([]);
    answer();
    await backgroundSettled();
    expect(await verifications.execute()).toHaveLength(1);
    expect(outbox.sentMails().map((mail) => mail.to)).toEqual([account.email]);
  });

  it("sends nothing for an unknown e-mail address, and says nothing about it", async () => {
    const auth = createTestAuth(database());
    await signUpAccount(auth, "ada@example.com");
    outbox.clearOutbox();

    expect(requestPasswordReset(auth, "bob@example.com")).toBeUndefined();
    await backgroundSettled();

    expect(outbox.sentMails()).toEqual([]);
  });
});

describeEachEngine("e-mail verification", (database) => {
  it("mails a link after sign-up that confirms the address", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth, "ada@example.com");
    const mails = outbox.sentMails();
    expect(mails).toHaveLength(1);
    expect(mails[0]?.to).toBe("ada@example.com");
    const token = outbox.linkToken(mails[0]!, "/verify-email");
    expect((await currentAccount(auth, account.headers))?.user.emailVerified).toBe(false);

    const result = await verifyEmail(auth, token);

    expect(result.ok).toBe(true);
    expect((await currentAccount(auth, account.headers))?.user.emailVerified).toBe(true);
  });

  it("keeps no copy of the confirmation token in any table", async () => {
    const auth = createTestAuth(database());
    await signUpAccount(auth, "ada@example.com");
    const token = outbox.linkToken(outbox.sentMails()[0]!, "/verify-email");

    const values = await everyValue(database());

    expect(values.filter((value) => value.includes(token))).toEqual([]);
  });

  it("refuses a link whose token is not one it sent", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth, "ada@example.com");
    const token = outbox.linkToken(outbox.sentMails()[0]!, "/verify-email");

    for (const bad of ["not-a-token", `${token.slice(0, -4)}AAAA`]) {
      expect(await verifyEmail(auth, bad)).toEqual({
        ok: false,
        message: accountMessages.verificationInvalid,
        status: 400,
      });
    }
    expect((await currentAccount(auth, account.headers))?.user.emailVerified).toBe(false);
  });
});
