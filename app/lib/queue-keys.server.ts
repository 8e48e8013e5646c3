import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pooledRandomBytes } from "./random.server.ts";

/**
 * The keys that seal queued reviews, and the sealing itself. A key lives in a file of its own under the key
 * directory, never in the database: whoever copies the database (with its WAL, dead tuples and backups) and the
 * server secret still cannot read a queued review once its key file is destroyed. Each publication writes a new key
 * and destroys the old one (docs/decisions/0013-publication-in-sealed-batches.md).
 *
 * File names are `<queue id>.<key id>.key`: the queue id is the database's own, so several databases may share one
 * directory without one sweeping away another's keys. A copy of a database has the same queue id: `<queue id>.owner`
 * names the one database whose keys they are, and no other may make or destroy them (claimQueue).
 */

export type QueueKey = { id: string; key: Buffer };

/**
 * Plaintext size of every sealed payload: a 5000-character review at 3 bytes a UTF-16 unit (the worst case of
 * UTF-8 in JSON, since bodies with unpaired surrogates, six bytes escaped, are refused), the longest company and
 * manager fields (URLs of up to 500 characters, percent-encoded), tags, receipt and author tag. The largest
 * legitimate submission, a new manager of a new company with every field at its longest, seals 31,962 bytes
 * (publication.server.test.ts). Every row has exactly this size, whatever it holds.
 */
export const sealedPlaintextBytes = 32_768;
const ivBytes = 12;
const tagBytes = 16;
/** The size of every sealed value: nonce, ciphertext and authentication tag. */
export const sealedBytes = ivBytes + sealedPlaintextBytes + tagBytes;

const cache = new Map<string, Buffer>();

function fileOf(dir: string, queueId: string, keyId: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(queueId) || !/^[A-Za-z0-9_-]+$/.test(keyId)) throw new Error("Malformed queue key id.");
  return path.join(dir, `${queueId}.${keyId}.key`);
}

function fsyncDirectory(dir: string): void {
  const handle = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(handle);
  } finally {
    fs.closeSync(handle);
  }
}

/** Makes the key directory (0700) when it is missing. */
export function ensureKeyDirectory(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Writes a fresh random key to its own file (0600) and makes it durable before anything may refer to it. */
export function createQueueKey(dir: string, queueId: string): QueueKey {
  ensureKeyDirectory(dir);
  const id = randomBytes(16).toString("base64url");
  const key = randomBytes(32);
  const file = fileOf(dir, queueId, id);
  const handle = fs.openSync(file, "wx", 0o600);
  try {
    fs.writeSync(handle, key);
    fs.fsyncSync(handle);
  } finally {
    fs.closeSync(handle);
  }
  fsyncDirectory(dir);
  cache.set(file, key);
  return { id, key };
}

/**
 * The database names a key that is not in this process's key directory: the directory is not the one the other
 * processes and machines of the site use, or it was lost.
 */
export class QueueKeyMissingError extends Error {
  constructor(dir: string, file: string) {
    super(
      `The publication queue's key ${path.basename(file)} is not in QUEUE_KEY_DIR (${path.resolve(dir)}). ` +
        "Every process and every machine serving one database must use one shared QUEUE_KEY_DIR: set it to the " +
        "directory the others use (docs/deploy.md). If that directory is lost, the queued reviews can never be " +
        "opened: `npm run reviews:publish -- --forget-unreadable` drops them.",
    );
    this.name = "QueueKeyMissingError";
  }
}

/** The key with this id; throws QueueKeyMissingError when its file is gone (rows no key of ours can open). */
export function readQueueKey(dir: string, queueId: string, id: string): QueueKey {
  const file = fileOf(dir, queueId, id);
  let key = cache.get(file);
  if (!key) {
    try {
      key = fs.readFileSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new QueueKeyMissingError(dir, file);
      throw error;
    }
    if (key.length !== 32) throw new Error(`The queue key file ${file} is damaged.`);
    cache.set(file, key);
  }
  return { id, key };
}

/** True when the key's file is in `dir` now (readQueueKey answers from memory a key this process read before). */
export function queueKeyOnDisk(dir: string, queueId: string, id: string): boolean {
  return fs.existsSync(fileOf(dir, queueId, id));
}

/** Overwrites a key file with zeros, makes that durable, then deletes it. A missing file is already destroyed. */
export function destroyQueueKey(dir: string, queueId: string, id: string): void {
  const file = fileOf(dir, queueId, id);
  cache.delete(file);
  let handle: number;
  try {
    handle = fs.openSync(file, "r+");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  try {
    fs.writeSync(handle, Buffer.alloc(32), 0, 32, 0);
    fs.fsyncSync(handle);
  } finally {
    fs.closeSync(handle);
  }
  try {
    fs.unlinkSync(file);
  } catch (error) {
    // Another process destroyed it meanwhile: one publishing process destroys its old keys after its commit, outside
    // the queue lock, while the next run, in another process, sweeps the same files.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  fsyncDirectory(dir);
}

/**
 * Another database claims this queue's keys: it has the same queue id because one is a copy of the other (restored
 * from a backup or its file copied) beside it, on the same QUEUE_KEY_DIR. Each would destroy the other's keys at its
 * first publication, and the reviews the other had queued could never be opened.
 */
export class QueueSharedError extends Error {
  constructor(dir: string, queueId: string, owner: string, home: string) {
    super(
      `QUEUE_KEY_DIR (${path.resolve(dir)}) holds the keys of the publication queue ${queueId} of the database ` +
        `${owner}, and this database (${home}) has the same queue: it is a copy of that database, restored or ` +
        "copied. Sharing the queue would destroy the other database's keys, so this process does not start. Give the " +
        "copy a queue of its own with `npm run queue:identity -- --new` (`npm run db:restore` does it for you), or " +
        "give it another QUEUE_KEY_DIR. Only if the database it was copied from will never run again (it was moved " +
        "here, or lost): `npm run queue:identity -- --claim` makes this one the queue's owner.",
    );
    this.name = "QueueSharedError";
  }
}

/** The file, beside the key files (not named like one, so no sweep takes it), naming the queue's owner. */
function ownerFileOf(dir: string, queueId: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(queueId)) throw new Error("Malformed queue key id.");
  return path.join(dir, `${queueId}.owner`);
}

/**
 * Makes sure the queue's keys in `dir` belong to the database at `home` (where it lives: server and database, or
 * file, never its contents, which a copy shares). The first database to ask claims the queue; any other database
 * with the same queue id is refused with QueueSharedError, before it could create or destroy a key. `takeOver`
 * writes `home` as the owner whatever was there (the owner was moved, or is gone for good).
 */
export function claimQueue(dir: string, queueId: string, home: string, takeOver = false): void {
  ensureKeyDirectory(dir);
  const file = ownerFileOf(dir, queueId);
  if (takeOver) {
    const temporary = `${file}.${randomBytes(6).toString("hex")}`;
    fs.writeFileSync(temporary, `${home}\n`, { mode: 0o600, flush: true });
    fs.renameSync(temporary, file);
    fsyncDirectory(dir);
    return;
  }
  let owner: string;
  try {
    owner = fs.readFileSync(file, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    try {
      const handle = fs.openSync(file, "wx", 0o600);
      try {
        fs.writeSync(handle, `${home}\n`);
        fs.fsyncSync(handle);
      } finally {
        fs.closeSync(handle);
      }
      fsyncDirectory(dir);
      return;
    } catch (raced) {
      // Another process claimed it between the read and the write: its claim is read below.
      if ((raced as NodeJS.ErrnoException).code !== "EEXIST") throw raced;
      owner = fs.readFileSync(file, "utf8").trim();
    }
  }
  if (owner !== home) throw new QueueSharedError(dir, queueId, owner, home);
}

/** Destroys every key file of this queue except those in `keep`; returns how many went. */
export function sweepQueueKeys(dir: string, queueId: string, keep: ReadonlySet<string>): number {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  }
  let destroyed = 0;
  for (const name of names) {
    const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.key$/.exec(name);
    if (!match || match[1] !== queueId || keep.has(match[2]!)) continue;
    destroyQueueKey(dir, queueId, match[2]!);
    destroyed += 1;
  }
  return destroyed;
}

// Each key as a key object, made once: a cipher made from the raw bytes converts and checks them anew each time (9 µs
// of the 12 a cipher took). Held as long as the key's bytes are, no longer.
const keyObjects = new WeakMap<Buffer, KeyObject>();
function keyObjectOf(key: QueueKey): KeyObject {
  let found = keyObjects.get(key.key);
  if (!found) {
    found = createSecretKey(key.key);
    keyObjects.set(key.key, found);
  }
  return found;
}

/**
 * AES-256-GCM over `value` serialised as JSON and padded to the fixed size; `binding` (the row's id and key id) is
 * authenticated too, so a sealed value cannot be moved to another row.
 */
export function seal(key: QueueKey, binding: string, value: unknown): Buffer {
  const json = JSON.stringify(value);
  const length = Buffer.byteLength(json, "utf8");
  if (length + 4 > sealedPlaintextBytes) throw new Error("The payload is larger than a sealed row holds.");
  // Zeros after the payload: every row has the same size, whatever it holds.
  const plaintext = Buffer.alloc(sealedPlaintextBytes);
  plaintext.writeUInt32BE(length, 0);
  plaintext.write(json, 4, "utf8");
  // Written in place into the one buffer that is stored: nonce, ciphertext, tag.
  const sealed = Buffer.allocUnsafe(sealedBytes);
  const iv = pooledRandomBytes(ivBytes);
  iv.copy(sealed, 0);
  const cipher = createCipheriv("aes-256-gcm", keyObjectOf(key), iv);
  cipher.setAAD(Buffer.from(`${binding}\u0000${key.id}`, "utf8"));
  let written = ivBytes + cipher.update(plaintext).copy(sealed, ivBytes);
  written += cipher.final().copy(sealed, written);
  if (written !== ivBytes + sealedPlaintextBytes) throw new Error("The cipher wrote an unexpected length.");
  cipher.getAuthTag().copy(sealed, written);
  return sealed;
}

export function unseal(key: QueueKey, binding: string, sealed: Uint8Array): unknown {
  const bytes = Buffer.from(sealed);
  if (bytes.length !== sealedBytes) throw new Error("A sealed row has the wrong size.");
  const decipher = createDecipheriv("aes-256-gcm", keyObjectOf(key), bytes.subarray(0, ivBytes));
  decipher.setAAD(Buffer.from(`${binding}\u0000${key.id}`, "utf8"));
  decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes));
  const plaintext = Buffer.concat([
    decipher.update(bytes.subarray(ivBytes, bytes.length - tagBytes)),
    decipher.final(),
  ]);
  const length = plaintext.readUInt32BE(0);
  return JSON.parse(plaintext.subarray(4, 4 + length).toString("utf8"));
}
