// What an attacker who holds a copy of the server reads out of raw storage: SQLite's WAL frames and page images,
// pg_waldump's records. Used by anonymity-attacker.test.ts; see docs/anonymity.md for the threat model.
import { execFile } from "node:child_process";
import fs from "node:fs";
import { promisify } from "node:util";

/** The pages one committed SQLite transaction wrote, in the WAL's order. */
export type WalTransaction = { index: number; pages: Map<number, Buffer>; endOffset: number };

/**
 * The committed transactions of the WAL's current generation: frames whose salts match the header, grouped up to
 * each commit frame. Frames of an older generation (other salts) end the walk; they are still raw bytes to scan.
 */
export function walTransactions(wal: Buffer): WalTransaction[] {
  if (wal.length < 32) return [];
  const pageSize = wal.readUInt32BE(8);
  const [salt1, salt2] = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  const transactions: WalTransaction[] = [];
  let pending = new Map<number, Buffer>();
  for (let offset = 32; offset + 24 + pageSize <= wal.length; offset += 24 + pageSize) {
    if (wal.readUInt32BE(offset + 8) !== salt1 || wal.readUInt32BE(offset + 12) !== salt2) break;
    pending.set(wal.readUInt32BE(offset), wal.subarray(offset + 24, offset + 24 + pageSize));
    if (wal.readUInt32BE(offset + 4) !== 0) {
      transactions.push({ index: transactions.length, pages: pending, endOffset: offset + 24 + pageSize });
      pending = new Map();
    }
  }
  return transactions;
}

/** Page `number` (1-based) of an SQLite database file, or an empty buffer past its end. */
export function filePage(file: Buffer, number: number): Buffer {
  const pageSize = file.length >= 18 ? file.readUInt16BE(16) || 65536 : 4096;
  return file.subarray((number - 1) * pageSize, number * pageSize);
}

/**
 * For each transaction, which of `needles` it wrote: a needle is written by the transaction whose page holds it
 * while the previous version of that page (earlier in the WAL, or in the database file when the WAL has none) did
 * not. Needles that were already in the file's page are never attributed (their writer is not in this WAL).
 */
export function writtenBy(file: Buffer, transactions: WalTransaction[], needles: string[]): Map<string, number> {
  const written = new Map<string, number>();
  const latest = new Map<number, Buffer>();
  const encoded = needles.map((needle) => [needle, Buffer.from(needle)] as const);
  for (const transaction of transactions) {
    for (const [number, page] of transaction.pages) {
      const previous = latest.get(number) ?? filePage(file, number);
      for (const [needle, bytes] of encoded) {
        if (!written.has(needle) && page.includes(bytes) && !previous.includes(bytes))
          written.set(needle, transaction.index);
      }
    }
    for (const [number, page] of transaction.pages) latest.set(number, page);
  }
  return written;
}

/**
 * For each transaction, the keys of the records it changed: a record is found by its key (a session id) and
 * compared over the `span` bytes that follow it with the previous version of the same page.
 */
export function changedRecords(
  file: Buffer,
  transactions: WalTransaction[],
  keys: string[],
  span = 160,
): Map<number, Set<string>> {
  const changed = new Map<number, Set<string>>();
  const latest = new Map<number, Buffer>();
  const record = (page: Buffer, key: Buffer) => {
    const at = page.indexOf(key);
    return at < 0 ? undefined : page.subarray(at, at + span);
  };
  for (const transaction of transactions) {
    for (const [number, page] of transaction.pages) {
      const previous = latest.get(number) ?? filePage(file, number);
      for (const key of keys) {
        const bytes = Buffer.from(key);
        const now = record(page, bytes);
        if (!now) continue;
        const before = record(previous, bytes);
        if (before && before.equals(now)) continue;
        if (!changed.has(transaction.index)) changed.set(transaction.index, new Set());
        changed.get(transaction.index)!.add(key);
      }
    }
    for (const [number, page] of transaction.pages) latest.set(number, page);
  }
  return changed;
}

/**
 * Where each needle sits in the database file: its page and byte offset. SQLite fills a page's cell area from the
 * end towards the start, so within one page a lower offset was (usually) written later.
 */
export function cellPositions(file: Buffer, needles: string[]): Map<string, { page: number; offset: number }> {
  const pageSize = file.length >= 18 ? file.readUInt16BE(16) || 65536 : 4096;
  const positions = new Map<string, { page: number; offset: number }>();
  for (const needle of needles) {
    const at = file.indexOf(Buffer.from(needle));
    if (at >= 0) positions.set(needle, { page: Math.floor(at / pageSize) + 1, offset: at % pageSize });
  }
  return positions;
}

/** Every place a string occurs in some bytes, as byte offsets. */
export function occurrences(bytes: Buffer, needle: string): number[] {
  const found: number[] = [];
  const encoded = Buffer.from(needle);
  for (let at = bytes.indexOf(encoded); at >= 0; at = bytes.indexOf(encoded, at + 1)) found.push(at);
  return found;
}

/** One PostgreSQL transaction as pg_waldump shows it: the heap tuples it inserted, where it committed, and when. */
export type WalDumpTransaction = {
  xid: number;
  inserts: Array<{ relfilenode: number; ctid: string }>;
  relfilenodes: Set<number>;
  commitLsn?: bigint;
  commitTime?: string;
};

export const pgWalDump = "/usr/lib/postgresql/15/bin/pg_waldump";

export function lsnValue(lsn: string): bigint {
  const [high = "0", low = "0"] = lsn.split("/");
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

const walSegmentBytes = 16n * 1024n * 1024n;

/**
 * Where the WAL still on disk begins: the start of the oldest segment file (PostgreSQL's default 16 MB segments). An
 * erasure (app/db/erase.server.ts) switches segments and checkpoints, which removes the segments before it: a copy
 * of the server holds only what is left, so that is what the attacker reads.
 */
function oldestWalLsn(walDir: string): bigint | undefined {
  const oldest = fs
    .readdirSync(walDir)
    .filter((name) => /^[0-9A-F]{24}$/.test(name))
    .sort()[0];
  if (!oldest) return undefined;
  return (BigInt(`0x${oldest.slice(8, 16)}`) << 32n) | (BigInt(`0x${oldest.slice(16, 24)}`) * walSegmentBytes);
}

function lsnText(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/**
 * Runs pg_waldump over [start, end) of the cluster's pg_wal, from the oldest segment still there when the segments
 * before it were removed, and groups its heap records by transaction.
 */
export async function walDump(walDir: string, start: string, end: string): Promise<Map<number, WalDumpTransaction>> {
  const oldest = oldestWalLsn(walDir);
  const from = oldest !== undefined && oldest > lsnValue(start) ? lsnText(oldest) : start;
  const { stdout } = await promisify(execFile)(pgWalDump, ["-p", walDir, "-s", from, "-e", end], {
    maxBuffer: 512 * 1024 * 1024,
  });
  const transactions = new Map<number, WalDumpTransaction>();
  for (const line of stdout.split("\n")) {
    const xid = Number(/\btx:\s+(\d+)/.exec(line)?.[1] ?? 0);
    if (xid === 0) continue;
    let transaction = transactions.get(xid);
    if (!transaction) {
      transaction = { xid, inserts: [], relfilenodes: new Set() };
      transactions.set(xid, transaction);
    }
    const rel = /rel \d+\/\d+\/(\d+) blk (\d+)/.exec(line);
    if (rel) transaction.relfilenodes.add(Number(rel[1]));
    const insert = /desc: (?:INSERT|INSERT\+INIT) off (\d+)/.exec(line);
    if (insert && rel && /rmgr: Heap /.test(line)) {
      transaction.inserts.push({ relfilenode: Number(rel[1]), ctid: `(${rel[2]},${insert[1]})` });
    }
    const update = /desc: (?:HOT_UPDATE|UPDATE).*new off (\d+)/.exec(line);
    if (update && rel && /rmgr: Heap /.test(line)) {
      transaction.inserts.push({ relfilenode: Number(rel[1]), ctid: `(${rel[2]},${update[1]})` });
    }
    const commit = /lsn: ([0-9A-F]+\/[0-9A-F]+).*desc: COMMIT (\S+ \S+)/.exec(line);
    if (commit) {
      transaction.commitLsn = lsnValue(commit[1]!);
      transaction.commitTime = commit[2];
    }
  }
  return transactions;
}

/**
 * How well a recovered order matches the true submission order, as Kendall's S (pairs ordered alike minus pairs
 * ordered the other way, over pairs whose recovered keys differ) and its z score under "no relation": a shuffled
 * batch stays near 0, a write order kept in storage scores far above it. Items are compared only within a group.
 */
export function concordance<T>(
  groups: T[][],
  truth: (item: T) => number,
  recovered: (item: T) => number[] | undefined,
): { pairs: number; agreeing: number; z: number } {
  let [pairs, agreeing, s, variance] = [0, 0, 0, 0];
  const compare = (a: number[], b: number[]) => {
    for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
      if (a[index] !== b[index]) return Math.sign(a[index]! - b[index]!);
    }
    return 0;
  };
  for (const group of groups) {
    const known = group.filter((item) => recovered(item) !== undefined);
    const n = known.length;
    variance += (n * (n - 1) * (2 * n + 5)) / 18;
    for (let i = 0; i < n; i += 1) {
      for (let j = i + 1; j < n; j += 1) {
        const order = compare(recovered(known[i]!)!, recovered(known[j]!)!);
        if (order === 0) continue;
        pairs += 1;
        const alike = order === Math.sign(truth(known[i]!) - truth(known[j]!));
        if (alike) agreeing += 1;
        s += alike ? 1 : -1;
      }
    }
  }
  return { pairs, agreeing, z: variance > 0 ? s / Math.sqrt(variance) : 0 };
}
