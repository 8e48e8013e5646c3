/**
 * When sessions may have ended: a counter that moves whenever any session may have been ended or changed (a sign-out,
 * "sign out everywhere", a password change or reset, a deleted account, a revoked API token family), here or in
 * another process. What remembers that a session cookie was valid (app/http/session.server.ts, `sharedReaderOf`)
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
