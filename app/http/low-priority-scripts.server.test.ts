import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { describe, expect, it } from "vitest";
import { lowPriorityModulePreloads } from "./low-priority-scripts.server.ts";

const page =
  '<!DOCTYPE html><html lang="en"><head><link rel="stylesheet" href="/assets/app.css"/>' +
  '<link rel="modulepreload" href="/assets/entry.client.js"/><link rel="modulepreload" href="/assets/root.js"/>' +
  '<title>Zoë Müller · Candor</title></head><body><p>Sample: <link rel="modulepreload" href="/x.js"/> ✓</p></body></html>';

/** The page cut into `size`-byte chunks (which splits the head, the patterns and multi-byte characters). */
async function throughTransform(html: string, size: number, onFinal?: () => void): Promise<string> {
  const bytes = Buffer.from(html, "utf8");
  const chunks: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return text(Readable.from(chunks).pipe(lowPriorityModulePreloads(onFinal)));
}

describe("modulepreload links at low priority", () => {
  const expected = page
    .replace(
      '<link rel="modulepreload" href="/assets/entry',
      '<link rel="modulepreload" fetchpriority="low" href="/assets/entry',
    )
    .replace(
      '<link rel="modulepreload" href="/assets/root',
      '<link rel="modulepreload" fetchpriority="low" href="/assets/root',
    );

  it("marks every link of the head and nothing after it, however the page is cut", async () => {
    expect(expected).not.toBe(page);
    for (const size of [1, 2, 3, 7, 64, 4096]) {
      expect(await throughTransform(page, size)).toBe(expected);
    }
  });

  it("passes a document without a head through, marked, and calls back when the page ends", async () => {
    let finals = 0;
    const fragment = '<link rel="modulepreload" href="/a.js"/>é';
    expect(await throughTransform(fragment, 5, () => finals++)).toBe(
      '<link rel="modulepreload" fetchpriority="low" href="/a.js"/>é',
    );
    expect(finals).toBe(1);
  });
});
