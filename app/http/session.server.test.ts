import { describe, expect, it, vi } from "vitest";
import { changePassword, signOut } from "#app/domain/accounts.server.ts";
import { channelConnected } from "#app/lib/data-version.server.ts";
import { sessionsRevokedElsewhere } from "#app/lib/session-revocation.server.ts";
import { createTestAuth, signInAccount, signUpAccount, testPassword } from "#tests/support/test-accounts.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { hasFlashCookie, hasValidSession } from "./session.server.ts";

// The check that decides whether the page kept for signed-in readers may answer a request (decision 0034): a
// session found valid is believed for a while, and forgotten the moment any session ends.

describeEachEngine("the remembered session check", (database) => {
  function setUp() {
    const auth = createTestAuth(database());
    /** From here on, counts the session lookups better-auth is asked for. */
    const countLookups = () => vi.spyOn(auth.api, "getSession");
    return { auth, countLookups };
  }

  it("asks better-auth once for a valid session cookie, then believes it", async () => {
    const { auth, countLookups } = setUp();
    const { headers } = await signUpAccount(auth, "remembered@example.com");
    const lookups = countLookups();
    const cookie = headers.get("cookie")!;
    expect(await hasValidSession(cookie, auth)).toBe(true);
    expect(await hasValidSession(cookie, auth)).toBe(true);
    expect(lookups).toHaveBeenCalledTimes(1);
  });

  it("never remembers a refusal, nor a cookie whose signature does not match", async () => {
    const { auth, countLookups } = setUp();
    const { headers } = await signUpAccount(auth, "forged@example.com");
    const lookups = countLookups();
    const forged = headers.get("cookie")!.replace(/(session_token=[^.;]+\.)[^;]+/, "$1AAAA");
    expect(await hasValidSession(forged, auth)).toBe(false);
    expect(await hasValidSession(forged, auth)).toBe(false);
    expect(lookups).toHaveBeenCalledTimes(2);
    expect(await hasValidSession("other=1", auth)).toBe(false);
  });

  it("forgets a session at once when it is signed out", async () => {
    const { auth } = setUp();
    const { headers } = await signUpAccount(auth, "leaving@example.com");
    const cookie = headers.get("cookie")!;
    expect(await hasValidSession(cookie, auth)).toBe(true);
    await signOut(auth, headers);
    expect(await hasValidSession(cookie, auth)).toBe(false);
  });

  it("forgets the other sessions of an account whose password changed", async () => {
    const { auth } = setUp();
    const account = await signUpAccount(auth, "two-devices@example.com");
    const phone = (await signInAccount(auth, account)).get("cookie")!;
    expect(await hasValidSession(phone, auth)).toBe(true);
    const changed = await changePassword(
      auth,
      { currentPassword: testPassword, newPassword: `${testPassword} and more` },
      account.headers,
    );
    expect(changed.ok).toBe(true);
    expect(await hasValidSession(phone, auth)).toBe(false);
  });

  it("asks again after another process said a session ended, and while the change channel is lost", async () => {
    const { auth, countLookups } = setUp();
    const { headers } = await signUpAccount(auth, "elsewhere@example.com");
    const lookups = countLookups();
    const cookie = headers.get("cookie")!;
    await hasValidSession(cookie, auth);
    sessionsRevokedElsewhere();
    await hasValidSession(cookie, auth);
    expect(lookups).toHaveBeenCalledTimes(2);
    channelConnected(false);
    try {
      await hasValidSession(cookie, auth);
      await hasValidSession(cookie, auth);
      expect(lookups).toHaveBeenCalledTimes(4);
    } finally {
      channelConnected(true);
    }
  });
});

describe("hasFlashCookie", () => {
  it("finds the cookies that make one page view the reader's own", () => {
    expect(hasFlashCookie("candor.session_token=a.b; candor_toast=signed-in")).toBe(true);
    expect(hasFlashCookie("candor_note=review")).toBe(true);
    expect(hasFlashCookie("x=1; candor_review_key=abc")).toBe(true);
    expect(hasFlashCookie("candor_badge=shown.example.com")).toBe(true);
    expect(hasFlashCookie("candor.session_token=a.b; candor.vote_key=c")).toBe(false);
  });
});
