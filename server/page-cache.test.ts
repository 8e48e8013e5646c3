import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { compressedForms, ownBytes } from "./page-cache.ts";

/** A page of about 80 KB, as large as a busy company's page. */
const page = Buffer.from(
  `<!doctype html><main>${Array.from(
    { length: 1500 },
    (_, index) =>
      `<article id="r${index}"><p>Review ${index}: ${(index * 7919).toString(36)} ${"ok ".repeat(index % 7)}</p></article>`,
  ).join("")}</main>`,
);

describe("a kept body's compressed forms", () => {
  it("decompress to the body", async () => {
    const { br, gzip } = await compressedForms(page);
    expect(zlib.brotliDecompressSync(br).equals(page)).toBe(true);
    expect(zlib.gunzipSync(gzip).equals(page)).toBe(true);
  });

  it("each hold memory of their own size, not the whole output chunk of zlib they were cut from", async () => {
    const { br, gzip } = await compressedForms(page);
    for (const form of [br, gzip]) {
      expect(form.length).toBeLessThan(page.length / 2);
      expect(form.buffer.byteLength).toBe(form.length);
    }
  });

  it("keeps a small body in memory of its own, not in the pool Node cuts small buffers from", () => {
    const answer = Buffer.from(JSON.stringify({ items: [{ id: 948, name: "Sipes and Sons" }] }));
    expect(answer.buffer.byteLength).toBeGreaterThan(answer.length);
    const kept = ownBytes(answer);
    expect(kept.equals(answer)).toBe(true);
    expect(kept.buffer.byteLength).toBe(kept.length);
    // One that has its memory to itself is kept as it is.
    expect(ownBytes(kept)).toBe(kept);
  });
});
