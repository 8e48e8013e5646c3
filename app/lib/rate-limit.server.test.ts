import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Redis } from "ioredis";
import { sql } from "kysely";
import { createTestDatabase, type TestDatabase } from "#tests/support/test-database.ts";
import {
  beginPasswordAttempt,
  consume,
  consumeSignUp,
  consumeApi,
  forgetAccountLimits,
  RateLimitedError,
  rememberNetwork,
  rateLimits,
  keepRateLimitsIn,
} from "./rate-limit.server.ts";

let unique = 0;
const newKey = (label: string) => `${label}-${(unique += 1)}`;

async function refused(attempt: Promise<unknown>): Promise<boolean> {
  try {
    await attempt;
    return false;
  } catch (error) {
    if (error instanceof RateLimitedError) return true;
    throw error;
  }
}

/** One wrong password: the attempt is counted and never told of a success. */
const guess = (ip: string, account: string | null) => refused(beginPasswordAttempt(ip, account));

describe("password attempts", () => {
  it("does not let successes on one's own account buy guesses on another (success after every 8 failures)", async () => {
    const attacker = newKey("ip");
    const [victim, own] = [newKey("victim"), newKey("own")];
    let failures = 0;
    for (let round = 0; round < 10; round += 1) {
      for (let index = 0; index < 8; index += 1) {
        if (await guess(attacker, victim)) break;
        failures += 1;
      }
      const login = beginPasswordAttempt(attacker, own).then((attempt) => attempt.succeeded());
      if (await refused(login)) break;
    }
    expect(failures).toBe(rateLimits.signIn.points);
  });

  it("never locks the owner out of their usual network, whatever is guessed from elsewhere", async () => {
    const [owner, account] = [newKey("home"), newKey("account")];
    await (await beginPasswordAttempt(owner, account)).succeeded();
    // The store's timers run: what it remembers must outlast them.
    await new Promise((resolve) => setTimeout(resolve, 20));
    // A botnet: one guess from each of many addresses, far beyond the account's limit.
    let botnetRefused = 0;
    for (let index = 0; index < rateLimits.signInAccount.points * 3; index += 1) {
      if (await guess(newKey("bot"), account)) botnetRefused += 1;
    }
    expect(botnetRefused).toBe(rateLimits.signInAccount.points * 2);
    // The owner, from home, with the right password.
    const attempt = await beginPasswordAttempt(owner, account);
    await attempt.succeeded();
    // ... and even after a few typos of their own.
    for (let index = 0; index < 3; index += 1) expect(await guess(owner, account)).toBe(false);
    await (await beginPasswordAttempt(owner, account)).succeeded();
  });

  // Proven live: without rememberNetwork the owner's attempt below is refused (the account's 20 are spent).
  it("counts a sign-up as a sign-in from its address: an account never signed in since is not locked out", async () => {
    const [home, account] = [newKey("home"), newKey("account")];
    await rememberNetwork(home, account);
    for (let index = 0; index < rateLimits.signInAccount.points + 5; index += 1) await guess(newKey("bot"), account);
    expect(await guess(newKey("bot"), account)).toBe(true);
    expect(await refused(beginPasswordAttempt(home, account))).toBe(false);
  });

  it("limits one account from one address, and a success elsewhere never clears the address's count", async () => {
    const [ip, account, other] = [newKey("ip"), newKey("account"), newKey("other")];
    for (let index = 0; index < 4; index += 1) expect(await guess(ip, account)).toBe(false);
    await (await beginPasswordAttempt(ip, other)).succeeded();
    // The address still carries its 4 failures: 6 more and it is refused, for every account.
    for (let index = 0; index < 6; index += 1) expect(await guess(ip, account)).toBe(false);
    expect(await guess(ip, newKey("third"))).toBe(true);
  });

  it("counts attempts before they are checked, so parallel guesses cannot overrun a limit", async () => {
    const [ip, account] = [newKey("ip"), newKey("account")];
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => guess(ip, account)));
    expect(outcomes.filter((wasRefused) => !wasRefused)).toHaveLength(rateLimits.signIn.points);
  });
});

describe("sign-ups", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"] });
    vi.setSystemTime(new Date("2026-03-02T09:00:00Z"));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("lets ten colleagues behind one office address sign up over an hour", async () => {
    const office = newKey("office");
    for (let colleague = 1; colleague <= 10; colleague += 1) {
      expect(await refused(consumeSignUp(office)), `colleague ${colleague}`).toBe(false);
      vi.advanceTimersByTime(6 * 60 * 1000);
    }
  });

  it("stops a burst from one address, and a slow drip at the daily ceiling", async () => {
    const script = newKey("script");
    for (let index = 0; index < rateLimits.signUp.points; index += 1) {
      expect(await refused(consumeSignUp(script))).toBe(false);
    }
    expect(await refused(consumeSignUp(script))).toBe(true);

    const drip = newKey("drip");
    let accepted = 0;
    for (let minute = 0; minute < 24 * 60; minute += 3) {
      if (!(await refused(consumeSignUp(drip)))) accepted += 1;
      vi.advanceTimersByTime(3 * 60 * 1000);
    }
    expect(accepted).toBe(rateLimits.signUpDaily.points);
  });
});

describe("the memory store", () => {
  afterEach(() => keepRateLimitsIn({ kind: "memory" }));

  it("keeps at most maxKeys client keys: a flood of new addresses pushes out the least recently seen", async () => {
    keepRateLimitsIn({ kind: "memory", maxKeys: 100 });
    const first = newKey("first");
    for (let index = 0; index < rateLimits.feedback.points; index += 1) await consume("feedback", first);
    expect(await refused(consume("feedback", first))).toBe(true);
    // 100 other addresses: the first one's counter is the least recently used, and goes.
    for (let index = 0; index < 100; index += 1) await consume("feedback", newKey("flood"));
    expect(await refused(consume("feedback", first))).toBe(false);
  });

  it("counts in windows of the limit's duration, says when the window ends, and starts the next one from zero", async () => {
    vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"] });
    try {
      const reader = newKey("reader");
      const { points, duration } = { points: 600, duration: 60 };
      expect(await consumeApi("apiRead", reader)).toEqual({
        limit: points,
        remaining: points - 1,
        resetSeconds: duration,
      });
      vi.advanceTimersByTime(20_000);
      expect(await consumeApi("apiRead", reader)).toEqual({ limit: points, remaining: points - 2, resetSeconds: 40 });
      for (let index = 2; index < points; index += 1) await consumeApi("apiRead", reader);
      const spent = await consumeApi("apiRead", reader).catch((error: unknown) => error);
      expect(spent).toBeInstanceOf(RateLimitedError);
      expect((spent as RateLimitedError).retryAfterSeconds).toBe(40);
      vi.advanceTimersByTime(40_000);
      expect(await consumeApi("apiRead", reader)).toEqual({
        limit: points,
        remaining: points - 1,
        resetSeconds: duration,
      });
      // No timer per key: a flood of new addresses leaves nothing behind but their counters.
      for (let index = 0; index < 1_000; index += 1) await consumeApi("apiRead", newKey("flood"));
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("the PostgreSQL store", () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase("postgres");
    keepRateLimitsIn({ kind: "postgres", pool: database.pool });
  });
  afterEach(async () => {
    keepRateLimitsIn({ kind: "memory" });
    await database.drop();
  });

  it("keeps counting where a new process (new limiters) takes over", async () => {
    const ip = newKey("ip");
    for (let index = 0; index < rateLimits.passwordReset.points - 1; index += 1) await consume("passwordReset", ip);
    keepRateLimitsIn({ kind: "postgres", pool: database.pool });
    expect(await refused(consume("passwordReset", ip))).toBe(false);
    expect(await refused(consume("passwordReset", ip))).toBe(true);
  });

  // Proven live: with "review" taken out of the memory-only set, the first expectation finds the row and fails.
  it("keeps no row for contributions, votes, reports, review keys, verification or the API: nothing names an hour", async () => {
    const ip = newKey("ip");
    const names = [
      "review",
      "contribution",
      "feedback",
      "vote",
      "report",
      "reviewKey",
      "verificationCodeAddress",
      "verificationCodeAccount",
      "verificationCodeIp",
      "verificationIssue",
      "reviewTokenIssue",
    ] as const;
    for (const name of names) await consume(name, ip);
    await consumeApi("apiWrite", ip);
    await consumeApi("apiRead", ip);
    const { rows } = await sql<{ key: string }>`select key from rate_limits`.execute(database.db);
    expect(rows).toEqual([]);
    // The limits still hold, in this process's memory.
    for (let index = 1; index < rateLimits.vote.points; index += 1) await consume("vote", ip);
    expect(await refused(consume("vote", ip))).toBe(true);
  });

  it("keeps what account management needs, and forgets an account's rows when it is deleted", async () => {
    const [home, account, other] = [newKey("home"), newKey("acc_%"), newKey("account")];
    await (await beginPasswordAttempt(home, account)).succeeded();
    await guess(newKey("bot"), account);
    await rememberNetwork(home, other);
    const keys = async () =>
      (await sql<{ key: string }>`select key from rate_limits order by key`.execute(database.db)).rows.map(
        (row) => row.key,
      );
    expect((await keys()).filter((key) => key.includes(account))).toHaveLength(3);
    await forgetAccountLimits(account);
    // Proven live: with forgetAccountLimits emptied, the account's three rows stay and this fails.
    expect((await keys()).filter((key) => key.includes(account))).toEqual([]);
    expect(await keys()).toContain(`knownNetwork:${other}:${home}`);
  });
});

describe("the Redis store", () => {
  // Proven live: with forgetAccountLimits' Redis branch skipped, this test fails.
  it("forgets an account's keys when it is deleted, and keeps no contribution counter", async () => {
    const client = new Redis(process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379");
    const prefix = `candor-test-${process.pid}-${newKey("redis")}:`;
    keepRateLimitsIn({ kind: "redis", client, prefix });
    try {
      const [home, account, other] = [newKey("home"), newKey("acc_*"), newKey("account")];
      await rememberNetwork(home, account);
      await rememberNetwork(home, other);
      await (await beginPasswordAttempt(newKey("bot"), account)).succeeded();
      await consume("review", home);
      expect((await client.keys(`${prefix}*`)).filter((key) => key.includes(account))).toHaveLength(3);
      await forgetAccountLimits(account);
      const left = await client.keys(`${prefix}*`);
      expect(left.filter((key) => key.includes(account))).toEqual([]);
      expect(left).toContain(`${prefix}knownNetwork:${other}:${home}`);
      expect(left.filter((key) => key.includes("review"))).toEqual([]);
      if (left.length > 0) await client.del(...left);
    } finally {
      keepRateLimitsIn({ kind: "memory" });
      client.disconnect();
    }
  });
});
