import { expect, it } from "vitest";
import { passwordGrant, revokeTokenFamily, type TokenPair } from "#app/domain/api-tokens.server.ts";
import { channelConnected } from "#app/lib/data-version.server.ts";
import { sessionsRevokedElsewhere, verifiedSessionMs } from "#app/lib/session-revocation.server.ts";
import { createTestAuth, signUpAccount } from "#tests/support/test-accounts.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { bearerAccount } from "./api-auth.server.ts";

// A bearer token found valid is believed for a while, as a session cookie is, and forgotten the moment any session
// ends. Each test removes the token's row behind the check's back: what is still accepted then came from memory.

describeEachEngine("the remembered bearer token check", (database) => {
  async function granted(email: string): Promise<TokenPair> {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth, email);
    const grant = await passwordGrant(auth, database().db, account, new Headers());
    if (!grant.ok) throw new Error(`Password grant failed: ${grant.message}`);
    return grant.pair;
  }

  const requestWith = (token: string) =>
    new Request("http://localhost/api/v1/companies/1/reviews", { headers: { authorization: `Bearer ${token}` } });

  async function forgetTokensInTheDatabase(): Promise<void> {
    await database().db.deleteFrom("api_tokens").where("kind", "=", "access").execute();
  }

  it("reads a valid token once, then believes it without the database", async () => {
    const pair = await granted("believed@example.com");
    const { db } = database();
    const account = await bearerAccount(requestWith(pair.access_token), { db });
    expect(account?.userId).toEqual(expect.any(String));
    await forgetTokensInTheDatabase();
    expect(await bearerAccount(requestWith(pair.access_token), { db })).toEqual(account);
  });

  it("never believes a token past its own expiry, nor longer than a session cookie", async () => {
    const pair = await granted("expiring@example.com");
    const { db } = database();
    const now = pair.expires_at * 1000 - 1_000;
    expect(await bearerAccount(requestWith(pair.access_token), { db, now })).toBeDefined();
    expect(await bearerAccount(requestWith(pair.access_token), { db, now: now + 2_000 })).toBeUndefined();

    const later = await granted("checked-again@example.com");
    expect(await bearerAccount(requestWith(later.access_token), { db })).toBeDefined();
    await forgetTokensInTheDatabase();
    const past = Date.now() + verifiedSessionMs + 1;
    expect(await bearerAccount(requestWith(later.access_token), { db, now: past })).toBeUndefined();
  });

  it("forgets a token at once when its family is revoked here", async () => {
    const pair = await granted("signed-out@example.com");
    const { db } = database();
    expect(await bearerAccount(requestWith(pair.access_token), { db })).toBeDefined();
    await revokeTokenFamily(db, pair.refresh_token);
    expect(await bearerAccount(requestWith(pair.access_token), { db })).toBeUndefined();
  });

  it("asks again after another process said a session ended, and while the change channel is lost", async () => {
    const { db } = database();
    const elsewhere = await granted("elsewhere@example.com");
    expect(await bearerAccount(requestWith(elsewhere.access_token), { db })).toBeDefined();
    await forgetTokensInTheDatabase();
    sessionsRevokedElsewhere();
    expect(await bearerAccount(requestWith(elsewhere.access_token), { db })).toBeUndefined();

    const lost = await granted("channel-lost@example.com");
    channelConnected(false);
    try {
      expect(await bearerAccount(requestWith(lost.access_token), { db })).toBeDefined();
      await forgetTokensInTheDatabase();
      expect(await bearerAccount(requestWith(lost.access_token), { db })).toBeUndefined();
    } finally {
      channelConnected(true);
    }
  });

  it("never remembers a refusal, and reads no database for a header that is no bearer token", async () => {
    const pair = await granted("refused@example.com");
    const { db } = database();
    const unknown = `${pair.access_token.slice(0, -4)}AAAA`;
    expect(await bearerAccount(requestWith(unknown), { db })).toBeUndefined();
    expect(await bearerAccount(requestWith(pair.access_token), { db })).toBeDefined();
    const basic = new Request("http://localhost/", { headers: { authorization: "Basic dXNlcjpwYXNz" } });
    expect(await bearerAccount(basic, { db })).toBeUndefined();
  });
});
