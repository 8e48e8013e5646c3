import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

/**
 * Rate limits per action, keyed on a keyed hash of the client IP (never the IP itself) and, where an account is
 * targeted, on a hash of the e-mail too. Every key is an opaque string and every operation one that the
 * rate-limiter-flexible stores share (consume, reward, delete, get, set), so a PostgreSQL or Redis store can replace
 * the memory one. Counters live in this process's memory for now; several processes behind one address each count
 * on their own, which only makes a limit looser by that factor. docs/security.md explains the design.
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
  /** Work-address codes mailed for one address, one account, and one client address. */
  verificationCodeAddress: { points: 3, duration: 60 * 60 },
  verificationCodeAccount: { points: 5, duration: 24 * 60 * 60 },
  verificationCodeIp: { points: 10, duration: 60 * 60 },
  /** Code checks and token issuance from one client address, whatever the code. */
  verificationIssue: { points: 10, duration: 60 * 60 },
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

const limiters = new Map<RateLimitName, RateLimiterMemory>();

function limiter(name: RateLimitName): RateLimiterMemory {
  let existing = limiters.get(name);
  if (!existing) {
    existing = new RateLimiterMemory({ keyPrefix: name, ...rateLimits[name] });
    limiters.set(name, existing);
  }
  return existing;
}

/** Counts one attempt for `key`; throws RateLimitedError once the limit is spent. */
export async function consume(name: RateLimitName, key: string): Promise<void> {
  try {
    await limiter(name).consume(key);
  } catch (error) {
    if (error instanceof RateLimiterRes) throw new RateLimitedError(Math.max(1, Math.ceil(error.msBeforeNext / 1000)));
    throw error;
  }
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

export const apiRateLimits = {
  apiRead: { points: 600, duration: 60 },
  apiWrite: { points: 60, duration: 60 * 60 },
} as const;

const apiLimiters = new Map<keyof typeof apiRateLimits, RateLimiterMemory>();

export type RateLimitState = { limit: number; remaining: number; resetSeconds: number };

/**
 * Counts one API request and returns the state for the RateLimit headers; throws RateLimitedError once spent.
 */
export async function consumeApi(name: keyof typeof apiRateLimits, key: string): Promise<RateLimitState> {
  let limiter = apiLimiters.get(name);
  if (!limiter) {
    limiter = new RateLimiterMemory({ keyPrefix: name, ...apiRateLimits[name] });
    apiLimiters.set(name, limiter);
  }
  try {
    const state = await limiter.consume(key);
    return {
      limit: apiRateLimits[name].points,
      remaining: state.remainingPoints,
      resetSeconds: Math.ceil(state.msBeforeNext / 1000),
    };
  } catch (error) {
    if (error instanceof RateLimiterRes) throw new RateLimitedError(Math.max(1, Math.ceil(error.msBeforeNext / 1000)));
    throw error;
  }
}
