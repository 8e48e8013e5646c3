import { pooledRandomBytes } from "./random.server.ts";

/** Review ids are random, not sequential, so their order tells nothing about who posted when. */
export function newReviewId(): string {
  return pooledRandomBytes(12).toString("base64url");
}

/** Today as YYYY-MM-DD (UTC): reviews are stored to the day, never to the instant. */
export function today(): string {
  return new Date().toISOString().slice(0, 10);
}
