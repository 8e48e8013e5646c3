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
 * Counters of contributions and of verification, kept outside the process, count in windows aligned to the clock
 * (whole hours, or the UTC day for a day's limit) rather than from the first attempt: a stored expiry then says
 * "this address contributed, or asked for a code, in this hour", never the moment it did (docs/anonymity.md: no
 * submit time finer than the publication batch, and no issuance time either).
 */
const clockAligned = new Set<LimiterName>([
  "review",
  "contribution",
  "feedback",
  "apiWrite",
  "verificationCodeAddress",
  "verificationCodeAccount",
  "verificationCodeIp",
  "verificationIssue",
  "reviewTokenIssue",
]);

/**
 * Counters kept in each process's memory whatever the store: a helpful vote is written when cast, so a shared
 * counter's row (keyed by the client address's hash, its `xmin` next to the vote's) would tie an address to the
 * review it voted for (docs/decisions/0016-helpful-votes-with-a-key-only-the-account-holds.md). Each process then
 * counts on its own.
 */
const memoryOnly = new Set<LimiterName>(["vote"]);

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
}

function boundedMemoryLimiter(options: { keyPrefix: string; points: number; duration: number }, maxKeys: number) {
  const limiter = new RateLimiterMemory(options);
  (limiter as unknown as { _memoryStorage: LruMemoryStorage })._memoryStorage = new LruMemoryStorage(maxKeys);
  return limiter;
}

/**
 * The PostgreSQL store writes `now + duration` into a bigint column: a clock-aligned duration, a fraction of a
 * second, is rounded to whole milliseconds first (the stored expiry is then the window's end, give or take the
 * moments between the two readings of the clock).
 */
class WholeMillisecondPostgres extends RateLimiterPostgres {
  _upsert(key: string, points: number, msDuration: number, forceExpire = false): Promise<unknown> {
    const upsert = RateLimiterPostgres.prototype as unknown as {
      _upsert: (key: string, points: number, msDuration: number, forceExpire: boolean) => Promise<unknown>;
    };
    return upsert._upsert.call(this, key, points, Math.round(msDuration), forceExpire);
  }
}

function limiter(name: LimiterName): RateLimiterAbstract {
  let existing = limiters.get(name);
  if (!existing) {
    const options = { keyPrefix: name, ...allLimits[name] };
    existing = memoryOnly.has(name)
      ? boundedMemoryLimiter(options, memoryMaxKeys)
      : store.kind === "postgres"
        ? new WholeMillisecondPostgres({
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

/** The rest of the clock-aligned window, in whole milliseconds (as seconds: the stores multiply by 1000). */
function consumeOptions(name: LimiterName): { customDuration?: number } {
  if (store.kind === "memory" || memoryOnly.has(name) || !clockAligned.has(name)) return {};
  const windowMs = allLimits[name].duration * 1000;
  const now = Date.now();
  return { customDuration: (Math.ceil((now + 1) / windowMs) * windowMs - now) / 1000 };
}

async function consumeOne(name: LimiterName, key: string): Promise<RateLimiterRes> {
  // RATE_LIMITS=off (test suites only): nothing is counted, every attempt passes with the whole allowance left.
  if (env().RATE_LIMITS === "off") return new RateLimiterRes(allLimits[name].points, 0, 0, false);
  try {
    return await limiter(name).consume(key, 1, consumeOptions(name));
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
