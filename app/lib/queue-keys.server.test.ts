import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type QueueKey, seal, sealedBytes, unseal } from "./queue-keys.server.ts";

const newKey = (id: string): QueueKey => ({ id, key: randomBytes(32) });

describe("sealed queue rows", () => {
  it("open with their key and binding, each the same size whatever it holds", () => {
    const key = newKey("k1");
    for (const value of [{}, { text: "é".repeat(5000), tags: ["a", "b"] }, [1, 2, 3]]) {
      const sealed = seal(key, "row-1", value);
      expect(sealed.length).toBe(sealedBytes);
      expect(unseal(key, "row-1", sealed)).toEqual(value);
      // The same key again: a fresh nonce, other bytes.
      expect(seal(key, "row-1", value).equals(sealed)).toBe(false);
    }
  });

  it("refuse another key, another key id, another row or a changed byte", () => {
    const key = newKey("k1");
    const sealed = seal(key, "row-1", { text: "kept" });
    expect(() => unseal(newKey("k1"), "row-1", sealed)).toThrow();
    expect(() => unseal({ id: "k2", key: key.key }, "row-1", sealed)).toThrow();
    expect(() => unseal(key, "row-2", sealed)).toThrow();
    const changed = Buffer.from(sealed);
    changed[100]! ^= 1;
    expect(() => unseal(key, "row-1", changed)).toThrow();
    expect(unseal(key, "row-1", sealed)).toEqual({ text: "kept" });
  });
});
