import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { describe, expect, it } from "vitest";
import { scriptsAfterFirstPaint } from "./scripts-after-paint.server.ts";

const moduleSource = 'import * as route0 from "/assets/root.js";import("/assets/entry.client.js");';
const page =
  '<!DOCTYPE html><html lang="en"><head><link rel="stylesheet" href="/assets/app.css"/>' +
  '<link rel="modulepreload" href="/assets/entry.client.js" nonce="abc+/="/>' +
  '<link rel="modulepreload" href="/assets/root.js" nonce="abc+/="/>' +
  '<title>Zoë Müller · Candor</title></head><body><p>Sample: <link rel="modulepreload" href="/x.js"/> ✓</p>' +
  '<script nonce="abc+/=">window.__context = {};</script>' +
  `<script nonce="abc+/=" type="module" async="">${moduleSource}</script>` +
  '<script nonce="abc+/=">window.__context.stream = "é";</script></body></html>';

/** The page cut into `size`-byte chunks (which splits the head, the patterns and multi-byte characters). */
async function throughTransform(html: string, size: number, onFinal?: () => void): Promise<string> {
  const bytes = Buffer.from(html, "utf8");
  const chunks: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += size) chunks.push(bytes.subarray(start, start + size));
  return text(Readable.from(chunks).pipe(scriptsAfterFirstPaint(onFinal)));
}

describe("scripts after the first paint", () => {
  it("takes the modulepreload links out of the head and holds the module script, however the page is cut", async () => {
    for (const size of [1, 2, 3, 7, 64, 4096]) {
      const out = await throughTransform(page, size);
      const head = out.slice(0, out.indexOf("</head>"));
      expect(head).not.toContain("modulepreload");
      expect(head).toContain('<link rel="stylesheet" href="/assets/app.css"/>');
      // The body is as it was (a link in the text stays), but for the module script.
      expect(out).toContain('<p>Sample: <link rel="modulepreload" href="/x.js"/> ✓</p>');
      expect(out).not.toMatch(/<script[^>]*type="module"/);
      expect(out).toContain(
        '<script nonce="abc+/=" type="candor/deferred-module" id="deferred-module" ' +
          `data-preload="/assets/entry.client.js /assets/root.js">${moduleSource}</script>`,
      );
      // The loader comes right after the held script, with the page's nonce, and waits for the first paint.
      const loader =
        /deferred-module[^>]*>[^<]*<\/script><script nonce="abc\+\/=">(\{let done=false;[^<]*)<\/script>/.exec(out);
      expect(loader?.[1]).toContain('document.getElementById("deferred-module")');
      expect(loader?.[1]).toContain('observe({type:"paint",buffered:true})');
      // It parses as a script (a syntax error would leave every page unhydrated).
      expect(() => new Function(loader![1]!)).not.toThrow();
      expect(out.endsWith('<script nonce="abc+/=">window.__context.stream = "é";</script></body></html>')).toBe(true);
    }
  });

  it("holds a module script without a nonce as well", async () => {
    const bare = page.replaceAll(' nonce="abc+/="', "");
    const out = await throughTransform(bare, 5);
    expect(out).toContain(
      `<script type="candor/deferred-module" id="deferred-module" data-preload="/assets/entry.client.js /assets/root.js">`,
    );
    expect(out).toContain(`${moduleSource}</script><script>{let done=false;`);
  });

  it("passes a page without a module script through unchanged but for its links, and calls back at the end", async () => {
    let finals = 0;
    const fragment = '<p>é</p><link rel="modulepreload" href="/a.js"/><p>ü</p>';
    expect(await throughTransform(fragment, 5, () => finals++)).toBe("<p>é</p><p>ü</p>");
    expect(finals).toBe(1);
    const plain = "<html><head><title>t</title></head><body>" + "x".repeat(1000) + "ü</body></html>";
    expect(await throughTransform(plain, 7)).toBe(plain);
  });
});
