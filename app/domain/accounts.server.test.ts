import fs from "node:fs";
import type * as argon2Module from "@node-rs/argon2";
import { hash, verify } from "@node-rs/argon2";
import { describe, expect, it, vi } from "vitest";
import { createTestDatabase, describeEachEngine } from "#tests/support/test-database.ts";
import {
  insertCompany,
  insertCompanyReview,
  insertManager,
  insertManagerReview,
} from "#tests/support/test-fixtures.ts";
import {
  accountMessages,
  changePassword,
  currentAccount,
  deleteAccount,
  signIn,
  signOutEverywhere,
  signUp,
  signUpSchema,
} from "./accounts.server.ts";
import { passwordMessages } from "./password-policy.server.ts";
import {
  cookieHeader,
  createTestAuth,
  passwordSignsIn,
  signInAccount,
  signUpAccount,
  testPassword,
  withAuthTables,
} from "#tests/support/test-accounts.ts";

// argon2 as always, its calls counted: sign-in must do the same work whether or not the address has an account.
vi.mock("@node-rs/argon2", async (importOriginal) => {
  const argon2 = await importOriginal<typeof argon2Module>();
  return { ...argon2, hash: vi.fn(argon2.hash), verify: vi.fn(argon2.verify) };
});

describe("signUpSchema", () => {
  function firstProblem(password: string) {
    return signUpSchema.safeParse({ email: "ada@example.com", password }).error?.issues[0]?.message;
  }

  it("refuses common passwords and passwords shorter than 8 characters", () => {
    expect(firstProblem("password1")).toBe(passwordMessages.common);
    expect(firstProblem("baseball")).toBe(passwordMessages.common);
    expect(firstProblem("k7#Qz9w")).toBe(passwordMessages.tooShort);
  });

  it("accepts a 64-character password", () => {
    const password = "violet tractor sings quietly while the orange kettle hums along!";
    expect(password).toHaveLength(64);
    expect(signUpSchema.safeParse({ email: "ada@example.com", password }).success).toBe(true);
  });
});

describeEachEngine("sign-up", (database) => {
  it("stores the password as an argon2id hash with OWASP's parameters", async () => {
    const account = await signUpAccount(createTestAuth(database()));

    const row = await withAuthTables(database().db)
      .selectFrom("accounts")
      .select("password")
      .where("userId", "=", account.userId)
      .executeTakeFirstOrThrow();
    expect(row.password).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row.password).not.toContain(testPassword);
  });

  it("answers with an HttpOnly, SameSite=Lax session cookie", async () => {
    const result = await signUp(
      createTestAuth(database()),
      { email: "ada@example.com", password: testPassword },
      new Headers(),
    );

    expect(result.ok).toBe(true);
    const cookie = result.ok ? result.headers.getSetCookie().find((c) => c.startsWith("candor.session_token=")) : "";
    expect(cookie).toMatch(/; HttpOnly(;|$)/);
    expect(cookie).toMatch(/; SameSite=Lax(;|$)/);
  });

  it("keeps no IP address or user agent with the session, and the database refuses one", async () => {
    const headers = new Headers({ "user-agent": "Firefox/140.0", "x-forwarded-for": "203.0.113.7" });
    const result = await signUp(
      createTestAuth(database()),
      { email: "ada@example.com", password: testPassword },
      headers,
    );
    expect(result.ok).toBe(true);

    const rows = await withAuthTables(database().db)
      .selectFrom("sessions")
      .select(["userId", "ipAddress", "userAgent"])
      .execute();
    expect(rows).toEqual([{ userId: expect.any(String), ipAddress: null, userAgent: null }]);
    const insert = withAuthTables(database().db).insertInto("sessions").values({
      id: "forced-session",
      userId: rows[0]!.userId,
      token: "forced-token",
      expiresAt: "2099-01-01T00:00:00.000Z",
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
      ipAddress: "203.0.113.7",
    });
    await expect(insert.execute()).rejects.toThrow(/check/i);
  });

  it("refuses a second account with the same e-mail address", async () => {
    const auth = createTestAuth(database());
    await signUpAccount(auth, "ada@example.com");

    const again = await signUp(auth, { email: "ada@example.com", password: "another fine passphrase" }, new Headers());

    expect(again).toEqual({ ok: false, message: accountMessages.emailTaken, status: 409 });
  });
});

describeEachEngine("sign-in", (database) => {
  it("answers a wrong password and an unknown e-mail with the same message and status", async () => {
    const auth = createTestAuth(database());
    await signUpAccount(auth, "ada@example.com");

    const wrongPassword = await signIn(auth, { email: "ada@example.com", password: "not my password" }, new Headers());
    const unknownEmail = await signIn(auth, { email: "bob@example.com", password: testPassword }, new Headers());

    expect(wrongPassword).toEqual({ ok: false, message: accountMessages.invalidCredentials, status: 401 });
    expect(unknownEmail).toEqual(wrongPassword);
  });

  it("verifies a password once for an unknown e-mail, a wrong password and the right one, with alike hashes", async () => {
    const auth = createTestAuth(database());
    await signUpAccount(auth, "ada@example.com");
    const stored = await withAuthTables(database().db)
      .selectFrom("accounts")
      .select("password")
      .executeTakeFirstOrThrow();
    /** The argon2 calls of one sign-in: the hashes it verified against, and how many hashes it made. */
    async function argon2Calls(email: string, password: string) {
      vi.mocked(verify).mockClear();
      vi.mocked(hash).mockClear();
      await signIn(auth, { email, password }, new Headers());
      return {
        verified: vi.mocked(verify).mock.calls.map(([against]) => against),
        hashed: vi.mocked(hash).mock.calls.length,
      };
    }
    /** An argon2 hash without its salt and digest: the algorithm, version and parameters. */
    const parameters = (encoded: string) => encoded.split("$").slice(0, 4).join("$");

    const wrongPassword = await argon2Calls("ada@example.com", "not my password");
    const unknownEmail = await argon2Calls("bob@example.com", "not my password");
    const rightPassword = await argon2Calls("ada@example.com", testPassword);

    expect(wrongPassword).toEqual({ verified: [stored.password], hashed: 0 });
    expect(unknownEmail.hashed).toBe(0);
    expect(unknownEmail.verified).toHaveLength(1);
    expect(unknownEmail.verified[0]).not.toBe(stored.password);
    expect(parameters(String(unknownEmail.verified[0]))).toBe(parameters(String(stored.password)));
    expect(parameters(String(stored.password))).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1$/);
    // better-auth's own check of the right password finds it checked already: one verification, not two.
    expect(rightPassword).toEqual({ verified: [stored.password], hashed: 0 });
  });
});

describeEachEngine("account page", (database) => {
  async function sessionCount(userId: string): Promise<number> {
    const rows = await database().db.selectFrom("sessions").select("id").where("userId", "=", userId).execute();
    return rows.length;
  }

  it("changes the password, ends the other sessions and keeps this browser signed in", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);
    const otherBrowser = await signInAccount(auth, account);

    const changed = await changePassword(
      auth,
      { currentPassword: account.password, newPassword: "a brand new passphrase" },
      account.headers,
    );

    expect(changed.ok).toBe(true);
    // better-auth re-issues this browser's session with the change; the response carries its cookie.
    const thisBrowser = changed.ok ? cookieHeader(changed.headers) : new Headers();
    expect((await currentAccount(auth, thisBrowser))?.user.id).toBe(account.userId);
    expect(await currentAccount(auth, otherBrowser)).toBeNull();
    expect(await sessionCount(account.userId)).toBe(1);
    expect(await passwordSignsIn(auth, account.email, account.password)).toBe(false);
    expect(await passwordSignsIn(auth, account.email, "a brand new passphrase")).toBe(true);
  });

  it("refuses an easy new password on sign-up and password change, even asked of better-auth directly", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);

    for (const weak of ["aaaaaaaa", "        "]) {
      expect(signUpSchema.safeParse({ email: "bob@example.com", password: weak }).error?.issues[0]?.message).toBe(
        passwordMessages.weak,
      );
      expect(await signUp(auth, { email: "bob@example.com", password: weak }, new Headers())).toEqual({
        ok: false,
        message: passwordMessages.weak,
        status: 400,
      });
      const changed = await changePassword(
        auth,
        { currentPassword: account.password, newPassword: weak },
        account.headers,
      );
      expect(changed.ok).toBe(false);
    }
    expect(await passwordSignsIn(auth, "bob@example.com", "aaaaaaaa")).toBe(false);
    expect(await passwordSignsIn(auth, account.email, account.password)).toBe(true);
    expect(await passwordSignsIn(auth, account.email, "aaaaaaaa")).toBe(false);
  });

  it("refuses to change the password when the current one is wrong", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth);
    const otherBrowser = await signInAccount(auth, account);

    const changed = await changePassword(
      auth,
      { currentPassword: "not my password", newPassword: "a brand new passphrase" },
      account.headers,
    );

    expect(changed).toEqual({ ok: false, message: accountMessages.currentPasswordWrong, status: 400 });
    expect(await currentAccount(auth, otherBrowser)).not.toBeNull();
    expect(await passwordSignsIn(auth, account.email, account.password)).toBe(true);
  });

  it("signs out everywhere: every session of the account ends, other accounts' stay", async () => {
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth, "ada@example.com");
    await signInAccount(auth, account);
    const someoneElse = await signUpAccount(auth, "bob@example.com");

    const cleared = await signOutEverywhere(auth, account.headers);

    expect(await sessionCount(account.userId)).toBe(0);
    expect(cleared.getSetCookie()).toContainEqual(expect.stringMatching(/^candor\.session_token=;.*Max-Age=0/));
    expect(await currentAccount(auth, someoneElse.headers)).not.toBeNull();
  });

  it("deletes the account with its password, and leaves every review in place", async () => {
    const auth = createTestAuth(database());
    const { db } = database();
    const account = await signUpAccount(auth);
    const companyId = await insertCompany(db, { name: "Acme" });
    await insertCompanyReview(db, companyId);
    const managerId = await insertManager(db, { first_name: "Grace", last_name: "Hopper" }, [companyId]);
    await insertManagerReview(db, managerId);
    const reviewsBefore = {
      company: await db.selectFrom("company_reviews").selectAll().execute(),
      manager: await db.selectFrom("manager_reviews").selectAll().execute(),
    };

    const refused = await deleteAccount(auth, db, "not my password", account.headers);
    expect(refused).toEqual({ ok: false, message: accountMessages.currentPasswordWrong, status: 400 });
    const deleted = await deleteAccount(auth, db, account.password, account.headers);

    expect(deleted.ok).toBe(true);
    expect(await db.selectFrom("users").select("id").execute()).toEqual([]);
    expect(await sessionCount(account.userId)).toBe(0);
    expect(await db.selectFrom("company_reviews").selectAll().execute()).toEqual(reviewsBefore.company);
    expect(await db.selectFrom("manager_reviews").selectAll().execute()).toEqual(reviewsBefore.manager);
    expect(reviewsBefore.company).toHaveLength(1);
    expect(reviewsBefore.manager).toHaveLength(1);
  });
});

describe("deleting an account on SQLite", () => {
  it("leaves no copy of its e-mail, id or password hash in the database file or its WAL", async () => {
    const database = await createTestDatabase("sqlite");
    try {
      const auth = createTestAuth(database);
      const account = await signUpAccount(auth, "wal-witness@example.com");
      const { password: hash } = await withAuthTables(database.db)
        .selectFrom("accounts")
        .select("password")
        .where("userId", "=", account.userId)
        .executeTakeFirstOrThrow();
      const traces = [account.email, account.userId, hash!];
      const raw = () => Buffer.concat([fs.readFileSync(database.url), fs.readFileSync(`${database.url}-wal`)]);
      // The witness: before deletion every trace is there to be found.
      for (const trace of traces) expect(raw().includes(trace)).toBe(true);

      expect((await deleteAccount(auth, database.db, account.password, account.headers)).ok).toBe(true);

      for (const trace of traces) expect(raw().includes(trace), trace).toBe(false);
    } finally {
      await database.drop();
    }
  });
});
