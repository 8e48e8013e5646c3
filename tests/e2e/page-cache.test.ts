import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { request } from "node:http";
import { after, describe, it } from "node:test";
import zlib from "node:zlib";
import { ApiClient, companyReview } from "./support/api.ts";
import { headlineReviewCount as reviewCount, newClientIp, newEmail, Visitor } from "./support/http.ts";
import { maxBodyBytes } from "#app/http/api-request.server.ts";
import { startServer } from "../support/server.ts";

// The page cache: rendered pages and API reads are kept for visitors without cookies (server/page-cache.ts). A kept page
// is static (its inline scripts allowed by their hashes), stored compressed, never reaches a signed-in visitor, and
// goes stale when a write touches what it shows.
const server = await startServer("sqlite", { env: { DEMO_DATA: "always", TRUSTED_PROXIES: "127.0.0.1" } });
const api = await ApiClient.connect(server.baseURL);
const account = await api.newAccount(server.databaseUrl);

after(async () => {
  assert.equal(await server.stop(), 0, `the server did not shut down cleanly:\n${server.output()}`);
});

async function visit(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(new URL(path, server.baseURL), {
    headers: { "X-Forwarded-For": newClientIp(), ...headers },
  });
  return { response, html: await response.text(), cache: response.headers.get("x-cache") };
}

function nonces(html: string): string[] {
  return [...new Set([...html.matchAll(/nonce="([^"]+)"/g)].map((match) => match[1]!))];
}

function policyNonce(response: Response): string | undefined {
  return /'nonce-([^']+)'/.exec(response.headers.get("content-security-policy") ?? "")?.[1];
}

/** The text of every inline script of a page (those without src). */
function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
    .filter((match) => !/\bsrc=/.test(match[1]!))
    .map((match) => match[2]!);
}

/** A GET with node:http, which leaves the body as sent (fetch would decode it). */
function raw(path: string, headers: Record<string, string>) {
  return new Promise<{
    status: number;
    body: Buffer;
    cache: string | undefined;
    encoding: string | undefined;
    etag: string | undefined;
    vary: string | undefined;
  }>((resolve, reject) => {
    const req = request(new URL(path, server.baseURL), { headers: { "x-forwarded-for": newClientIp(), ...headers } });
    req.on("error", reject);
    req.on("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () => {
        const header = (name: string) => {
          const value = response.headers[name];
          return Array.isArray(value) ? value.join(", ") : value;
        };
        resolve({
          status: response.statusCode ?? 0,
          body: Buffer.concat(chunks),
          cache: header("x-cache"),
          encoding: header("content-encoding"),
          etag: header("etag"),
          vary: header("vary"),
        });
      });
    });
    req.end();
  });
}

describe("the page cache", () => {
  it("serves a company page again as the same static bytes, its inline scripts allowed by their hashes", async () => {
    const path = "/company/2";
    const first = await visit(path);
    const second = await visit(path);
    const third = await visit(path);
    assert.equal(first.response.status, 200);
    assert.equal(first.cache, "miss");
    assert.equal(second.cache, "hit");
    assert.equal(third.cache, "hit");
    // The rendered answer carries its own nonce, as any rendered page.
    assert.equal(nonces(first.html).length, 1);
    assert.equal(nonces(first.html)[0], policyNonce(first.response));
    for (const kept of [second, third]) {
      assert.deepEqual(nonces(kept.html), [], "a kept page has no nonce");
      const policy = kept.response.headers.get("content-security-policy") ?? "";
      assert.doesNotMatch(policy, /'nonce-/);
      const scripts = inlineScripts(kept.html);
      assert.ok(scripts.length >= 2, "the page has inline scripts (route data, module loader)");
      for (const script of scripts) {
        const hash = createHash("sha256").update(script, "utf8").digest("base64");
        assert.ok(policy.includes(`'sha256-${hash}'`), `the CSP allows the inline script ${script.slice(0, 40)}…`);
      }
    }
    assert.equal(third.html, second.html, "kept pages are the same bytes");
    const strip = (html: string) => html.replaceAll(/ nonce="[^"]+"/g, "");
    assert.equal(second.html, strip(first.html));
    assert.equal(second.response.headers.get("content-type"), first.response.headers.get("content-type"));
    assert.equal(second.response.headers.get("set-cookie"), null);
  });

  it("stores a kept page brotli- and gzip-compressed, with an ETag per encoding that answers 304", async () => {
    const path = "/company/5";
    const plain = await visit(path);
    assert.equal(plain.cache, "miss");
    // The compressed forms are made in zlib's threads when the page is kept for a client that accepts them (fetch
    // does) or at the first hit that does: until they are stored, a hit is sent as it is kept, never compressed anew. Wait for them however long a busy machine takes.
    let br = await raw(path, { "accept-encoding": "gzip, deflate, br" });
    while (br.etag?.endsWith('-br"') !== true) {
      assert.equal(br.encoding, undefined, "a hit before the compressed forms are stored is sent as it is kept");
      await new Promise((resolve) => setTimeout(resolve, 10));
      br = await raw(path, { "accept-encoding": "gzip, deflate, br" });
    }
    assert.equal(br.cache, "hit");
    assert.equal(br.encoding, "br");
    assert.equal(br.vary, "Accept-Encoding");
    const html = zlib.brotliDecompressSync(br.body).toString("utf8");
    assert.equal(html, plain.html.replaceAll(/ nonce="[^"]+"/g, ""));
    const gz = await raw(path, { "accept-encoding": "gzip" });
    assert.equal(gz.encoding, "gzip");
    assert.equal(zlib.gunzipSync(gz.body).toString("utf8"), html);
    const refused = await raw(path, { "accept-encoding": "br;q=0, gzip;q=0" });
    assert.equal(refused.encoding, undefined);
    assert.equal(refused.body.toString("utf8"), html);
    const etags = new Set([br.etag, gz.etag, refused.etag]);
    assert.equal(etags.size, 3, "each encoding has its own ETag");
    const revalidated = await raw(path, { "accept-encoding": "br", "if-none-match": br.etag! });
    assert.equal(revalidated.status, 304);
    assert.equal(revalidated.body.length, 0);
    // Whoever holds the brotli form may keep it even when asking with other encodings: the 304 names that form.
    const otherEncoding = await raw(path, { "accept-encoding": "gzip", "if-none-match": br.etag! });
    assert.equal(otherEncoding.status, 304);
    assert.equal(otherEncoding.etag, br.etag);
    const unknown = await raw(path, { "accept-encoding": "br", "if-none-match": '"something-else"' });
    assert.equal(unknown.status, 200);
  });

  it("compresses a page kept for a browser once, in the background, never anew for a hit", async () => {
    const path = "/company/6";
    const first = await raw(path, { "accept-encoding": "br, gzip" });
    assert.equal(first.cache, "miss");
    assert.equal(first.encoding, "br", "the rendered answer is compressed on its way out");
    const rendered = zlib.brotliDecompressSync(first.body).toString("utf8");
    // The forms are made in zlib's threads after the answer went out: the next hits get them, none compressed anew.
    let hit = await raw(path, { "accept-encoding": "br, gzip" });
    while (hit.encoding !== "br") {
      assert.equal(hit.encoding, undefined);
      await new Promise((resolve) => setTimeout(resolve, 10));
      hit = await raw(path, { "accept-encoding": "br, gzip" });
    }
    assert.equal(hit.cache, "hit");
    assert.match(hit.etag ?? "", /-br"$/);
    assert.equal(zlib.brotliDecompressSync(hit.body).toString("utf8"), rendered.replaceAll(/ nonce="[^"]+"/g, ""));
  });

  it("compresses a kept search only once it is asked again: most are asked once", async () => {
    const path = "/search?country=US&q=compressed-once";
    const first = await raw(path, { "accept-encoding": "br, gzip" });
    assert.equal(first.cache, "miss");
    // Its compressed forms are begun by this first hit, in zlib's threads: this hit cannot have them yet.
    const hit = await raw(path, { "accept-encoding": "br, gzip" });
    assert.equal(hit.cache, "hit");
    assert.equal(hit.encoding, undefined);
    let later = await raw(path, { "accept-encoding": "br, gzip" });
    while (later.encoding === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      later = await raw(path, { "accept-encoding": "br, gzip" });
    }
    assert.equal(later.encoding, "br");
    assert.equal(zlib.brotliDecompressSync(later.body).toString("utf8"), hit.body.toString("utf8"));
  });

  it("never gives a visitor who sends a cookie the page kept for visitors without, nor keeps theirs for them", async () => {
    const visitor = new Visitor(server.baseURL, newClientIp());
    await visitor.signUp(newEmail("cache"), "a long and private passphrase");
    await visit("/company/3");
    assert.equal((await visit("/company/3")).cache, "hit");
    // The sign-up's toast makes this view the visitor's own: rendered for them, not from any kept page
    // (tests/e2e/signed-in-reading.test.ts covers the page kept for signed-in readers, decision 0034).
    const signedIn = await visitor.get("/company/3");
    const html = await signedIn.text();
    assert.equal(signedIn.headers.get("x-cache"), null);
    assert.match(html, /Sign out|Account/, "the signed-in page is rendered for the signed-in visitor");
    assert.equal(nonces(html)[0], policyNonce(signedIn));
    // A page rendered for the signed-in visitor is not kept: the next anonymous visit is not given it.
    const anonymous = await visit("/company/3");
    assert.doesNotMatch(anonymous.html, /Sign out/);
  });

  it("shows a new review at the next visit: a write makes the subject's pages and lists stale, not the others", async () => {
    const path = "/company/4";
    const other = "/company/6";
    const company = JSON.parse((await visit("/api/v1/companies/4")).html) as { name: string; country: string };
    // A search whose answer shows company 4, and one that shows nothing: only the first shows what the write changes.
    const list = `/api/v1/companies?country=${company.country}&q=${encodeURIComponent(company.name.slice(0, 4))}`;
    const empty = `/api/v1/companies?country=${company.country}&q=zqxjzqxj`;
    const page = `/search?country=${company.country}&q=zqxjzqxj`;
    const before = await visit(path);
    await visit(page);
    assert.equal((await visit(page)).cache, "hit");
    await visit(other);
    const shown = JSON.parse((await visit(list)).html) as { items: Array<{ id: number }> };
    assert.ok(
      shown.items.some((item) => item.id === 4),
      "the search shows company 4",
    );
    await visit(empty);
    assert.equal((await visit(path)).cache, "hit");
    assert.equal((await visit(other)).cache, "hit");
    assert.equal((await visit(list)).cache, "hit");
    assert.equal((await visit(empty)).cache, "hit");
    const posted = await api.post("/api/v1/companies/4/reviews", companyReview(), { token: account.accessToken });
    assert.equal(posted.status, 201, posted.text);
    const afterWrite = await visit(path);
    assert.equal(afterWrite.cache, "miss");
    assert.equal(reviewCount(afterWrite.html), reviewCount(before.html) + 1);
    assert.equal((await visit(path)).cache, "hit");
    assert.equal((await visit("/api/v1/companies/4")).cache, "miss", "the subject's API read is stale too");
    assert.equal((await visit(list)).cache, "miss", "the search that shows the subject is stale");
    assert.equal((await visit(empty)).cache, "hit", "a search that does not show it is still kept");
    assert.equal((await visit(page)).cache, "miss", "pages of lists may show anything: stale");
    assert.equal((await visit(other)).cache, "hit", "another company's page is still kept");
  });

  it("keeps API reads, counting each against the client's rate limit and answering If-None-Match with 304", async () => {
    const ip = newClientIp();
    const path = "/api/v1/companies?country=US&q=an";
    const first = await visit(path, { "X-Forwarded-For": ip });
    const second = await visit(path, { "X-Forwarded-For": ip });
    assert.equal(first.cache, "miss");
    assert.equal(second.cache, "hit");
    assert.equal(second.html, first.html);
    assert.equal(
      Number(second.response.headers.get("ratelimit-remaining")),
      Number(first.response.headers.get("ratelimit-remaining")) - 1,
    );
    const etag = second.response.headers.get("etag");
    assert.ok(etag);
    const revalidated = await visit(path, { "X-Forwarded-For": ip, "If-None-Match": etag });
    assert.equal(revalidated.response.status, 304);
    assert.equal(revalidated.cache, "hit");
  });

  it("answers a hit with the security headers of the rendered page; a GET with a body still meets the size limit", async () => {
    const path = "/company/6";
    const rendered = await visit(path);
    const kept = await visit(path);
    assert.equal(kept.cache, "hit");
    for (const name of [
      "x-content-type-options",
      "x-frame-options",
      "referrer-policy",
      "permissions-policy",
      "cross-origin-opener-policy",
      "cross-origin-resource-policy",
      "content-type",
    ]) {
      assert.ok(rendered.response.headers.get(name), `the rendered page has ${name}`);
      assert.equal(kept.response.headers.get(name), rendered.response.headers.get(name), name);
    }
    const policy = (response: Response) =>
      (response.headers.get("content-security-policy") ?? "").replace(/script-src [^;]*/, "script-src");
    assert.equal(policy(kept.response), policy(rendered.response), "the same policy but for its scripts");
    // Hits are answered ahead of the body's size limit, so a request that has a body is never answered as one.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(new URL(path, server.baseURL), {
        method: "GET",
        headers: { "x-forwarded-for": newClientIp(), "content-length": String(maxBodyBytes + 1) },
      });
      req.on("error", reject);
      req.on("response", (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      req.flushHeaders();
    });
    assert.equal(status, 413);
  });

  it("keeps no error page", async () => {
    const missing = await visit("/company/987654");
    const again = await visit("/company/987654");
    assert.equal(missing.response.status, 404);
    assert.equal(again.response.status, 404);
    assert.equal(again.cache, "miss");
  });
});
