import { describe, expect, it } from "vitest";
import { pooledRandomBytes } from "./random.server.ts";

describe("random bytes from the pool", () => {
  it("hands every byte out once: values of one pool never overlap, and are not all alike", () => {
    const values = Array.from({ length: 1000 }, () => pooledRandomBytes(16));
    expect(values.every((value) => value.length === 16)).toBe(true);
    const ranges = new Map<ArrayBufferLike, Array<[number, number]>>();
    for (const value of values) {
      const taken = ranges.get(value.buffer) ?? [];
      for (const [start, end] of taken) {
        expect(value.byteOffset >= end || value.byteOffset + value.length <= start).toBe(true);
      }
      taken.push([value.byteOffset, value.byteOffset + value.length]);
      ranges.set(value.buffer, taken);
    }
    // 16,000 bytes need several pools of 4 KB.
    expect(ranges.size).toBeGreaterThan(3);
    expect(new Set(values.map((value) => value.toString("hex"))).size).toBe(1000);
  });

  it("draws a large value on its own, not from the pool", () => {
    const small = pooledRandomBytes(16);
    const [first, second] = [pooledRandomBytes(2048), pooledRandomBytes(2048)];
    expect([first.length, second.length]).toEqual([2048, 2048]);
    expect(first.buffer).not.toBe(second.buffer);
    expect(first.buffer).not.toBe(small.buffer);
  });
});
