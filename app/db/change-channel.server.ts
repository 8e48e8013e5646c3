import { type Kysely, sql } from "kysely";
import type SQLite from "better-sqlite3";
import pg from "pg";

/**
 * PostgreSQL's LISTEN/NOTIFY as the change channel between server processes (app/lib/data-version.server.ts).
 * One channel per schema, since notifications span the whole database like advisory locks. The payload is the
 * primary's write-ahead-log position after the change (for a process reading from a replica to wait until its
 * replica has replayed that far), then `|` and the scope of the change (app/lib/data-version.server.ts: the ids of the
 * companies and managers whose pages changed, or `*`): no author, no review, no time.
 */

const channelPrefix = "candor_changes:";

export type Listener = { close: () => Promise<void> };

type ListenerEvents = {
  /** A change committed somewhere, with the primary's WAL position (empty when unknown) and its encoded scope. */
  changed: (position: string, scope: string) => void;
  /** The channel is listening (true) or lost (false); while lost, changes elsewhere go unheard. */
  connected: (up: boolean) => void;
  failed: (error: unknown) => void;
};

/**
 * Listens on a connection of its own, and reconnects (after 0.5 s, then up to 5 s apart) whenever it is lost.
 */
export function listenForChanges(url: string, events: ListenerEvents): Listener {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let attempts = 0;

  function lost(error: unknown) {
    if (closed) return;
    events.connected(false);
    if (error) events.failed(error);
    const current = client;
    client = undefined;
    current?.removeAllListeners();
    current?.on("error", () => {});
    void current?.end().catch(() => {});
    attempts += 1;
    retry = setTimeout(connect, Math.min(500 * attempts, 5_000));
  }

  async function connect() {
    if (closed) return;
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, keepAlive: true });
    client = next;
    next.on("error", (error) => lost(error));
    next.on("end", () => client === next && lost(undefined));
    next.on("notification", (message) => {
      const [position = "", scope = "*"] = (message.payload ?? "").split("|");
      events.changed(position, scope);
    });
    try {
      await next.connect();
      const { rows } = await next.query<{ schema: string }>("select current_schema() as schema");
      await next.query(`listen ${next.escapeIdentifier(channelPrefix + rows[0]!.schema)}`);
      if (client !== next || closed) return;
      attempts = 0;
      events.connected(true);
    } catch (error) {
      if (client === next) lost(error);
    }
  }

  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      const current = client;
      client = undefined;
      current?.removeAllListeners();
      current?.on("error", () => {});
      await current?.end().catch(() => {});
    },
  };
}

/**
 * Tells every listening process that public data changed, and what (an encoded scope); run after the change
 * committed, never inside it.
 */
export async function notifyChanged(db: Kysely<any>, scope: string): Promise<void> {
  await sql`select pg_notify(${channelPrefix} || current_schema(), pg_current_wal_lsn()::text || '|' || ${scope})`.execute(
    db,
  );
}

/** The primary's current WAL position, for a change announced through another channel (Redis). */
export async function walPosition(db: Kysely<any>): Promise<string> {
  const { rows } = await sql<{ position: string }>`select pg_current_wal_lsn()::text as position`.execute(db);
  return rows[0]!.position;
}

/**
 * Waits until the replica behind `replica` has replayed the primary's WAL up to `position`, checking every 10 ms,
 * for at most `timeoutMs`; answers whether it got there. A replica that lags longer is reported by the caller.
 */
export async function waitForReplay(replica: Kysely<any>, position: string, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await sql<{
      done: boolean | null;
    }>`select pg_last_wal_replay_lsn() >= ${position}::pg_lsn as done`.execute(replica);
    // null: not a replica at all (DATABASE_READ_URL names the primary), so nothing to wait for.
    if (rows[0]?.done !== false) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * SQLite's change channel (docs/decisions/0045-a-sqlite-server-hears-of-other-processes.md): a command run beside the
 * server (`npm run reviews:publish`, `npm run admin`) counts the `change_generation` row up and writes its scope there,
 * after its change committed.
 */
export async function recordChangeForServers(db: Kysely<any>, scope: string): Promise<void> {
  await sql`update change_generation set generation = generation + 1, scope = ${scope} where id = 1`.execute(db);
}

/**
 * The server's side of it: answers a function to call before using a kept page. It asks SQLite whether any other
 * connection committed to the file since it last asked (`PRAGMA data_version`, read from memory shared by the
 * connections, a microsecond or two); only then does it read the one `change_generation` row. It answers the encoded
 * scope of a change made elsewhere (`*` when more than one came since, or it cannot tell), or undefined. The server's
 * own commits never move data_version, and the checkpoint thread's upkeep moves it without moving the generation.
 */
export function watchOtherWriters(sqlite: SQLite.Database): () => string | undefined {
  const fileVersion = sqlite.prepare("pragma data_version").pluck();
  const generationRow = sqlite.prepare("select generation, scope from change_generation where id = 1");
  const read = () => generationRow.get() as { generation: number | bigint; scope: string } | undefined;
  let seenVersion = fileVersion.get() as number;
  let seenGeneration = Number(read()?.generation ?? 0);
  return () => {
    const version = fileVersion.get() as number;
    if (version === seenVersion) return undefined;
    seenVersion = version;
    let row: ReturnType<typeof read>;
    try {
      row = read();
    } catch {
      // The row could not be read now (the file busy in a way a read does not wait out): assume every page changed.
      return "*";
    }
    const generation = Number(row?.generation ?? 0);
    if (generation === seenGeneration) return undefined;
    const one = generation === seenGeneration + 1;
    seenGeneration = generation;
    return one && row ? row.scope : "*";
  };
}
