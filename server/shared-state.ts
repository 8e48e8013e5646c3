import type { Logger } from "pino";
import {
  listenForChanges,
  notifyChanged,
  recordChangeForServers,
  waitForReplay,
  walPosition,
  watchOtherWriters,
  type Listener,
} from "#app/db/change-channel.server.ts";
import type { DatabaseHandle } from "#app/db/connection.server.ts";
import { databaseId } from "#app/domain/publication.server.ts";
import {
  announceChangesWith,
  type ChangeScope,
  changedElsewhere,
  channelConnected,
  coalesced,
  decodeScope,
  encodeScope,
  hearChangesWith,
} from "#app/lib/data-version.server.ts";
import { keepRateLimitsIn } from "#app/lib/rate-limit.server.ts";
import { announceRevocationsWith, sessionsRevokedElsewhere } from "#app/lib/session-revocation.server.ts";
import { connectRedis, subscribe } from "#app/lib/redis.server.ts";
import { replicaBehind } from "#app/db/replica-health.server.ts";
import { checkRedisWith } from "#app/http/readiness.server.ts";

/**
 * What every server process must agree on, wired at start-up (docs/deploy.md):
 * - rate-limit counters: in Redis when REDIS_URL is set, else in PostgreSQL's `rate_limits` table, else (SQLite,
 *   one process) in memory;
 * - the change channel that empties every process's page cache when public data changes: Redis pub/sub, or
 *   PostgreSQL LISTEN/NOTIFY, sent after the commit and coalesced; on SQLite, the `change_generation` row a command
 *   counts up, looked at before a kept page is used (decision 0045). The same channel says that a
 *   session ended somewhere (`sessionsEnded`, naming nobody), so that every process forgets the session cookies it
 *   found valid (app/lib/session-revocation.server.ts, decision 0034).
 * Answers what stops it.
 */
export async function startSharedState(options: {
  handle: DatabaseHandle;
  databaseUrl: string;
  redisUrl: string | undefined;
  logger: Logger;
}): Promise<{ stop: () => Promise<void> }> {
  const { handle, databaseUrl, redisUrl, logger } = options;
  const { db, engine } = handle;

  /** A change heard on the channel: with a replica, counted once the replica has replayed it. */
  async function heard(position: string, scope: string) {
    if (handle.replica && position) {
      const caughtUp = await waitForReplay(handle.read, position).catch(() => false);
      // Readers read the primary until the replica has caught up: no page is rendered, nor kept, from older data.
      if (!caughtUp) replicaBehind();
    }
    changedElsewhere(decodeScope(scope));
  }
  /** What the channel carried: a change of public data, or that sessions ended (no replica to wait for). */
  const onHeard = (position: string, scope: string) => {
    if (scope === sessionsEnded) sessionsRevokedElsewhere();
    else void heard(position, scope);
  };
  const onConnected = (up: boolean) => {
    channelConnected(up);
    // Sessions may end unheard while the channel is lost (and remembered ones are not used meanwhile).
    sessionsRevokedElsewhere();
    if (!up) logger.warn("the change channel is lost: cached pages are not served until it is back");
  };
  const onSendFailed = (error: unknown) =>
    logger.warn({ err: error }, "could not announce a change to other processes");

  if (redisUrl) {
    channelConnected(false);
    const prefix = await redisPrefix(db);
    const client = connectRedis(redisUrl);
    // Commands fail while Redis is not connected: wait (5 s at most) so that the first requests find it ready.
    await untilReady(client, 5_000);
    keepRateLimitsIn({ kind: "redis", client, prefix });
    checkRedisWith(() => client.ping());
    const channel = changesChannel(prefix);
    const subscriber = subscribe(redisUrl, channel, {
      changed: (message) => {
        const [position = "", scope = "*"] = message.split("|");
        onHeard(position, scope);
      },
      connected: onConnected,
    });
    announceChangesWith(coalesced((scope) => publishChange(client, channel, handle, scope), onSendFailed));
    const revoked = coalesced(() => client.publish(channel, `|${sessionsEnded}`).then(() => {}), onSendFailed);
    announceRevocationsWith(() => revoked(undefined));
    return {
      async stop() {
        announceChangesWith(undefined);
        announceRevocationsWith(undefined);
        checkRedisWith(undefined);
        await subscriber.close();
        client.disconnect();
        keepRateLimitsIn({ kind: "memory" });
      },
    };
  }

  if (engine === "postgres" && handle.pool) {
    keepRateLimitsIn({ kind: "postgres", pool: handle.pool });
    channelConnected(false);
    const listener: Listener = listenForChanges(databaseUrl, {
      changed: onHeard,
      connected: onConnected,
      failed: (error) => logger.warn({ err: error }, "the change channel failed"),
    });
    announceChangesWith(coalesced((scope) => notifyChanged(db, encodeScope(scope)), onSendFailed));
    const revoked = coalesced(() => notifyChanged(db, sessionsEnded), onSendFailed);
    announceRevocationsWith(() => revoked(undefined));
    return {
      async stop() {
        announceChangesWith(undefined);
        announceRevocationsWith(undefined);
        await listener.close();
        keepRateLimitsIn({ kind: "memory" });
      },
    };
  }

  keepRateLimitsIn({ kind: "memory" });
  if (handle.sqlite) {
    const look = watchOtherWriters(handle.sqlite);
    hearChangesWith(() => {
      const scope = look();
      if (scope !== undefined) changedElsewhere(decodeScope(scope));
    });
  }
  return { stop: async () => hearChangesWith(undefined) };
}

/**
 * The channel's message that some session ended (in place of a change's scope): it names no account or session. A
 * process of an older version reads it as a change of everything, which is safe.
 */
const sessionsEnded = "sessions";

/** This site's keys in a shared Redis: under the database's random id. */
async function redisPrefix(db: DatabaseHandle["db"]): Promise<string> {
  return `candor:${await databaseId(db)}:`;
}

const changesChannel = (prefix: string) => `${prefix}changes`;

async function publishChange(
  client: { publish: (channel: string, message: string) => Promise<unknown> },
  channel: string,
  handle: DatabaseHandle,
  scope: ChangeScope | undefined,
) {
  const position = handle.engine === "postgres" ? await walPosition(handle.db) : "";
  await client.publish(channel, `${position}|${encodeScope(scope)}`);
}

/**
 * For a command run beside the servers (`npm run reviews:publish`, `npm run admin`): tells every server process that
 * public data changed, once, and waits until it is sent. On SQLite without Redis, the `change_generation` row the
 * server looks at.
 */
export async function announceChange(
  handle: DatabaseHandle,
  redisUrl: string | undefined,
  scope?: ChangeScope,
): Promise<void> {
  if (redisUrl) {
    const client = connectRedis(redisUrl);
    try {
      await untilReady(client, 5_000);
      await publishChange(client, changesChannel(await redisPrefix(handle.db)), handle, scope);
    } finally {
      client.disconnect();
    }
  } else if (handle.engine === "postgres") {
    await notifyChanged(handle.db, encodeScope(scope));
  } else {
    await recordChangeForServers(handle.db, encodeScope(scope));
  }
}

/** Resolves once `client` is ready, or after `timeoutMs` (a Redis still down is then retried in the background). */
function untilReady(client: ReturnType<typeof connectRedis>, timeoutMs: number): Promise<void> {
  if (client.status === "ready") return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    client.once("ready", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
