/**
 * A counter of committed changes to public data (a publication of reviews, a new company or manager), in this
 * process. server/page-cache.ts keeps a rendered page only while the counter still has the value it had when the
 * page's request began, and serves kept pages only while `cacheUsable()`.
 *
 * With several processes, a change channel (server/change-channel.ts: PostgreSQL LISTEN/NOTIFY or Redis pub/sub)
 * tells every process of every change: `announce` sends it (coalesced, after the commit), `changedElsewhere` counts
 * one received. While the channel is down no process can hear of others' changes, so kept pages are not served
 * until it is back (`channelConnected(false)`); reconnecting counts as a change, since some may have been missed.
 */
let version = 0;
let connected = true;
let announce: (() => void) | undefined;

export function dataVersion(): number {
  return version;
}

export function cacheUsable(): boolean {
  return connected;
}

/** Called after every committed change to public data: every cached page may now be out of date, here and elsewhere. */
export function publicDataChanged(): void {
  version += 1;
  announce?.();
}

/** Another process committed a change. */
export function changedElsewhere(): void {
  version += 1;
}

export function channelConnected(value: boolean): void {
  if (value !== connected) version += 1;
  connected = value;
}

/** Installs (or with undefined, removes) what tells the other processes of a change made here. */
export function announceChangesWith(send: (() => void) | undefined): void {
  announce = send;
}

/**
 * Turns an async `send` into a fire-and-forget signal that coalesces: while one send is under way, any number of
 * further signals make exactly one more send after it. A burst of commits costs one or two messages, never one each.
 */
export function coalesced(send: () => Promise<void>, onError: (error: unknown) => void): () => void {
  let running = false;
  let again = false;
  async function run() {
    running = true;
    do {
      again = false;
      try {
        await send();
      } catch (error) {
        onError(error);
      }
    } while (again);
    running = false;
  }
  return () => {
    if (running) again = true;
    else void run();
  };
}
