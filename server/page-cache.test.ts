import { once } from "node:events";
import type { AddressInfo } from "node:net";
import net from "node:net";
import zlib from "node:zlib";
import express from "express";
import { describe, expect, it } from "vitest";
import { compressedForms, createPageCache, ownBytes } from "./page-cache.ts";

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

describe("keeping a rendered page", () => {
  it("keeps it as soon as it is rendered, before its reader has received all of it", async () => {
    // Larger than what the kernel buffers on a loopback connection: its first reader, who reads none of it, holds the
    // answer's "finish" back. The next reader may have sent its request by then (on the same connection, after reading
    // the whole answer, it always can), and must be answered from the cache.
    const body = Buffer.alloc(32 * 1024 * 1024, "a");
    let rendered!: () => void;
    const renderedOnce = new Promise<void>((resolve) => (rendered = resolve));
    const cache = createPageCache({ clientKey: () => "client" });
    const app = express();
    app.use(cache.hits);
    app.use(cache.middleware);
    app.get("/guidelines", (_req, res) => {
      res.type("html").end(body);
      rendered();
    });
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    const slowReader = net.connect(port, "127.0.0.1");
    try {
      slowReader.pause();
      slowReader.write(`GET /guidelines HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      await renderedOnce;
      const next = await fetch(`http://127.0.0.1:${port}/guidelines`);
      expect(next.headers.get("x-cache")).toBe("hit");
      expect((await next.arrayBuffer()).byteLength).toBe(body.length);
    } finally {
      slowReader.destroy();
      server.closeAllConnections();
      server.close();
    }
  });
});
