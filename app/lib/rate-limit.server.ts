import { LRUCache } from "lru-cache";
import { env } from "./env.server.ts";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
} from "rate-limiter-flexible";

/**
 * Rate limits per action, keyed on a keyed hash of the client IP (never the IP itself) and, where an account is
 * targeted, on a hash of the e-mail too. Every key is an opaque string and every operation one that the
 * rate-limiter-flexible stores share (consume, reward, delete, get, set). Where the counters live is chosen once at
 * start-up (keepRateLimitsIn): PostgreSQL's `rate_limits` table or Redis, shared by every process and kept across
 * restarts, or this process's memory, bounded, for a single SQLite process. docs/security.md explains the design.
 */
export const rateLimits = {
  /** Password and code checks from one address, whichever accounts they aim at; a success never clears it. */
  signIn: { points: 10, duration: 15 * 60 },
  /** Password checks on one account from one address; the account's owner signing in there clears it. */
  signInAccountIp: { points: 10, duration: 15 * 60 },
  /** Password checks on one account from everywhere: binds only addresses the account was never used from. */
  signInAccount: { points: 20, duration: 60 * 60 },
  /**
   * The addresses an account signed in from: its owner's usual networks. Two weeks: the memory store expires keys
   * with a timer, and timers longer than 24.8 days fire at once.
   */
  knownNetwork: { points: 1, duration: 14 * 24 * 60 * 60 },
  /** Sign-ups from one address: a burst is stopped, an office's colleagues arriving through the day are not. */
  signUp: { points: 5, duration: 10 * 60 },
  signUpDaily: { points: 30, duration: 24 * 60 * 60 },
  /** Sign-ups from everywhere: a ceiling on mass registration from many addresses. */
  signUpGlobal: { points: 1000, duration: 60 * 60 },
  passwordReset: { points: 5, duration: 60 * 60 },
  verificationMail: { points: 5, duration: 60 * 60 },
  tokenRefresh: { points: 60, duration: 60 * 60 },
  review: { points: 30, duration: 60 * 60 },
  contribution: { points: 30, duration: 60 * 60 },
  feedback: { points: 5, duration: 60 * 60 },
  /** Helpful votes (cast or taken back) from one address: a reader's browsing, not a flood. */
  vote: { points: 60, duration: 60 * 60 },
  /** Reports of reviews from one address: enough for a reader, not for flooding the moderators' queue. */
  report: { points: 10, duration: 60 * 60 },
  /** Appeals and withdrawals with a review key: a key has 128 random bits, so this only stops floods. */
  reviewKey: { points: 20, duration: 60 * 60 },
  /** Work-address codes mailed for one address, one account, and one client address. */
  verificationCodeAddress: { points: 3, duration: 60 * 60 },
  verificationCodeAccount: { points: 5, duration: 24 * 60 * 60 },
  verificationCodeIp: { points: 10, duration: 60 * 60 },
  /** Code checks and token issuance from one client address, whatever the code. */
  verificationIssue: { points: 10, duration: 60 * 60 },
  /** One-review tokens issued to one client address (each account gets one per manager anyway). */
  reviewTokenIssue: { points: 30, duration: 60 * 60 },
} as const satisfies Record<string, { points: number; duration: number }>;

export type RateLimitName = keyof typeof rateLimits;

export class RateLimitedError extends Error {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super(`Too many attempts. Try again in ${describeWait(retryAfterSeconds)}.`);
    this.name = "RateLimitedError";
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

function describeWait(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? "" : "s"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

export const apiRateLimits = {
  apiRead: { points: 600, duration: 60 },
  apiWrite: { points: 60, duration: 60 * 60 },
} as const;

type LimiterName = RateLimitName | keyof typeof apiRateLimits;
const allLimits: Record<LimiterName, { points: number; duration: number }> = { ...rateLimits, ...apiRateLimits };

/**
 * Counters kept in each process's memory whatever the store, never in PostgreSQL or Redis: everything a reader does
 * with a review, a vote, an appeal, a withdrawal, a report, a work-address verification or the API. A shared
 * counter is a row (or a key) named by the client address's hash, written in the same moment as the contribution:
 * next to the `knownNetwork` rows that name the accounts signing in from that address, it would tell which account
 * contributed in which hour, and its `xmin` would sit next to the contribution's own transaction
 * (docs/decisions/0055-contribution-counters-live-in-memory.md). Each process counts on its own, so with N processes
 * a client gets up to N times the allowance: these limits stop floods, not people. What stays in the store is what
 * account management needs across restarts: sign-in guessing, sign-ups, password resets, mails, token refreshes.
 */
const memoryOnly = new Set<LimiterName>([
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
  "apiRead",
  "apiWrite",
]);

/** True when `name` is counted in this process's memory only, whatever the store. */
export function countedInMemoryOnly(name: LimiterName): boolean {
  return memoryOnly.has(name);
}

/** Where counters live: set once at start-up by the server; memory until then (and in unit tests). */
export type RateLimitStore =
  | { kind: "memory"; maxKeys?: number }
  /** A node-postgres Pool whose search_path reaches the `rate_limits` table (migration 0013). */
  | { kind: "postgres"; pool: unknown }
  /** An ioredis client; `prefix` keeps this site's keys apart from others' in a shared Redis. */
  | { kind: "redis"; client: unknown; prefix: string };

/**
 * Client keys each memory limiter keeps at most: the least recently used go first. A key costs about 100 bytes of
 * heap (its string and its slot in the LRU), so a full limiter holds about 2 MB.
 */
export const memoryMaxKeys = 20_000;

let store: RateLimitStore = { kind: "memory" };
const limiters = new Map<LimiterName, RateLimiterAbstract>();

export function keepRateLimitsIn(next: RateLimitStore): void {
  store = next;
  limiters.clear();
}

/**
 * The memory store of rate-limiter-flexible keeps every key until it expires, each with a record and a timer of its
 * own: a flood from many addresses grows it without bound, and every new address leaves three objects that outlive
 * the young generation (the garbage collector's old generation then fills with counters that die there). This
 * store keeps each key's points in an LRU of `maxKeys` entries whose time to live is the key's window: a number per
 * key, no record, no timer; an expired key is found stale when next read and counts from zero again. Evicting a
 * counter forgets an address's attempts early, so the bound is well above the number of addresses a single-process
 * site sees in one window. Its methods are those the library's `MemoryStorage` offers `RateLimiterMemory`.
 */
class LruMemoryStorage {
  readonly #points: LRUCache<string, number>;

  constructor(maxKeys: number) {
    // The clock is read at each call, and through Date: tests that fake the clock move the windows with it.
    this.#points = new LRUCache({ max: maxKeys, ttlResolution: 0, perf: { now: () => Date.now() } });
  }

  /** The points of `key` and how long they still count, in ms (-1: without end), or null once its window ended. */
  #current(key: string): { points: number; msLeft: number } | null {
    const points = this.#points.get(key);
    const left = this.#points.getRemainingTTL(key);
    if (points === undefined || left <= 0) return null;
    return { points, msLeft: left === Infinity ? -1 : left };
  }

  incrby(key: string, value: number, durationSec: number): RateLimiterRes {
    const current = this.#current(key);
    if (!current) return this.set(key, value, durationSec);
    this.#points.set(key, current.points + value, { noUpdateTTL: true });
    return new RateLimiterRes(0, current.msLeft, current.points + value, false);
  }

  set(key: string, value: number, durationSec: number): RateLimiterRes {
    const ms = Math.round(durationSec * 1000);
    this.#points.set(key, value, { ttl: Math.max(0, ms) });
    return new RateLimiterRes(0, ms > 0 ? ms : -1, value, true);
  }

  get(key: string): RateLimiterRes | null {
    const current = this.#current(key);
    return current && new RateLimiterRes(0, current.msLeft, current.points, false);
  }

  delete(key: string): boolean {
    return this.#points.delete(key);
  }

  /** Forgets every key that starts with `prefix`. */
  deleteStartingWith(prefix: string): void {
    for (const key of [...this.#points.keys()]) if (key.startsWith(prefix)) this.#points.delete(key);
  }
}

function boundedMemoryLimiter(options: { keyPrefix: string; points: number; duration: number }, maxKeys: number) {
  const limiter = new RateLimiterMemory(options);
  (limiter as unknown as { _memoryStorage: LruMemoryStorage })._memoryStorage = new LruMemoryStorage(maxKeys);
  return limiter;
}

function limiter(name: LimiterName): RateLimiterAbstract {
  let existing = limiters.get(name);
  if (!existing) {
    const options = { keyPrefix: name, ...allLimits[name] };
    existing = memoryOnly.has(name)
      ? boundedMemoryLimiter(options, store.kind === "memory" ? (store.maxKeys ?? memoryMaxKeys) : memoryMaxKeys)
      : store.kind === "postgres"
        ? new RateLimiterPostgres({
            ...options,
            storeClient: store.pool,
            tableName: "rate_limits",
            tableCreated: true,
            // Expired rows are deleted by any process, an hour after they expired.
            clearExpiredByTimeout: true,
          })
        : store.kind === "redis"
          ? new RateLimiterRedis({ ...options, keyPrefix: `${store.prefix}${name}`, storeClient: store.client })
          : boundedMemoryLimiter(options, store.maxKeys ?? memoryMaxKeys);
    limiters.set(name, existing);
  }
  return existing;
}

async function consumeOne(name: LimiterName, key: string): Promise<RateLimiterRes> {
  // RATE_LIMITS=off (test suites only): nothing is counted, every attempt passes with the whole allowance left.
  if (env().RATE_LIMITS === "off") return new RateLimiterRes(allLimits[name].points, 0, 0, false);
  try {
    return await limiter(name).consume(key, 1);
  } catch (error) {
    if (error instanceof RateLimiterRes) throw new RateLimitedError(Math.max(1, Math.ceil(error.msBeforeNext / 1000)));
    throw error;
  }
}

/** Counts one attempt for `key`; throws RateLimitedError once the limit is spent. */
export async function consume(name: RateLimitName, key: string): Promise<void> {
  await consumeOne(name, key);
}

/** Forgets the attempts of `key`. */
export async function reset(name: RateLimitName, key: string): Promise<void> {
  await limiter(name).delete(key);
}

/** Gives back one attempt of `key` (an attempt that turned out to be legitimate). */
async function refund(name: RateLimitName, key: string): Promise<void> {
  await limiter(name).reward(key, 1);
}

/** One password (or code) check under way: counted already; tell it when the password was right. */
export type PasswordAttempt = { succeeded: () => Promise<void> };

/**
 * Counts one password check against the limits of its address and account (OWASP's authentication advice), and
 * throws RateLimitedError once one is spent:
 * - per address (signIn): whatever accounts an address tries, it gets 10 wrong guesses per 15 minutes. A success
 *   gives back only its own attempt, so signing in to one's own account between guesses buys nothing;
 * - per account and address (signInAccountIp): the same bound on one account from one address; the owner's
 *   success clears it;
 * - per account (signInAccount): guesses from many addresses (a botnet) stop after 20 an hour, but only for
 *   addresses the account never signed in from: its owner, on a network where they signed in before, can always
 *   sign in with the right password, so nobody elsewhere can lock them out.
 * `accountKey` is null where the account is not known yet (a two-factor code).
 *
 * The attempt is counted before the check runs, not after it failed: parallel guesses cannot slip past a limit
 * while the first ones are still being checked.
 */
export async function beginPasswordAttempt(ipKey: string, accountKey: string | null): Promise<PasswordAttempt> {
  // RATE_LIMITS=off: nothing counted, so nothing given back either (no negative counts left for a later run).
  if (env().RATE_LIMITS === "off") return { succeeded: async () => {} };
  await consume("signIn", ipKey);
  const pair = accountKey === null ? null : `${accountKey}:${ipKey}`;
  if (accountKey !== null && pair !== null) {
    await consume("signInAccountIp", pair);
    const known = ((await limiter("knownNetwork").get(pair))?.consumedPoints ?? 0) > 0;
    try {
      await consume("signInAccount", accountKey);
    } catch (error) {
      if (!(known && error instanceof RateLimitedError)) throw error;
    }
  }
  return {
    async succeeded() {
      await refund("signIn", ipKey);
      if (accountKey === null || pair === null) return;
      await refund("signInAccount", accountKey);
      await reset("signInAccountIp", pair);
      await limiter("knownNetwork").set(pair, 1, rateLimits.knownNetwork.duration);
    },
  };
}

/**
 * Remembers `ipKey` as one of the account's usual networks, as a successful sign-in does: a sign-up counts as a
 * sign-in from its address, so an account that never signed in since is not locked out by guesses from elsewhere.
 */
export async function rememberNetwork(ipKey: string, accountKey: string): Promise<void> {
  if (env().RATE_LIMITS === "off") return;
  await limiter("knownNetwork").set(`${accountKey}:${ipKey}`, 1, rateLimits.knownNetwork.duration);
}

/**
 * Forgets what the limits hold about an account (its usual networks and its counts of guesses), when it is
 * deleted: their keys carry a keyed hash of its e-mail address, which a holder of the secret could test guesses
 * against.
 */
export async function forgetAccountLimits(accountKey: string): Promise<void> {
  const prefixes = [`knownNetwork:${accountKey}:`, `signInAccountIp:${accountKey}:`, `signInAccount:${accountKey}`];
  if (store.kind === "postgres") {
    const pool = store.pool as { query: (text: string, values: unknown[]) => Promise<unknown> };
    await pool.query("delete from rate_limits where key like $1 or key like $2 or key = $3", [
      `${likeLiteral(prefixes[0]!)}%`,
      `${likeLiteral(prefixes[1]!)}%`,
      prefixes[2],
    ]);
  } else if (store.kind === "redis") {
    const client = store.client as {
      scan: (cursor: string, ...args: (string | number)[]) => Promise<[string, string[]]>;
      del: (...keys: string[]) => Promise<number>;
    };
    for (const prefix of prefixes) {
      let cursor = "0";
      do {
        const [next, keys] = await client.scan(
          cursor,
          "MATCH",
          `${store.prefix}${globLiteral(prefix)}*`,
          "COUNT",
          1000,
        );
        if (keys.length > 0) await client.del(...keys);
        cursor = next;
      } while (cursor !== "0");
    }
  } else {
    for (const name of ["knownNetwork", "signInAccountIp", "signInAccount"] as const) {
      const storage = (limiter(name) as unknown as { _memoryStorage: LruMemoryStorage })._memoryStorage;
      storage.deleteStartingWith(prefixes.find((prefix) => prefix.startsWith(`${name}:`))!);
    }
  }
}

const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);
const globLiteral = (text: string) => text.replace(/[\\*?[\]]/g, (character) => `\\${character}`);

/**
 * Counts one sign-up: at most 5 from one address in 10 minutes and 30 a day, and 1000 an hour from everywhere.
 * Colleagues behind one office address, arriving through the day, pass; a script signing up in a burst does not.
 */
export async function consumeSignUp(ipKey: string): Promise<void> {
  await consume("signUp", ipKey);
  await consume("signUpDaily", ipKey);
  await consume("signUpGlobal", "everyone");
}

export type RateLimitState = { limit: number; remaining: number; resetSeconds: number };

/**
 * Counts one API request and returns the state for the RateLimit headers; throws RateLimitedError once spent.
 */
export async function consumeApi(name: keyof typeof apiRateLimits, key: string): Promise<RateLimitState> {
  const state = await consumeOne(name, key);
  return {
    limit: apiRateLimits[name].points,
    remaining: state.remainingPoints,
    resetSeconds: Math.ceil(state.msBeforeNext / 1000),
  };
}
