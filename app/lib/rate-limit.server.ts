import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

/**
 * Rate limits per action, keyed on a keyed hash of the client IP (never the IP itself) and, where an account is
 * targeted, on a hash of the e-mail too. Counters live in this process's memory; several processes behind one
 * address each count on their own, which only makes a limit looser by that factor.
 */
export const rateLimits = {
  signIn: { points: 10, duration: 15 * 60 },
  signInAccount: { points: 20, duration: 60 * 60 },
  signUp: { points: 5, duration: 60 * 60 },
  passwordReset: { points: 5, duration: 60 * 60 },
  verificationMail: { points: 5, duration: 60 * 60 },
  tokenRefresh: { points: 60, duration: 60 * 60 },
  review: { points: 30, duration: 60 * 60 },
  contribution: { points: 30, duration: 60 * 60 },
  feedback: { points: 5, duration: 60 * 60 },
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

/** Forgets the attempts of `key`, e.g. after a successful sign-in. */
export async function reset(name: RateLimitName, key: string): Promise<void> {
  await limiter(name).delete(key);
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
