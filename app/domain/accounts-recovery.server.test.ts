import { expect, it } from "vitest";
import * as outbox from "#tests/support/test-outbox.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import type { Auth } from "#app/lib/auth.server.ts";
import {
  accountMessages,
  currentAccount,
  requestPasswordReset,
  resetPassword,
  signIn,
  verifyEmail,
} from "./accounts.server.ts";
import {
  createTestAuth,
  passwordSignsIn,
  signInAccount,
  signUpAccount,
  withAuthTables,
} from "#tests/support/test-accounts.ts";

const newPassword = "a brand new passphrase";

describeEachEngine("password reset", (database) => {
  /** Asks for a reset link for `email` and returns the token of the one mail it sends. */
  async function resetToken(auth: Auth, email: string): Promise<string> {
    outbox.clearOutbox();
    await requestPasswordReset(auth, email);
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

  it("refuses a link once its hour is over", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);
    const token = await resetToken(auth, account.email);
    const verifications = withAuthTables(database().db);
    const stored = await verifications
      .selectFrom("verifications")
      .select("expiresAt")
      .where("identifier", "=", `reset-password:${token}`)
      .executeTakeFirstOrThrow();
    expect(new Date(stored.expiresAt).getTime() - Date.now()).toBeGreaterThan(59 * 60 * 1000);
    expect(new Date(stored.expiresAt).getTime() - Date.now()).toBeLessThanOrEqual(60 * 60 * 1000);
    await verifications
      .updateTable("verifications")
      .set({ expiresAt: new Date(Date.now() - 1000).toISOString() })
      .where("identifier", "=", `reset-password:${token}`)
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

  it("sends nothing for an unknown e-mail address, and says nothing about it", async () => {
    const auth = createTestAuth(database());
    await signUpAccount(auth, "ada@example.com");
    outbox.clearOutbox();

    await expect(requestPasswordReset(auth, "bob@example.com")).resolves.toBeUndefined();

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
