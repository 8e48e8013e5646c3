import { Redis } from "ioredis";

/**
 * Redis, when REDIS_URL is set: rate-limit counters (rate-limit.server.ts) and the change channel between server
 * processes (pub/sub), instead of PostgreSQL. Commands fail at once while Redis is unreachable (no offline queue:
 * a request must not hang on it); the clients reconnect by themselves.
 */
export function connectRedis(url: string): Redis {
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
  client.on("error", () => {});
  return client;
}

type SubscriberEvents = {
  changed: (payload: string) => void;
  connected: (up: boolean) => void;
};

/** Subscribes to `channel` on a connection of its own (a subscribed Redis connection takes no other command). */
export function subscribe(url: string, channel: string, events: SubscriberEvents): { close: () => Promise<void> } {
  // Subscriptions are renewed on every reconnection (ioredis's autoResubscribe).
  const client = new Redis(url, { maxRetriesPerRequest: null });
  client.on("error", () => {});
  client.on("ready", () => events.connected(true));
  client.on("close", () => events.connected(false));
  client.on("message", (_channel: string, payload: string) => events.changed(payload));
  void client.subscribe(channel).catch(() => {});
  return {
    async close() {
      client.removeAllListeners();
      client.on("error", () => {});
      client.disconnect();
    },
  };
}
