import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { cacheUsable } from "./data-version.server.ts";

/**
 * When sessions may have ended: a counter that moves whenever any session may have been ended or changed (a sign-out,
 * "sign out everywhere", a password change or reset, a deleted account, a revoked API token family), here or in
 * another process. What remembers that a session cookie or an API token was valid (`rememberedUntilSessionsEnd`)
 * forgets it when the counter moves.
 *
 * The message between processes names nobody: it says only that some session ended somewhere
 * (server/shared-state.ts sends it on the change channel of decision 0027), so every process forgets every session
 * it remembered and checks each again at its next request.
 */

let generation = 0;
let announce: (() => void) | undefined;

export function sessionGeneration(): number {
  return generation;
}

/** A session may have ended in this process: forget them all here, and tell the other processes. */
export function sessionsRevoked(): void {
  generation += 1;
  announce?.();
}

/** Another process ended a session, or the channel that would have said so was lost or is back. */
export function sessionsRevokedElsewhere(): void {
  generation += 1;
}

/** Installs (or with undefined, removes) what tells the other processes that sessions ended here. */
export function announceRevocationsWith(send: (() => void) | undefined): void {
  announce = send;
}

/** How long a credential found valid is believed without asking again, unless a session ends meanwhile. */
export const verifiedSessionMs = 30_000;

/**
 * A memory of credentials found valid (a session cookie, an API access token), each under the SHA-256 of its secret
 * in an LRU of `max`. `check` believes one for `verifiedSessionMs` at most and never past the expiry `verify` gave,
 * and only while no session has ended anywhere since it was found valid: a sign-out here forgets at once, elsewhere
 * when the change channel says so, and nothing is used while that channel is lost. A refusal is never remembered,
 * and a credential whose session ended while it was being checked is not remembered.
 */
export function rememberedUntilSessionsEnd<Value>(max: number) {
  const remembered = new LRUCache<string, { value: Value; until: number; generation: number }>({ max });
  return {
    async check(
      secret: string,
      now: number,
      verify: () => Promise<{ value: Value; expiresAt: number } | undefined>,
    ): Promise<Value | undefined> {
      const key = createHash("sha256").update(secret).digest("base64url");
      const began = generation;
      const usable = cacheUsable();
      const known = usable ? remembered.get(key) : undefined;
      if (known && known.generation === began && known.until > now) return known.value;
      const found = await verify();
      if (!found) {
        remembered.delete(key);
        return undefined;
      }
      if (usable && generation === began) {
        remembered.set(key, {
          value: found.value,
          until: Math.min(now + verifiedSessionMs, found.expiresAt),
          generation,
        });
      }
      return found.value;
    },
  };
}
