import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import { describeEachEngine } from "#tests/support/test-database.ts";
import {
  accessTokenSeconds,
  authenticateAccessToken,
  passwordGrant,
  refreshTokenPair,
  revokeTokenFamily,
} from "./api-tokens.server.ts";
import { currentAccount } from "./accounts.server.ts";
import {
  createTestAuth,
  enableTwoFactor,
  signUpAccount,
  totpCode,
  wrongTotpCode,
} from "#tests/support/test-accounts.ts";

function sha256(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

describeEachEngine("API tokens", (database) => {
  /** An account (signed in in a browser too) and a token pair; `sessionId` is the session of the token family. */
  async function signedUpAndGranted() {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);
    const grant = await passwordGrant(auth, database().db, account, new Headers());
    if (!grant.ok) throw new Error(`Password grant failed: ${grant.message}`);
    const family = await authenticateAccessToken(database().db, grant.pair.access_token);
    if (!family) throw new Error("The granted access token does not authenticate.");
    return { auth, account, pair: grant.pair, sessionId: family.sessionId };
  }

  async function sessionIds(): Promise<string[]> {
    return (await database().db.selectFrom("sessions").select("id").execute()).map((row) => row.id);
  }

  it("grants an access token with its expiry and a refresh token for e-mail and password", async () => {
    const before = Math.floor(Date.now() / 1000);
    const { pair } = await signedUpAndGranted();

    expect(pair).toEqual({
      access_token: expect.stringMatching(/^[\w-]{43}\.[0-9a-z]+$/),
      token_type: "bearer",
      expires_in: 900,
      expires_at: expect.any(Number),
      refresh_token: expect.stringMatching(/^[\w-]{43}$/),
    });
    expect(pair.expires_at - before).toBeGreaterThanOrEqual(accessTokenSeconds);
    expect(pair.expires_at - before).toBeLessThanOrEqual(accessTokenSeconds + 60);
    expect(pair.refresh_token).not.toBe(pair.access_token);
  });

  it("refuses the grant for a wrong password", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);

    const grant = await passwordGrant(auth, database().db, { ...account, password: "not my password" }, new Headers());

    expect(grant).toMatchObject({ ok: false, reason: "invalid_credentials" });
  });

  it("stores only SHA-256 hashes of the tokens", async () => {
    const { pair } = await signedUpAndGranted();

    const rows = await database().db.selectFrom("api_tokens").selectAll().execute();

    expect(rows.map((row) => [row.kind, row.token_hash]).sort()).toEqual([
      ["access", sha256(pair.access_token)],
      ["refresh", sha256(pair.refresh_token)],
    ]);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(pair.access_token);
    expect(stored).not.toContain(pair.refresh_token);
  });

  it("authenticates the access token until it expires, and never the refresh token", async () => {
    const { account, pair, sessionId } = await signedUpAndGranted();
    const { db } = database();

    expect(await authenticateAccessToken(db, pair.access_token)).toEqual({
      userId: account.userId,
      sessionId,
      validUntil: expect.any(Number),
    });
    // The token's own expiry comes before its 30-day session's; expires_at is it in whole seconds.
    const validUntil = (await authenticateAccessToken(db, pair.access_token))!.validUntil;
    expect(Math.floor(validUntil / 1000)).toBe(pair.expires_at);
    expect(await authenticateAccessToken(db, pair.access_token, pair.expires_at * 1000 - 1000)).toBeDefined();
    expect(await authenticateAccessToken(db, pair.access_token, pair.expires_at * 1000 + 1000)).toBeUndefined();
    expect(await authenticateAccessToken(db, pair.refresh_token)).toBeUndefined();
    expect(await authenticateAccessToken(db, "made-up-token")).toBeUndefined();
  });

  it("rotates the refresh token: the old one is spent, the new pair works", async () => {
    const { account, pair } = await signedUpAndGranted();
    const { db } = database();

    const refreshed = await refreshTokenPair(db, pair.refresh_token);

    expect(refreshed.ok).toBe(true);
    if (!refreshed.ok) return;
    const old = await db
      .selectFrom("api_tokens")
      .select("used")
      .where("token_hash", "=", sha256(pair.refresh_token))
      .executeTakeFirstOrThrow();
    expect(old.used).toBe(1);
    expect(refreshed.pair.refresh_token).not.toBe(pair.refresh_token);
    expect(refreshed.pair.access_token).not.toBe(pair.access_token);
    expect((await authenticateAccessToken(db, refreshed.pair.access_token))?.userId).toBe(account.userId);
    expect((await refreshTokenPair(db, refreshed.pair.refresh_token)).ok).toBe(true);
  });

  it("revokes the whole family when a spent refresh token comes back", async () => {
    const { pair, sessionId } = await signedUpAndGranted();
    const { db } = database();
    const first = await refreshTokenPair(db, pair.refresh_token);
    const second = first.ok ? await refreshTokenPair(db, first.pair.refresh_token) : first;
    if (!second.ok) throw new Error("Expected two refreshes to work.");

    const replayed = await refreshTokenPair(db, pair.refresh_token);

    expect(replayed).toEqual({ ok: false, reason: "reused" });
    expect(await sessionIds()).not.toContain(sessionId);
    expect(await authenticateAccessToken(db, second.pair.access_token)).toBeUndefined();
    expect(await refreshTokenPair(db, second.pair.refresh_token)).toEqual({ ok: false, reason: "unknown" });
    expect(await db.selectFrom("api_tokens").select("token_hash").execute()).toEqual([]);
  });

  it("lets exactly one of two concurrent refreshes with the same token succeed", async () => {
    const { pair } = await signedUpAndGranted();
    const { db } = database();

    const outcomes = await Promise.all([
      refreshTokenPair(db, pair.refresh_token),
      refreshTokenPair(db, pair.refresh_token),
    ]);

    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([{ ok: false, reason: "reused" }]);
  });

  it("refuses an expired refresh token", async () => {
    const { pair } = await signedUpAndGranted();
    const { db } = database();
    await db
      .updateTable("api_tokens")
      .set({ expires_at: Date.now() - 1000 })
      .where("kind", "=", "refresh")
      .execute();

    expect(await refreshTokenPair(db, pair.refresh_token)).toEqual({ ok: false, reason: "expired" });
  });

  it("refuses a refresh once the session behind the family has expired", async () => {
    const { account, pair } = await signedUpAndGranted();
    const { db } = database();

    await db
      .updateTable("sessions")
      .set({ expiresAt: new Date(Date.now() - 60_000).toISOString() })
      .where("userId", "=", account.userId)
      .execute();

    expect(await refreshTokenPair(db, pair.refresh_token)).toEqual({ ok: false, reason: "expired" });
  });

  it("ends the session when the family is revoked (API sign-out)", async () => {
    const { auth, account, pair, sessionId } = await signedUpAndGranted();
    const { db } = database();

    await revokeTokenFamily(db, pair.refresh_token);

    expect(await sessionIds()).not.toContain(sessionId);
    expect(await currentAccount(auth, account.headers)).not.toBeNull();
    expect(await authenticateAccessToken(db, pair.access_token)).toBeUndefined();
    expect(await refreshTokenPair(db, pair.refresh_token)).toEqual({ ok: false, reason: "unknown" });
    await expect(revokeTokenFamily(db, pair.refresh_token)).resolves.toBeUndefined();
  });

  it("asks a two-factor account for its code, and grants with a correct one", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);
    const { totpURI } = await enableTwoFactor(auth, account);
    const { db } = database();

    const withoutCode = await passwordGrant(auth, db, account, new Headers());
    const wrongCode = await passwordGrant(
      auth,
      db,
      { ...account, totpCode: await wrongTotpCode(totpURI) },
      new Headers(),
    );
    const withCode = await passwordGrant(auth, db, { ...account, totpCode: await totpCode(totpURI) }, new Headers());

    expect(withoutCode).toMatchObject({ ok: false, reason: "two_factor_required" });
    expect(wrongCode).toMatchObject({ ok: false, reason: "invalid_code" });
    expect(withCode.ok).toBe(true);
    if (!withCode.ok) return;
    expect((await authenticateAccessToken(db, withCode.pair.access_token))?.userId).toBe(account.userId);
  });
});
