import { randomBytes } from "node:crypto";

/**
 * Random bytes for the small values every request needs (ids, nonces, IVs, slots), cut from a pool the CSPRNG fills
 * 4 KB at a time: one call into OpenSSL for hundreds of values instead of one each. Every byte is handed out once:
 * a value is a view of a pool that is never written again (a used pool is replaced, not refilled). Its `buffer` is
 * the whole pool, other values included: read a value through the view only. Keys that are kept (queue keys,
 * secrets) are drawn with `randomBytes` of their own.
 */
const poolBytes = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

export function pooledRandomBytes(size: number): Buffer {
  if (size > poolBytes / 4) return randomBytes(size);
  if (offset + size > pool.length) {
    pool = randomBytes(poolBytes);
    offset = 0;
  }
  offset += size;
  return pool.subarray(offset - size, offset);
}
