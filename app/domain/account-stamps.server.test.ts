import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { dayMs, dayOf, minuteAfter } from "#app/lib/account-stamps.ts";
import { backgroundSettled } from "#app/lib/background.server.ts";
import * as accountStamps from "#app/db/migrations/0041-account-stamps-to-the-day.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { createTestAuth, signInAccount, signUpAccount, withAuthTables } from "#tests/support/test-accounts.ts";
import { changePassword, currentAccount, requestPasswordReset } from "./accounts.server.ts";
import { authenticateAccessToken, issueTokenPair } from "./api-tokens.server.ts";

const asMs = (value: unknown) => new Date(value as string | Date).getTime();

/** Every stamp of better-auth's tables and the API tokens, as [where, milliseconds since the epoch]. */
async function accountStampsOf(db: Parameters<typeof withAuthTables>[0]) {
  const auth = withAuthTables(db).withTables<{
    users: { createdAt: Date | string; updatedAt: Date | string };
    accounts: { createdAt: Date | string; updatedAt: Date | string };
    verifications: { createdAt: Date | string; updatedAt: Date | string };
  }>();
  const stamps: Array<[string, number]> = [];
  for (const row of await auth.selectFrom("users").select(["createdAt", "updatedAt"]).execute()) {
    stamps.push(["users.createdAt", asMs(row.createdAt)], ["users.updatedAt", asMs(row.updatedAt)]);
  }
  for (const row of await auth.selectFrom("accounts").select(["createdAt", "updatedAt"]).execute()) {
    stamps.push(["accounts.createdAt", asMs(row.createdAt)], ["accounts.updatedAt", asMs(row.updatedAt)]);
  }
  for (const row of await auth.selectFrom("sessions").select(["createdAt", "updatedAt", "expiresAt"]).execute()) {
    stamps.push(
      ["sessions.createdAt", asMs(row.createdAt)],
      ["sessions.updatedAt", asMs(row.updatedAt)],
      ["sessions.expiresAt", asMs(row.expiresAt)],
    );
  }
  for (const row of await auth.selectFrom("verifications").select(["createdAt", "updatedAt"]).execute()) {
    stamps.push(["verifications.createdAt", asMs(row.createdAt)], ["verifications.updatedAt", asMs(row.updatedAt)]);
  }
  return stamps;
}

describe("coarse account stamps", () => {
  it("cuts a moment to its day and rounds an expiry up to the minute", () => {
    const at = Date.UTC(2026, 11, 2, 15, 3, 2, 123);
    expect(dayOf(at).toISOString()).toBe("2026-12-02T00:00:00.000Z");
    expect(minuteAfter(at).toISOString()).toBe("2026-12-02T15:04:00.000Z");
    expect(minuteAfter(Date.UTC(2026, 11, 2, 15, 3)).toISOString()).toBe("2026-12-02T15:03:00.000Z");
  });
});

describeEachEngine("account stamps to the day", (database) => {
  // Live: without the databaseHooks of app/domain/auth.server.ts (or with `coarseStamps` returning its row as it
  // came) every one of these stamps carries its millisecond, and this test fails on the first of them.
  it("stores sign-up, sign-in, password change and reset-link stamps to the day", async () => {
    const { db } = database();
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth, "day@example.com");
    await signInAccount(auth, account);
    const changed = await changePassword(
      auth,
      { currentPassword: account.password, newPassword: "amber kettle hums softly" },
      account.headers,
    );
    expect(changed.ok).toBe(true);
    requestPasswordReset(auth, account.email);
    await backgroundSettled();
    const stamps = await accountStampsOf(db);
    expect(stamps.map(([where]) => where)).toEqual(
      expect.arrayContaining([
        "users.createdAt",
        "sessions.createdAt",
        "accounts.updatedAt",
        "verifications.createdAt",
      ]),
    );
    for (const [where, ms] of stamps) expect(ms % dayMs, `${where} ${new Date(ms).toISOString()}`).toBe(0);
    const [link] = await withAuthTables(db).selectFrom("verifications").select("expiresAt").execute();
    const linkExpiry = asMs(link!.expiresAt);
    expect(linkExpiry % 60_000).toBe(0);
    expect(linkExpiry).toBeGreaterThanOrEqual(Date.now() + 59 * 60_000);
  });

  // Live: with better-auth's daily refresh (updateAge: one day, disableSessionRefresh off) the row below is written
  // again with a new expiry, and this test fails.
  it("never writes a session again once it is open, however old it is, and it ends 30 days after sign-in", async () => {
    const { db } = database();
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth, "old@example.com");
    const sessions = withAuthTables(db).withTables<{ sessions: { expiresAt: Date | string; userId: string } }>();
    const twentyDaysAgo = dayOf(Date.now() - 20 * dayMs);
    const expiry = dayOf(Date.now() + 10 * dayMs);
    const stored = (at: Date) => (database().engine === "postgres" ? at : at.toISOString());
    await sessions
      .updateTable("sessions")
      .set({ createdAt: stored(twentyDaysAgo), updatedAt: stored(twentyDaysAgo), expiresAt: stored(expiry) } as never)
      .where("userId", "=", account.userId)
      .execute();
    expect(await currentAccount(auth, account.headers, { refresh: true })).not.toBeNull();
    const [row] = await sessions.selectFrom("sessions").select(["updatedAt", "expiresAt"]).execute();
    expect(asMs(row!.updatedAt)).toBe(twentyDaysAgo.getTime());
    expect(asMs(row!.expiresAt)).toBe(expiry.getTime());
  });

  // Live: with the access token's expiry stored as it is (15 minutes after the grant), the first row fails.
  it("stores API token expiries to the day: the access token carries its own, covered by its stored hash", async () => {
    const { db } = database();
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth, "api@example.com");
    const session = await currentAccount(auth, account.headers);
    const pair = await issueTokenPair(db, session!.sessionId, Date.UTC(2026, 11, 2, 15, 3, 2, 123));
    // Its expiry rides in the token, and a token whose expiry was moved is no token at all.
    const at = Date.UTC(2026, 11, 2, 15, 10);
    expect((await authenticateAccessToken(db, pair.access_token, at))?.validUntil).toBe(
      Date.UTC(2026, 11, 2, 15, 18, 2, 123),
    );
    expect(await authenticateAccessToken(db, pair.access_token, Date.UTC(2026, 11, 2, 15, 18, 3))).toBeUndefined();
    const moved = pair.access_token.replace(/\.[0-9a-z]+$/, `.${Date.UTC(2026, 11, 2, 23).toString(36)}`);
    expect(await authenticateAccessToken(db, moved, at)).toBeUndefined();
    const rows = await db.selectFrom("api_tokens").select(["kind", "expires_at"]).orderBy("kind").execute();
    expect(rows.map((row) => [row.kind, new Date(Number(row.expires_at)).toISOString()])).toEqual([
      ["access", "2026-12-03T00:00:00.000Z"],
      ["refresh", "2027-01-01T00:00:00.000Z"],
    ]);
  });

  // Live: without the migration's updates the millisecond stamps written below stay, and this test fails.
  it("cuts the stamps already stored to the day (migration 0041)", async () => {
    const { db, engine } = database();
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth, "before@example.com");
    const at = new Date(Date.UTC(2026, 10, 20, 9, 41, 7, 345));
    const soon = new Date(Date.UTC(2026, 10, 20, 10, 41, 7, 345));
    const stored = (value: Date) => (engine === "postgres" ? value : value.toISOString());
    for (const table of ["users", "accounts"]) {
      await sql`update ${sql.table(table)} set "createdAt" = ${stored(at)}, "updatedAt" = ${stored(at)}`.execute(db);
    }
    await sql`update sessions set "createdAt" = ${stored(at)}, "updatedAt" = ${stored(at)}, "expiresAt" = ${stored(soon)}`.execute(
      db,
    );
    await sql`insert into verifications (id, identifier, value, "expiresAt", "createdAt", "updatedAt") values ('v1', 'reset-password:x', ${account.userId}, ${stored(soon)}, ${stored(at)}, ${stored(at)})`.execute(
      db,
    );
    const [session] = await withAuthTables(db).selectFrom("sessions").select("id").execute();
    await issueTokenPair(db, session!.id);
    await sql`update api_tokens set expires_at = ${at.getTime()}`.execute(db);
    await accountStamps.up(db);
    for (const [where, ms] of await accountStampsOf(db)) {
      expect(ms, where).toBe(Date.UTC(2026, 10, 20));
    }
    const [link] = await withAuthTables(db).selectFrom("verifications").select("expiresAt").execute();
    expect(new Date(asMs(link!.expiresAt)).toISOString()).toBe("2026-11-20T10:42:00.000Z");
    const tokens = await db.selectFrom("api_tokens").select(["kind", "expires_at"]).orderBy("kind").execute();
    expect(tokens.map((row) => [row.kind, new Date(Number(row.expires_at)).toISOString()])).toEqual([
      ["refresh", "2026-11-20T00:00:00.000Z"],
    ]);
  });
});
