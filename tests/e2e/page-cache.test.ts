import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { ApiClient, companyReview } from "./support/api.ts";
import { newClientIp, newEmail, Visitor } from "./support/http.ts";
import { startServer } from "../support/server.ts";

// The page cache: rendered pages and API reads are kept for visitors without cookies (server/page-cache.ts). A kept page
// must carry each request's own CSP nonce, never reach a signed-in visitor, and go stale at the next write.
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

const reviewCount = (html: string) => Number(/(\d+) reviews?/.exec(html)?.[1]);

describe("the page cache", () => {
  it("serves a company page again with the same content and a fresh nonce that matches the CSP header", async () => {
    const path = "/company/2";
    const first = await visit(path);
    const second = await visit(path);
    const third = await visit(path);
    assert.equal(first.response.status, 200);
    assert.equal(first.cache, "miss");
    assert.equal(second.cache, "hit");
    assert.equal(third.cache, "hit");
    const all = [first, second, third].map(({ html, response }) => {
      const inPage = nonces(html);
      assert.equal(inPage.length, 1, "every script of a page carries the one nonce of its response");
      assert.equal(inPage[0], policyNonce(response), "the page's nonce is the one its CSP header allows");
      return inPage[0]!;
    });
    assert.equal(new Set(all).size, 3, "each response has its own nonce");
    const strip = (html: string) => html.replaceAll(/nonce="[^"]+"/g, "");
    assert.equal(strip(second.html), strip(first.html));
    assert.equal(second.response.headers.get("content-type"), first.response.headers.get("content-type"));
    assert.equal(second.response.headers.get("set-cookie"), null);
  });

  it("never serves or keeps a page for a visitor who sends a cookie", async () => {
    const visitor = new Visitor(server.baseURL, newClientIp());
    await visitor.signUp(newEmail("cache"), "a long and private passphrase");
    await visit("/company/3");
    const signedIn = await visitor.get("/company/3");
    const html = await signedIn.text();
    assert.equal(signedIn.headers.get("x-cache"), null);
    assert.match(html, /Sign out|Account/, "the signed-in page is rendered for the signed-in visitor");
    assert.equal(nonces(html)[0], policyNonce(signedIn));
    // A page rendered for the signed-in visitor is not kept: the next anonymous visit is not given it.
    const anonymous = await visit("/company/3");
    assert.doesNotMatch(anonymous.html, /Sign out/);
  });

  it("shows a new review at the next visit: a write makes every kept page stale", async () => {
    const path = "/company/4";
    const before = await visit(path);
    assert.equal((await visit(path)).cache, "hit");
    const posted = await api.post("/api/v1/companies/4/reviews", companyReview(), { token: account.accessToken });
    assert.equal(posted.status, 201, posted.text);
    const afterWrite = await visit(path);
    assert.equal(afterWrite.cache, "miss");
    assert.equal(reviewCount(afterWrite.html), reviewCount(before.html) + 1);
    assert.equal((await visit(path)).cache, "hit");
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

  it("keeps no error page", async () => {
    const missing = await visit("/company/987654");
    const again = await visit("/company/987654");
    assert.equal(missing.response.status, 404);
    assert.equal(again.response.status, 404);
    assert.equal(again.cache, "miss");
  });
});
