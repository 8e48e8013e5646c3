import { expect, it } from "vitest";
import { describeEachEngine } from "#tests/support/test-database.ts";
import type { Auth } from "#app/domain/auth.server.ts";
import {
  accountMessages,
  currentAccount,
  disableTwoFactor,
  signIn,
  startTwoFactor,
  verifyBackupCode,
  verifyTotp,
} from "./accounts.server.ts";
import {
  cookieHeader,
  createTestAuth,
  enableTwoFactor,
  signUpAccount,
  type TestAccount,
  totpCode,
  wrongTotpCode,
} from "#tests/support/test-accounts.ts";

describeEachEngine("two-factor authentication", (database) => {
  async function sessionCount(): Promise<number> {
    return (await database().db.selectFrom("sessions").select("id").execute()).length;
  }

  /** Signs in with the password only; returns the headers of the pending second-factor challenge. */
  async function challenge(auth: Auth, account: TestAccount): Promise<Headers> {
    const result = await signIn(auth, account, new Headers());
    if (!result.ok || !result.value.twoFactor) throw new Error("Expected a second-factor challenge.");
    return cookieHeader(result.headers);
  }

  it("starts with a TOTP URI and ten backup codes, and is on once a first code is confirmed", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);

    const setup = await startTwoFactor(auth, account.password, account.headers);

    expect(setup.ok).toBe(true);
    if (!setup.ok) return;
    expect(setup.value.totpURI).toMatch(/^otpauth:\/\/totp\/Candor:ada%40example\.com\?secret=[A-Z2-7]+&/);
    expect(setup.value.backupCodes).toHaveLength(10);
    expect(new Set(setup.value.backupCodes).size).toBe(10);
    expect((await currentAccount(auth, account.headers))?.user.twoFactorEnabled).toBe(false);

    const confirmed = await verifyTotp(auth, { code: await totpCode(setup.value.totpURI) }, account.headers);

    expect(confirmed.ok).toBe(true);
    const thisBrowser = confirmed.ok ? cookieHeader(confirmed.headers) : new Headers();
    expect((await currentAccount(auth, thisBrowser))?.user.twoFactorEnabled).toBe(true);
  });

  it("refuses to start without the right password", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);

    const setup = await startTwoFactor(auth, "not my password", account.headers);

    expect(setup).toEqual({ ok: false, message: accountMessages.currentPasswordWrong, status: 400 });
  });

  it("asks for the second factor at sign-in and opens no session before it", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);
    const { totpURI } = await enableTwoFactor(auth, account);
    const sessionsBefore = await sessionCount();

    const result = await signIn(auth, account, new Headers());

    expect(result.ok && result.value).toEqual({ twoFactor: true });
    const pending = result.ok ? cookieHeader(result.headers) : new Headers();
    expect(await currentAccount(auth, pending)).toBeNull();
    expect(await sessionCount()).toBe(sessionsBefore);

    const verified = await verifyTotp(auth, { code: await totpCode(totpURI) }, pending);

    expect(verified.ok).toBe(true);
    const signedIn = verified.ok ? cookieHeader(verified.headers) : new Headers();
    expect((await currentAccount(auth, signedIn))?.user.id).toBe(account.userId);
    expect(await sessionCount()).toBe(sessionsBefore + 1);
  });

  it("refuses a wrong code, at set-up and at sign-in", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);
    const setup = await startTwoFactor(auth, account.password, account.headers);
    if (!setup.ok) throw new Error(setup.message);
    const wrong = await wrongTotpCode(setup.value.totpURI);

    const atSetup = await verifyTotp(auth, { code: wrong }, account.headers);

    expect(atSetup).toEqual({ ok: false, message: accountMessages.codeInvalid, status: 401 });
    expect((await currentAccount(auth, account.headers))?.user.twoFactorEnabled).toBe(false);

    const confirmed = await verifyTotp(auth, { code: await totpCode(setup.value.totpURI) }, account.headers);
    expect(confirmed.ok).toBe(true);
    const pending = await challenge(auth, account);

    const atSignIn = await verifyTotp(auth, { code: await wrongTotpCode(setup.value.totpURI) }, pending);

    expect(atSignIn).toEqual({ ok: false, message: accountMessages.codeInvalid, status: 401 });
    expect(await currentAccount(auth, pending)).toBeNull();
  });

  it("accepts each backup code once instead of the app", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);
    const { backupCodes } = await enableTwoFactor(auth, account);
    const [firstCode, secondCode] = backupCodes;

    const first = await verifyBackupCode(auth, firstCode!, await challenge(auth, account));
    const again = await verifyBackupCode(auth, firstCode!, await challenge(auth, account));
    const second = await verifyBackupCode(auth, secondCode!, await challenge(auth, account));

    expect(first.ok).toBe(true);
    const signedIn = first.ok ? cookieHeader(first.headers) : new Headers();
    expect((await currentAccount(auth, signedIn))?.user.id).toBe(account.userId);
    expect(again).toEqual({ ok: false, message: accountMessages.codeInvalid, status: 401 });
    expect(second.ok).toBe(true);
  });

  it("turns off with the password, and sign-in asks only for the password again", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);
    const { headers } = await enableTwoFactor(auth, account);

    expect(await disableTwoFactor(auth, "not my password", headers)).toEqual({
      ok: false,
      message: accountMessages.currentPasswordWrong,
      status: 400,
    });
    const disabled = await disableTwoFactor(auth, account.password, headers);

    expect(disabled.ok).toBe(true);
    // better-auth re-issues the session with the change; the response carries its cookie.
    const thisBrowser = disabled.ok ? cookieHeader(disabled.headers) : new Headers();
    expect((await currentAccount(auth, thisBrowser))?.user.twoFactorEnabled).toBe(false);
    const result = await signIn(auth, account, new Headers());
    expect(result.ok && result.value).toEqual({ twoFactor: false });
  });
});
