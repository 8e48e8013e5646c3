/**
 * What tells server/page-cache.ts whether a kept answer is still current: a counter of changes that may touch every
 * public page (`dataVersion`), and for narrower changes, the moment (a stamp from a counter of changes in this
 * process) each subject last changed. A kept answer carries the tags of what it shows (`company:4`, `manager:7`, or
 * `lists` for search results and lists, which may show any subject) and is used only while the version is the one
 * its request began with and none of its tags changed since (`unchangedSince`). A published review of company 4
 * makes the pages of company 4 and every list stale, and leaves the other companies' pages kept.
 *
 * With several processes, a change channel (app/db/change-channel.server.ts: PostgreSQL LISTEN/NOTIFY, or Redis
 * pub/sub in server/shared-state.ts) tells every process of every change with its scope: `announce` sends it
 * (coalesced, after the commit), `changedElsewhere` applies one received. While the channel is down no process can
 * hear of others' changes, so kept pages are not served until it is back (`channelConnected(false)`); reconnecting
 * counts as a change of everything, since some may have been missed.
 */

/**
 * The subjects a change touched, and whether it added any (a new company or manager can join any search's
 * answer); lists always count as touched. Undefined: everything.
 */
export type ChangeScope = { companies: number[]; managers: number[]; added?: boolean };

let version = 0;
let stamp = 0;
const changedAt = new Map<string, number>();
// Beyond this many remembered subjects, one change of everything is cheaper than remembering them all.
const maxRemembered = 50_000;
let connected = true;
let announce: ((scope: ChangeScope | undefined) => void) | undefined;
/** Looks, synchronously, whether another process changed public data (a SQLite server: hearChangesWith). */
let hear: (() => void) | undefined;

/** The current version; before answering, hears of changes other processes made, where that is looked up. */
export function dataVersion(): number {
  hear?.();
  return version;
}

/**
 * Installs (or with undefined, removes) a synchronous look for changes made by other processes, run each time a kept
 * answer is checked: for SQLite, where no channel carries them (change-channel.server.ts, watchOtherWriters).
 */
export function hearChangesWith(look: (() => void) | undefined): void {
  hear = look;
}

/** The current stamp: a kept answer made from here on is stale once any of its tags changes later. */
export function changeStamp(): number {
  return stamp;
}

/** Whether none of `tags` changed after `since` (a stamp). */
export function unchangedSince(since: number, tags: readonly string[]): boolean {
  for (const tag of tags) if ((changedAt.get(tag) ?? 0) > since) return false;
  return true;
}

export function cacheUsable(): boolean {
  return connected;
}

function apply(scope: ChangeScope | undefined): void {
  if (!scope || changedAt.size + scope.companies.length + scope.managers.length > maxRemembered) {
    version += 1;
    changedAt.clear();
    return;
  }
  stamp += 1;
  changedAt.set("lists", stamp);
  if (scope.added) changedAt.set("subjects", stamp);
  for (const id of scope.companies) changedAt.set(`company:${id}`, stamp);
  for (const id of scope.managers) changedAt.set(`manager:${id}`, stamp);
}

/**
 * Called after every committed change to public data, with the subjects it touched (undefined: any page may now be
 * out of date), here and, through the change channel, in every other process.
 */
export function publicDataChanged(scope?: ChangeScope): void {
  apply(scope);
  announce?.(scope);
}

/** Another process committed a change. */
export function changedElsewhere(scope?: ChangeScope): void {
  apply(scope);
}

export function channelConnected(value: boolean): void {
  if (value !== connected) version += 1;
  connected = value;
}

/** Installs (or with undefined, removes) what tells the other processes of a change made here. */
export function announceChangesWith(send: ((scope: ChangeScope | undefined) => void) | undefined): void {
  announce = send;
}

/** The union of two scopes (undefined, everything, absorbs any other). */
export function mergeScopes(a: ChangeScope | undefined, b: ChangeScope | undefined): ChangeScope | undefined {
  if (!a || !b) return undefined;
  return {
    companies: [...new Set([...a.companies, ...b.companies])],
    managers: [...new Set([...a.managers, ...b.managers])],
    ...(a.added || b.added ? { added: true } : {}),
  };
}

/**
 * A scope as the change channel carries it: `*` for everything, else `c1,2;m3`, with `;+` when subjects were added
 * (subject ids only: they are public, and the batch they came from is public once published). Messages longer than
 * `limit` say `*` instead.
 */
export function encodeScope(scope: ChangeScope | undefined, limit = 7_000): string {
  if (!scope) return "*";
  const text = `c${scope.companies.join(",")};m${scope.managers.join(",")}${scope.added ? ";+" : ""}`;
  return text.length > limit ? "*" : text;
}

export function decodeScope(text: string): ChangeScope | undefined {
  const match = /^c([\d,]*);m([\d,]*)(;\+)?$/.exec(text);
  if (!match) return undefined;
  const ids = (list: string) => (list ? list.split(",").map(Number) : []);
  return { companies: ids(match[1]!), managers: ids(match[2]!), ...(match[3] ? { added: true } : {}) };
}

/**
 * Turns an async `send` of a scope into a fire-and-forget signal that coalesces: while one send is under way, any
 * number of further signals make exactly one more send after it, of the union of their scopes. A burst of commits
 * costs one or two messages, never one each.
 */
export function coalesced(
  send: (scope: ChangeScope | undefined) => Promise<void>,
  onError: (error: unknown) => void,
): (scope: ChangeScope | undefined) => void {
  let running = false;
  let pending: { scope: ChangeScope | undefined } | undefined;
  async function run(first: ChangeScope | undefined) {
    running = true;
    let scope: ChangeScope | undefined = first;
    for (;;) {
      try {
        await send(scope);
      } catch (error) {
        onError(error);
      }
      if (!pending) break;
      scope = pending.scope;
      pending = undefined;
    }
    running = false;
  }
  return (scope) => {
    if (running) pending = pending ? { scope: mergeScopes(pending.scope, scope) } : { scope };
    else void run(scope);
  };
}
