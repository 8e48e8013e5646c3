import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { maxBodyBytes } from "#app/http/api-request.server.ts";
import { contributionMessages, type PublicationNoteKind, publicationNote } from "#app/lib/messages.ts";
import { verificationMessages } from "#app/lib/verification-messages.ts";
import { reviewListMessages } from "#app/domain/reviews.server.ts";
import { compareMessages } from "#app/lib/messages.ts";
import {
  type Account,
  type Answer,
  ApiClient,
  companyReview,
  managerReview,
  newCompany,
  newManager,
  password,
  type TokenPair,
  unique,
} from "./support/api.ts";
import { newClientIp, sameOrigin, Visitor } from "./support/http.ts";
import { blindReviewToken, mailedCode, type ReviewTokenKeyAnswer } from "./support/verify.ts";
import { blindTokens, finalizeTokens } from "#app/lib/verification-client.ts";
import { importPublicKey, toBase64url } from "#app/lib/verification-token.ts";
import { type RunningServer, startServer } from "../support/server.ts";

// Every answer of the JSON API, in success and in error, held to the OpenAPI document the server
// publishes at /api/v1/openapi.json (see support/openapi-contract.ts for the statuses that apply everywhere).
// Each request comes from a new client address behind TRUSTED_PROXIES, so only the rate-limit tests meet a limit.
const server = await startServer("sqlite", { env: { DEMO_DATA: "always", TRUSTED_PROXIES: "127.0.0.1" } });
const api = await ApiClient.connect(server.baseURL);
const account: Account = await api.newAccount(server.databaseUrl);
const servers: RunningServer[] = [server];

after(async () => {
  for (const running of servers) {
    assert.equal(await running.stop(), 0, `the server did not shut down cleanly on SIGTERM:\n${running.output()}`);
    assert.doesNotMatch(running.output(), /"level":(50|60)/, `the server logged errors:\n${running.output()}`);
  }
});

type Page<T> = { items: T[]; next: string | null };
type Company = { id: number; name: string; reviewCount: number; country: string };
type SearchResult = { id: number; name: string; reviewCount: number };
type ManagerCard = { id: number; firstName: string; reviewCount: number };
type ReviewCard = { id: string; month: string; text: string; helpfulVotes: number };
type Problem = { status: number; detail?: string; errors?: Array<{ field: string; message: string }>; code?: string };

const thisMonth = new Date().toISOString().slice(0, 7);
const fullDate = /\d{4}-\d{2}-\d{2}/;
const auth = { token: account.accessToken };

/** The fields a 400 names. */
function fields(answer: Answer): string[] {
  return ((answer.body as Problem).errors ?? []).map((error) => error.field);
}

/** The one-time review key a review write answers with: 22 base64url characters (128 random bits). */
function reviewKeyOf(answer: Answer): string {
  const key = (answer.body as { review_key?: unknown }).review_key;
  assert.ok(typeof key === "string" && /^[A-Za-z0-9_-]{22}$/.test(key), `no review key in ${answer.text}`);
  return key;
}

function assertStatus(answer: Answer, status: number): void {
  assert.equal(answer.status, status, `${answer.url.pathname}${answer.url.search}: ${answer.text.slice(0, 400)}`);
}

/** A public read: open to every origin, cacheable, with an ETag that If-None-Match turns into a 304. */
async function assertPublicRead(answer: Answer): Promise<void> {
  const { headers } = answer.response;
  assert.equal(headers.get("access-control-allow-origin"), "*", `${answer.url.pathname}: CORS`);
  assert.match(headers.get("cache-control") ?? "", /^public, max-age=\d+$/, `${answer.url.pathname}: Cache-Control`);
  assert.ok(headers.get("ratelimit-limit"), `${answer.url.pathname}: RateLimit-Limit`);
  assert.ok(headers.get("ratelimit-remaining"), `${answer.url.pathname}: RateLimit-Remaining`);
  const etag = headers.get("etag");
  assert.match(etag ?? "", /^"[^"]+"$/, `${answer.url.pathname}: ETag`);
  const again = await api.get(`${answer.url.pathname}${answer.url.search}`, { headers: { "If-None-Match": etag! } });
  assertStatus(again, 304);
  assert.equal(again.response.headers.get("etag"), etag);
  assert.equal(again.response.headers.get("access-control-allow-origin"), "*");
  const stale = await api.get(`${answer.url.pathname}${answer.url.search}`, {
    headers: { "If-None-Match": '"stale"' },
  });
  assertStatus(stale, 200);
}

/** A write (or its refusal): no CORS grant, never cached. */
function assertClosedWrite(answer: Answer): void {
  const { headers } = answer.response;
  assert.equal(headers.get("access-control-allow-origin"), null, `${answer.url.pathname}: a write grants CORS`);
  assert.equal(headers.get("cache-control"), "no-store", `${answer.url.pathname}: a write may be cached`);
}

/** Reviews carry their month only, and so do the cursors of review pages. */
function assertReviewPage(page: Page<ReviewCard>): void {
  for (const review of page.items) {
    assert.match(review.month, /^\d{4}-\d{2}$/);
    assert.doesNotMatch(JSON.stringify(review), fullDate, "a review carries a full date");
  }
  if (page.next) assert.doesNotMatch(Buffer.from(page.next, "base64url").toString("utf8"), fullDate);
}

/** Demo data picked through the API: a company with more than one page of reviews, and one of its managers. */
async function pickDemoData(): Promise<{ company: SearchResult; manager: ManagerCard; country: string }> {
  const countries = (await api.get("/api/v1/countries")).body as Array<{ code: string }>;
  for (const { code } of countries.slice(0, 40)) {
    const found = await api.get(`/api/v1/companies?country=${code}&q=a`);
    if (found.status !== 200) continue;
    const company = (found.body as Page<SearchResult>).items.find((item) => item.reviewCount > 10);
    if (!company) continue;
    const managers = (await api.get(`/api/v1/companies/${company.id}/managers`)).body as Page<ManagerCard>;
    const manager = managers.items.find((item) => item.reviewCount > 0);
    if (manager) return { company, manager, country: code };
  }
  assert.fail("the demo data has no company with more than ten reviews and a reviewed manager");
}

const demo = await pickDemoData();
const unknownId = 2_147_483_647;

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 with a schema for every documented JSON answer", () => {
    assert.ok(api.contract.operations().length >= 15, api.contract.operations().join("\n"));
    for (const operation of api.contract.operations()) {
      const [method, template] = operation.split(" ") as [string, string];
      const responses = api.contract.operation(method, template)!.responses;
      for (const [status, response] of Object.entries(responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          assert.ok(media.schema, `${operation} ${status} ${type} has no schema`);
        }
      }
    }
  });
});

describe("public reads", () => {
  it("lists countries and tags", async () => {
    const countries = await api.get("/api/v1/countries");
    assertStatus(countries, 200);
    assert.deepEqual((countries.body as Array<{ code: string }>)[0], { code: "US", name: "United States" });
    await assertPublicRead(countries);
    const tags = await api.get("/api/v1/tags");
    assertStatus(tags, 200);
    assert.ok((tags.body as { company: string[] }).company.includes("Remote Friendly"));
    await assertPublicRead(tags);
  });

  it("lists the industries and the cities known in a country, refusing a country it does not know", async () => {
    const industries = await api.get("/api/v1/industries");
    assertStatus(industries, 200);
    const sections = industries.body as Array<{ code: string; title: string }>;
    assert.equal(sections.length, 21);
    assert.deepEqual(sections[9], { code: "J", title: "Information and communication" });
    await assertPublicRead(industries);
    const cities = await api.get(`/api/v1/countries/${demo.country}/cities`);
    assertStatus(cities, 200);
    assert.ok((cities.body as { items: unknown[] }).items.length > 0, "no city known in the demo data");
    await assertPublicRead(cities);
    assertStatus(await api.get("/api/v1/countries/XX/cities"), 400);
  });

  it("lists a country's most reviewed and best rated companies and managers, refusing a country it does not know", async () => {
    type Lists<T> = { mostReviewed: T[]; bestRated: T[] };
    const companies = await api.get(`/api/v1/companies/top?country=${demo.country}`);
    assertStatus(companies, 200);
    const { mostReviewed, bestRated } = companies.body as Lists<SearchResult & { mean: number | null }>;
    assert.ok(mostReviewed.length > 0 && bestRated.length > 0, "no list of the demo data's country");
    const counts = mostReviewed.map((company) => company.reviewCount);
    assert.deepEqual(
      counts,
      counts.toSorted((a, b) => b - a),
      "the most reviewed are not first",
    );
    assert.ok(
      [...mostReviewed, ...bestRated].every((company) => company.reviewCount > 0 && company.mean !== null),
      "a company without reviews is listed",
    );
    await assertPublicRead(companies);
    const managers = await api.get(`/api/v1/managers/top?country=${demo.country}`);
    assertStatus(managers, 200);
    assert.ok((managers.body as Lists<ManagerCard>).mostReviewed.length > 0, "no manager list");
    await assertPublicRead(managers);
    const refused = await api.get("/api/v1/companies/top?country=XX");
    assertStatus(refused, 400);
    assert.deepEqual(fields(refused), ["country"]);
    assertStatus(await api.get("/api/v1/managers/top"), 400);
  });

  it("searches companies and managers, refusing bad parameters by name", async () => {
    const companies = await api.get(
      `/api/v1/companies?country=${demo.country}&q=${encodeURIComponent(demo.company.name)}`,
    );
    assertStatus(companies, 200);
    assert.ok((companies.body as Page<SearchResult>).items.some((item) => item.id === demo.company.id));
    await assertPublicRead(companies);
    const managers = await api.get(
      `/api/v1/managers?country=${demo.country}&q=${encodeURIComponent(demo.manager.firstName)}`,
    );
    assertStatus(managers, 200);
    await assertPublicRead(managers);

    for (const path of ["/api/v1/companies", "/api/v1/managers"]) {
      const missing = await api.get(path);
      assertStatus(missing, 400);
      assert.deepEqual(fields(missing).sort(), ["country", "q"]);
      const badCountry = await api.get(`${path}?country=ZZ&q=acme`);
      assertStatus(badCountry, 400);
      assert.deepEqual(fields(badCountry), ["country"]);
      const longTerm = await api.get(`${path}?country=US&q=${"a".repeat(101)}`);
      assertStatus(longTerm, 400);
      assert.deepEqual(fields(longTerm), ["q"]);
      const longCursor = await api.get(`${path}?country=US&q=a&after=${"A".repeat(1001)}`);
      assertStatus(longCursor, 400);
      assert.deepEqual(fields(longCursor), ["after"]);
      // A cursor that is not one of ours reads as the first page.
      assertStatus(await api.get(`${path}?country=US&q=a&after=not-a-cursor`), 200);
    }
  });

  it("shows a company, its reviews page by page and its managers", async () => {
    const company = await api.get(`/api/v1/companies/${demo.company.id}`);
    assertStatus(company, 200);
    assert.equal((company.body as Company).id, demo.company.id);
    await assertPublicRead(company);

    const first = await api.get(`/api/v1/companies/${demo.company.id}/reviews`);
    assertStatus(first, 200);
    const firstPage = first.body as Page<ReviewCard>;
    assert.equal(firstPage.items.length, 10);
    assert.ok(firstPage.next, "a second page");
    assertReviewPage(firstPage);
    await assertPublicRead(first);
    const second = await api.get(
      `/api/v1/companies/${demo.company.id}/reviews?before=${encodeURIComponent(firstPage.next)}`,
    );
    assertStatus(second, 200);
    const secondPage = second.body as Page<ReviewCard>;
    assert.ok(secondPage.items.length > 0);
    assertReviewPage(secondPage);
    const firstIds = new Set(firstPage.items.map((review) => review.id));
    assert.ok(
      secondPage.items.every((review) => !firstIds.has(review.id)),
      "the second page repeats the first",
    );

    const managers = await api.get(`/api/v1/companies/${demo.company.id}/managers`);
    assertStatus(managers, 200);
    assert.ok((managers.body as Page<ManagerCard>).items.some((item) => item.id === demo.manager.id));
    await assertPublicRead(managers);
  });

  it("compares 2 to 4 companies or managers, each as its profile, and names a refused selection", async () => {
    const company = (await api.get(`/api/v1/companies/${demo.company.id}`)).body as Company;
    const compared = await api.get(`/api/v1/compare?company=${demo.company.id}&company=${company.id}`);
    assertStatus(compared, 400);
    assert.equal((compared.body as { detail: string }).detail, compareMessages.repeated);
    const managers = await api.get(`/api/v1/compare?manager=${demo.manager.id}`);
    assertStatus(managers, 400);
    assert.equal((managers.body as { detail: string }).detail, compareMessages.tooFew(2));
    const mixed = await api.get(`/api/v1/compare?company=${demo.company.id}&manager=${demo.manager.id}`);
    assertStatus(mixed, 400);
    assert.equal((mixed.body as { detail: string }).detail, compareMessages.mixed);
    assertStatus(await api.get(`/api/v1/compare?company=${demo.company.id}&company=999999`), 404);

    const other = demo.company.id === 1 ? 2 : 1;
    const pair = await api.get(`/api/v1/compare?company=${other}&company=${demo.company.id}`);
    assertStatus(pair, 200);
    const body = pair.body as { kind: string; items: Company[] };
    assert.equal(body.kind, "company");
    assert.deepEqual(
      body.items.map((item) => item.id),
      [other, demo.company.id],
    );
    assert.deepEqual(body.items[1], company);
    await assertPublicRead(pair);
  });

  it("answers a company's headline figures, and sorts and narrows its reviews, naming a refused choice", async () => {
    const company = (await api.get(`/api/v1/companies/${demo.company.id}`)).body as Company & {
      mean: number;
      distribution: { overall: number[] };
      topTags: Array<{ tag: string; count: number }>;
    };
    assert.equal(
      company.distribution.overall.reduce((sum, count) => sum + count, 0),
      company.reviewCount,
    );
    assert.ok(company.mean >= 1 && company.mean <= 5);
    assert.ok(company.topTags.length > 0);

    const lowest = await api.get(`/api/v1/companies/${demo.company.id}/reviews?sort=lowest&tag=`);
    assertStatus(lowest, 200);
    const scores = (lowest.body as Page<ReviewCard & { score: number }>).items.map((review) => review.score);
    assert.deepEqual(
      scores,
      scores.toSorted((a, b) => a - b),
    );
    const tag = company.topTags[0]!.tag;
    const tagged = await api.get(`/api/v1/companies/${demo.company.id}/reviews?tag=${encodeURIComponent(tag)}`);
    assertStatus(tagged, 200);
    const taggedItems = (tagged.body as Page<ReviewCard & { tags: string[] }>).items;
    assert.equal(taggedItems.length, Math.min(10, company.topTags[0]!.count));
    assert.ok(taggedItems.every((review) => review.tags.includes(tag)));

    const refused = await api.get(`/api/v1/companies/${demo.company.id}/reviews?sort=oldest&rating=9`);
    assertStatus(refused, 400);
    assert.deepEqual((refused.body as Problem).errors, [
      { field: "sort", message: reviewListMessages.sort },
      { field: "rating", message: reviewListMessages.rating },
    ]);
  });

  it("shows a manager and their reviews", async () => {
    const manager = await api.get(`/api/v1/managers/${demo.manager.id}`);
    assertStatus(manager, 200);
    await assertPublicRead(manager);
    const reviews = await api.get(`/api/v1/managers/${demo.manager.id}/reviews`);
    assertStatus(reviews, 200);
    assertReviewPage(reviews.body as Page<ReviewCard>);
    await assertPublicRead(reviews);
  });

  it("answers 404 for unknown ids and 400 naming a bad id or cursor", async () => {
    for (const template of [
      "/api/v1/companies/{id}",
      "/api/v1/companies/{id}/reviews",
      "/api/v1/companies/{id}/managers",
      "/api/v1/managers/{id}",
      "/api/v1/managers/{id}/reviews",
    ]) {
      const name = template.startsWith("/api/v1/companies") ? "companyId" : "managerId";
      const unknown = await api.get(template.replace("{id}", String(unknownId)));
      assertStatus(unknown, 404);
      assert.equal(unknown.response.headers.get("access-control-allow-origin"), "*");
      for (const bad of ["abc", "0", "-1", "1.5", "99999999999999999999"]) {
        const answer = await api.get(template.replace("{id}", bad));
        assertStatus(answer, 400);
        assert.ok(fields(answer).includes(name), `${template} with ${bad}: ${answer.text}`);
      }
    }
    for (const [path, cursor] of [
      [`/api/v1/companies/${demo.company.id}/reviews`, "before"],
      [`/api/v1/companies/${demo.company.id}/managers`, "after"],
      [`/api/v1/managers/${demo.manager.id}/reviews`, "before"],
    ] as const) {
      const answer = await api.get(`${path}?${cursor}=${"x".repeat(1001)}`);
      assertStatus(answer, 400);
      assert.deepEqual(fields(answer), [cursor]);
    }
  });

  it("suggests companies like a name being added", async () => {
    const typed = demo.company.name.slice(0, 8);
    const suggestions = await api.get(`/api/v1/companies/suggestions?q=${encodeURIComponent(typed)}`);
    assertStatus(suggestions, 200);
    const body = suggestions.body as { items: Array<{ id: number }> };
    assert.ok(
      body.items.some((item) => item.id === demo.company.id),
      suggestions.text,
    );
    await assertPublicRead(suggestions);
    const short = await api.get("/api/v1/companies/suggestions?q=abc");
    assertStatus(short, 200);
    assert.deepEqual((short.body as { items: unknown[] }).items, []);
    const long = await api.get(`/api/v1/companies/suggestions?q=${"a".repeat(201)}`);
    assertStatus(long, 400);
    assert.deepEqual(fields(long), ["q"]);
  });

  it("answers unknown API addresses with a JSON 404", async () => {
    assertStatus(await api.get("/api/v1/no-such-thing"), 404);
    assertStatus(await api.call("POST", "/api/v1/companies/1/no-such-thing", { json: {} }), 404);
  });

  it("leaves a page's one-time note for the page: an API answer clears no cookie, the next page does", async () => {
    // The toast a redirect set is shown, and cleared, by the page it leads to; a script's API call in between
    // (decision 0036: answered beside React Router, without the root's middleware) shows nothing and clears nothing.
    const headers = { cookie: "candor_toast=signed-in", "x-forwarded-for": "10.200.0.1" };
    const answer = await fetch(new URL("/api/v1/countries", server.baseURL), { headers });
    await answer.body?.cancel();
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.headers.getSetCookie(), []);
    const page = await fetch(new URL("/search", server.baseURL), { headers });
    await page.body?.cancel();
    assert.ok(page.headers.getSetCookie().some((cookie) => /^candor_toast=;.*Max-Age=0/i.test(cookie)));
  });
});

describe("authenticated writes", () => {
  const createdCompanies: number[] = [];

  it("adds a company with its first review (201), and refuses the same company again (409)", async () => {
    const body = { company: newCompany(), review: companyReview({ recent_layoffs: "2024-02-29" }) };
    api.contract.assertRequestBody("POST", "/api/v1/companies", body);
    const created = await api.post("/api/v1/companies", body, auth);
    assertStatus(created, 201);
    assertClosedWrite(created);
    const { id } = created.body as { id: number };
    createdCompanies.push(id);

    const company = await api.get(`/api/v1/companies/${id}`);
    assertStatus(company, 200);
    assert.equal((company.body as Company).reviewCount, 1);
    const reviews = await api.get(`/api/v1/companies/${id}/reviews`);
    const page = reviews.body as Page<ReviewCard>;
    assert.equal(page.items.length, 1);
    assert.equal(page.items[0]!.month, thisMonth);
    assertReviewPage(page);

    const again = await api.post("/api/v1/companies", body, auth);
    assertStatus(again, 409);
    assertClosedWrite(again);
    assert.equal((again.body as Problem).detail, contributionMessages.companyExists);
  });

  it("refuses a company body naming the bad fields, null values, and a second page of search results", async () => {
    const badWebsite = await api.post(
      "/api/v1/companies",
      { company: { ...newCompany(), website: "javascript:alert(1)" }, review: companyReview({ tags: ["Nope"] }) },
      auth,
    );
    assertStatus(badWebsite, 400);
    assertClosedWrite(badWebsite);
    assert.deepEqual(fields(badWebsite).sort(), ["company.website", "review.tags.0"]);
    const nulls = await api.post(
      "/api/v1/companies",
      { company: { ...newCompany(), city: null }, review: companyReview() },
      auth,
    );
    assertStatus(nulls, 400);
    assert.equal((nulls.body as Problem).detail, contributionMessages.payloadNulls);
    // Keys no body may carry, sent as JSON text (an object literal's __proto__ would set its prototype instead).
    const valid = JSON.stringify({ company: newCompany(), review: companyReview() });
    for (const junk of ['"__proto__": {"admin": true}', '"constructor": {"prototype": {"admin": true}}']) {
      const extra = await api.call("POST", "/api/v1/companies", {
        ...auth,
        headers: { "Content-Type": "application/json" },
        body: `${valid.slice(0, -1)}, ${junk}}`,
      });
      assertStatus(extra, 400);
    }

    // 21 companies with one word in common: the search has a second page, reached through `next`.
    const word = `Pagina${process.pid}`;
    for (let index = 0; index < 21; index += 1) {
      const created = await api.post(
        "/api/v1/companies",
        { company: newCompany(unique(word)), review: companyReview() },
        auth,
      );
      assertStatus(created, 201);
      createdCompanies.push((created.body as { id: number }).id);
    }
    const first = await api.get(`/api/v1/companies?country=US&q=${word}`);
    assertStatus(first, 200);
    const firstPage = first.body as Page<SearchResult>;
    assert.equal(firstPage.items.length, 20);
    assert.ok(firstPage.next);
    const second = await api.get(`/api/v1/companies?country=US&q=${word}&after=${encodeURIComponent(firstPage.next)}`);
    assertStatus(second, 200);
    const secondPage = second.body as Page<SearchResult>;
    assert.equal(secondPage.items.length, 1);
    assert.equal(secondPage.next, null);
    await assertPublicRead(second);
  });

  it("reviews a company (201), 404 for an unknown one, 400 naming bad fields", async () => {
    const body = companyReview({ review_text: "Fair pay and a calm on-call rotation." });
    api.contract.assertRequestBody("POST", "/api/v1/companies/{companyId}/reviews", body);
    const created = await api.post(`/api/v1/companies/${demo.company.id}/reviews`, body, auth);
    assertStatus(created, 201);
    assertClosedWrite(created);
    assert.deepEqual(created.body, { ok: true, review_key: reviewKeyOf(created) });
    assertStatus(await api.post(`/api/v1/companies/${unknownId}/reviews`, body, auth), 404);
    const badId = await api.post("/api/v1/companies/abc/reviews", body, auth);
    assertStatus(badId, 400);
    assert.deepEqual(fields(badId), ["companyId"]);
    const bad = await api.post(
      `/api/v1/companies/${demo.company.id}/reviews`,
      companyReview({ reputation: 6, again: "maybe", review_text: "call me at 555 123 4567" }),
      auth,
    );
    assertStatus(bad, 400);
    assertClosedWrite(bad);
    assert.deepEqual(fields(bad).sort(), ["again", "reputation", "review_text"]);
    const form = await api.call("POST", `/api/v1/companies/${demo.company.id}/reviews`, {
      ...auth,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ reputation: "3" }).toString(),
    });
    assertStatus(form, 400);
  });

  it("adds managers at an existing or a new company (201), 404 for an unknown company, 409 for an existing one", async () => {
    const atExisting = { company_id: demo.company.id, manager: newManager(), review: managerReview() };
    api.contract.assertRequestBody("POST", "/api/v1/managers", atExisting);
    const created = await api.post("/api/v1/managers", atExisting, auth);
    assertStatus(created, 201);
    assertClosedWrite(created);
    const managerId = (created.body as { id: number }).id;
    const manager = await api.get(`/api/v1/managers/${managerId}`);
    assertStatus(manager, 200);
    const reviews = await api.get(`/api/v1/managers/${managerId}/reviews`);
    assert.equal((reviews.body as Page<ReviewCard>).items[0]!.month, thisMonth);

    const company = newCompany();
    const atNew = { company, manager: newManager(), review: managerReview() };
    api.contract.assertRequestBody("POST", "/api/v1/managers", atNew);
    assertStatus(await api.post("/api/v1/managers", atNew, auth), 201);
    const sameCompanyAgain = await api.post("/api/v1/managers", { ...atNew, manager: newManager() }, auth);
    assertStatus(sameCompanyAgain, 409);
    assertClosedWrite(sameCompanyAgain);

    const unknown = await api.post("/api/v1/managers", { ...atExisting, company_id: unknownId }, auth);
    assertStatus(unknown, 404);
    const both = await api.post("/api/v1/managers", { ...atExisting, company: newCompany() }, auth);
    assertStatus(both, 400);
    assert.deepEqual(fields(both), ["company_id"]);
    const noReports = await api.post(
      "/api/v1/managers",
      { ...atExisting, manager: { ...newManager(), direct_reports: false, linkedin_url: "https://evil.example/in/x" } },
      auth,
    );
    assertStatus(noReports, 400);
    assert.deepEqual(fields(noReports).sort(), ["manager.direct_reports", "manager.linkedin_url"]);
  });

  it("reviews a manager once (201, then 409) and 404 for an unknown manager", async () => {
    const body = managerReview();
    api.contract.assertRequestBody("POST", "/api/v1/managers/{managerId}/reviews", body);
    const first = await api.post(`/api/v1/managers/${demo.manager.id}/reviews`, body, auth);
    assertStatus(first, 201);
    assertClosedWrite(first);
    const second = await api.post(`/api/v1/managers/${demo.manager.id}/reviews`, body, auth);
    assertStatus(second, 409);
    assertClosedWrite(second);
    assert.equal((second.body as Problem).detail, contributionMessages.alreadyReviewed);
    assertStatus(await api.post(`/api/v1/managers/${unknownId}/reviews`, body, auth), 404);
    const bad = await api.post(`/api/v1/managers/${demo.manager.id}/reviews`, managerReview({ tags: [] }), auth);
    assertStatus(bad, 400);
    assert.deepEqual(fields(bad), ["tags"]);
  });

  it("accepts the session cookie from the site itself and refuses it cross-site (403)", async () => {
    const visitor = new Visitor(server.baseURL, newClientIp());
    assert.equal((await visitor.signIn(account.email, password)).status, 302);
    const body = { company: newCompany(), review: companyReview() };
    const cookie = visitor.cookieHeader();
    const own = await api.post("/api/v1/companies", body, {
      headers: { Cookie: cookie, ...sameOrigin(server.baseURL) },
    });
    assertStatus(own, 201);
    const foreign = await api.post(
      "/api/v1/companies",
      { company: newCompany(), review: companyReview() },
      { headers: { Cookie: cookie, Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" } },
    );
    assertStatus(foreign, 403);
    assert.equal(foreign.response.headers.get("access-control-allow-origin"), null);
    const writes: Array<[string, unknown]> = [
      [`/api/v1/companies/${demo.company.id}/reviews`, companyReview()],
      ["/api/v1/managers", { company_id: demo.company.id, manager: newManager(), review: managerReview() }],
      [`/api/v1/managers/${demo.manager.id}/reviews`, managerReview()],
      ["/api/v1/auth/token", { grant_type: "password", email: account.email, password }],
      ["/api/v1/auth/revoke", { refresh_token: account.refreshToken }],
    ];
    for (const [path, json] of writes) {
      const refused = await api.post(path, json, { headers: { Cookie: cookie, "Sec-Fetch-Site": "cross-site" } });
      assertStatus(refused, 403);
      assertClosedWrite(refused);
    }
    // The refused revocation revoked nothing.
    assertStatus(await api.post(`/api/v1/companies/${demo.company.id}/reviews`, companyReview(), auth), 201);
  });

  it("answers 401 without a valid token, on every write", async () => {
    const writes: Array<[string, unknown]> = [
      ["/api/v1/companies", { company: newCompany(), review: companyReview() }],
      [`/api/v1/companies/${demo.company.id}/reviews`, companyReview()],
      ["/api/v1/managers", { company_id: demo.company.id, manager: newManager(), review: managerReview() }],
      [`/api/v1/managers/${demo.manager.id}/reviews`, managerReview()],
    ];
    for (const [path, body] of writes) {
      for (const token of [undefined, "not-a-token", "A".repeat(43)]) {
        const answer = await api.post(path, body, { token });
        assertStatus(answer, 401);
        assertClosedWrite(answer);
        assert.equal((answer.body as Problem).detail, contributionMessages.mustSignIn);
        assert.match(answer.response.headers.get("www-authenticate") ?? "", /^Bearer /);
      }
    }
  });

  it("refuses bodies over maxBodyBytes (413), of another type (415) and that are not JSON (400)", async () => {
    const huge = JSON.stringify(companyReview({ review_text: "x".repeat(maxBodyBytes + 1024) }));
    const writes = [
      "/api/v1/companies",
      `/api/v1/companies/${demo.company.id}/reviews`,
      "/api/v1/managers",
      `/api/v1/managers/${demo.manager.id}/reviews`,
      "/api/v1/auth/token",
      "/api/v1/auth/revoke",
    ];
    for (const path of writes) {
      const call = { ...auth, headers: { "Content-Type": "application/json" } };
      const tooLarge = await api.call("POST", path, { ...call, body: huge });
      assertStatus(tooLarge, 413);
      assertClosedWrite(tooLarge);
      // The same without Content-Length (chunked): the limit holds while reading.
      const chunks = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let index = 0; index < maxBodyBytes / 4096; index += 1)
            controller.enqueue(new TextEncoder().encode("x".repeat(8 * 1024)));
          controller.close();
        },
      });
      const streamed = await api.call("POST", path, { ...call, body: chunks });
      assertStatus(streamed, 413);
      const wrongType = await api.call("POST", path, {
        ...auth,
        headers: { "Content-Type": "text/plain" },
        body: "{}",
      });
      assertStatus(wrongType, 415);
      assertClosedWrite(wrongType);
      const noType = await api.call("POST", path, { ...auth, body: new Uint8Array([123, 125]) });
      assertStatus(noType, 415);
      const broken = await api.call("POST", path, { ...call, body: '{"company": ' });
      assertStatus(broken, 400);
      assert.deepEqual(fields(broken), ["body"]);
    }
  });
});

describe("tokens", () => {
  it("grants a pair for a password, refreshes it, and refuses a spent refresh token", async () => {
    const grant = await api.post("/api/v1/auth/token", { grant_type: "password", email: account.email, password });
    assertStatus(grant, 200);
    assertClosedWrite(grant);
    api.contract.assertRequestBody("POST", "/api/v1/auth/token", {
      grant_type: "password",
      email: account.email,
      password,
    });
    const pair = grant.body as TokenPair;
    const refreshed = await api.post("/api/v1/auth/token", {
      grant_type: "refresh_token",
      refresh_token: pair.refresh_token,
    });
    assertStatus(refreshed, 200);
    const newPair = refreshed.body as TokenPair;
    assert.notEqual(newPair.access_token, pair.access_token);
    const reused = await api.post("/api/v1/auth/token", {
      grant_type: "refresh_token",
      refresh_token: pair.refresh_token,
    });
    assertStatus(reused, 401);
    assert.equal((reused.body as Problem).code, "refresh_token_reused");
    // Reuse ended the whole family: the new access token no longer writes.
    const write = await api.post(`/api/v1/companies/${demo.company.id}/reviews`, companyReview(), {
      token: newPair.access_token,
    });
    assertStatus(write, 401);
  });

  it("refuses a wrong password and bad grants, naming the field", async () => {
    const wrong = await api.post("/api/v1/auth/token", {
      grant_type: "password",
      email: account.email,
      password: "not the password",
    });
    assertStatus(wrong, 401);
    const unknownGrant = await api.post("/api/v1/auth/token", { grant_type: "client_credentials" });
    assertStatus(unknownGrant, 400);
    assert.deepEqual(fields(unknownGrant), ["grant_type"]);
    const badCode = await api.post("/api/v1/auth/token", {
      grant_type: "password",
      email: account.email,
      password,
      totp_code: "12ab56",
    });
    assertStatus(badCode, 400);
    assert.deepEqual(fields(badCode), ["totp_code"]);
    const invalid = await api.post("/api/v1/auth/token", { grant_type: "refresh_token", refresh_token: "nope" });
    assertStatus(invalid, 401);
  });

  it("revokes a refresh token's family (204)", async () => {
    const grant = await api.post("/api/v1/auth/token", { grant_type: "password", email: account.email, password });
    const pair = grant.body as TokenPair;
    const user = await api.get("/api/v1/auth/user", { token: pair.access_token });
    assertStatus(user, 200);
    assert.equal((user.body as { email: string }).email, account.email);
    const revoked = await api.post("/api/v1/auth/revoke", { refresh_token: pair.refresh_token });
    assertStatus(revoked, 204);
    assertClosedWrite(revoked);
    assertStatus(await api.get("/api/v1/auth/user", { token: pair.access_token }), 401);
    assertStatus(await api.get("/api/v1/auth/user"), 401);
    const refresh = await api.post("/api/v1/auth/token", {
      grant_type: "refresh_token",
      refresh_token: pair.refresh_token,
    });
    assertStatus(refresh, 401);
    const missing = await api.post("/api/v1/auth/revoke", {});
    assertStatus(missing, 400);
    assert.deepEqual(fields(missing), ["refresh_token"]);
  });
});

describe("methods and cross-origin requests", () => {
  it("answers 405 with Allow for a method a path does not take", async () => {
    const refusals: Array<[string, string]> = [
      ["GET", "/api/v1/auth/token"],
      ["GET", "/api/v1/auth/revoke"],
      ["PUT", "/api/v1/companies"],
      ["DELETE", `/api/v1/managers/${demo.manager.id}/reviews`],
      ["PATCH", `/api/v1/companies/${demo.company.id}/reviews`],
      ["POST", "/api/v1/countries"],
      ["POST", "/api/v1/tags"],
      ["DELETE", `/api/v1/companies/${demo.company.id}`],
      ["POST", `/api/v1/companies/${demo.company.id}/managers`],
      ["PUT", `/api/v1/managers/${demo.manager.id}`],
      ["POST", "/api/v1/companies/suggestions"],
      ["POST", "/api/v1/auth/user"],
    ];
    for (const [method, path] of refusals) {
      const answer = await api.call(method, path, method === "GET" ? auth : { ...auth, json: {} });
      assertStatus(answer, 405);
      assert.ok(answer.response.headers.get("allow"), `${method} ${path}: Allow`);
    }
  });

  it("answers every method an address of app/routes.ts does not take with a 405 problem naming the ones it does", async () => {
    // Every API route, read from the route table: a route added without an action (or a loader) is caught here.
    // Before, POST, PUT, PATCH and DELETE to /api/v1/review-tokens/key got React Router's plain-JSON 405
    // "Unexpected Server Error" (checked). POSTs go without credentials and with an empty body: nothing is written.
    const table = fs.readFileSync(path.join(import.meta.dirname, "../../app/routes.ts"), "utf8");
    const patterns = [...table.matchAll(/route\("(api\/v1\/[^"*]+)"/g)].map((match) => match[1]!);
    assert.ok(patterns.length >= 30, `only ${patterns.length} API routes found in app/routes.ts`);
    const values: Record<string, string> = {
      companyId: String(demo.company.id),
      managerId: String(demo.manager.id),
      country: demo.country,
      reviewId: "no-such-review",
    };
    const problems: string[] = [];
    let refusals = 0;
    for (const pattern of patterns) {
      const address = `/${pattern.replace(/:(\w+)/g, (_, name: string) => values[name] ?? "1")}`;
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        const response = await fetch(api.url(address), {
          method,
          headers: {
            "Content-Type": "application/json",
            "X-Forwarded-For": newClientIp(),
            ...sameOrigin(server.baseURL),
          },
          body: "{}",
        });
        const text = await response.text();
        if (response.status >= 500) problems.push(`${method} ${address}: ${response.status} ${text.slice(0, 100)}`);
        if (response.status !== 405) continue;
        refusals += 1;
        const allow = response.headers.get("allow") ?? "";
        if (response.headers.get("content-type") !== "application/problem+json") {
          problems.push(`${method} ${address}: 405 as ${response.headers.get("content-type")}: ${text.slice(0, 100)}`);
        }
        if (!allow || allow.split(/,\s*/).includes(method)) problems.push(`${method} ${address}: Allow: ${allow}`);
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(refusals >= patterns.length * 2, `only ${refusals} refusals`);
  });

  it("grants no cross-origin preflight for a write, and no CORS on write answers", async () => {
    for (const path of [
      "/api/v1/companies",
      `/api/v1/companies/${demo.company.id}/reviews`,
      "/api/v1/managers",
      `/api/v1/managers/${demo.manager.id}/reviews`,
      "/api/v1/auth/token",
      "/api/v1/auth/revoke",
    ]) {
      const response = await fetch(api.url(path), {
        method: "OPTIONS",
        headers: {
          Origin: "https://elsewhere.example",
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "authorization, content-type",
          "X-Forwarded-For": newClientIp(),
        },
      });
      await response.body?.cancel();
      assert.ok(response.status < 500, `${path}: ${response.status}`);
      assert.equal(response.headers.get("access-control-allow-origin"), null, `${path}: preflight granted`);
      assert.equal(response.headers.get("access-control-allow-headers"), null, `${path}: headers granted`);
      assert.doesNotMatch(response.headers.get("access-control-allow-methods") ?? "", /POST/, path);
    }
    // Reads stay open: a preflight for a GET (say, one with If-None-Match) is granted.
    const read = await fetch(api.url("/api/v1/companies?country=US&q=a"), {
      method: "OPTIONS",
      headers: {
        Origin: "https://elsewhere.example",
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "if-none-match",
        "X-Forwarded-For": newClientIp(),
      },
    });
    assert.equal(read.status, 204);
    assert.equal(read.headers.get("access-control-allow-origin"), "*");
    assert.match(read.headers.get("access-control-allow-headers") ?? "", /if-none-match/i);
  });

  it("serves the document itself to every origin, and nothing but GET", async () => {
    const document = await fetch(api.url("/api/v1/openapi.json"));
    assert.equal(document.status, 200);
    assert.equal(document.headers.get("access-control-allow-origin"), "*");
    assert.match(document.headers.get("cache-control") ?? "", /^public/);
    await document.body?.cancel();
    const deleted = await fetch(api.url("/api/v1/openapi.json"), { method: "DELETE" });
    assert.equal(deleted.status, 405);
    assert.equal(deleted.headers.get("content-type"), "application/problem+json");
    assert.equal(((await deleted.json()) as Problem).status, 405);
  });
});

describe("rate limits", () => {
  it("answers 429 with Retry-After once a client has spent its reads, writes or sign-ins", async () => {
    const limited = await startServer("sqlite", { env: { DEMO_DATA: "never", TRUSTED_PROXIES: "127.0.0.1" } });
    servers.push(limited);
    const client = new ApiClient(limited.baseURL, api.contract);
    const ip = newClientIp();

    const reads = [
      "/api/v1/countries",
      "/api/v1/tags",
      "/api/v1/companies?country=US&q=a",
      "/api/v1/managers?country=US&q=a",
      "/api/v1/companies/1",
      "/api/v1/companies/1/reviews",
      "/api/v1/companies/1/managers",
      "/api/v1/managers/1",
      "/api/v1/managers/1/reviews",
      "/api/v1/companies/suggestions?q=acme%20corp",
      "/api/v1/companies/top?country=US",
      "/api/v1/managers/top?country=US",
    ];
    let answer = await client.get(reads[0]!, { ip });
    const limit = Number(answer.response.headers.get("ratelimit-limit"));
    assert.ok(limit > 0, "RateLimit-Limit on reads");
    for (let index = 1; index < limit; index += 1) {
      answer = await client.get(reads[0]!, { ip });
      assertStatus(answer, 200);
    }
    assert.equal(answer.response.headers.get("ratelimit-remaining"), "0");
    for (const path of reads) {
      const refused = await client.get(path, { ip });
      assertStatus(refused, 429);
      assert.ok(Number(refused.response.headers.get("retry-after")) > 0, `${path}: Retry-After`);
      assert.equal(refused.response.headers.get("access-control-allow-origin"), "*");
    }
    assertStatus(await client.get(reads[0]!), 200);

    const writes: Array<[string, unknown]> = [
      ["/api/v1/companies", { company: newCompany(), review: companyReview() }],
      ["/api/v1/companies/1/reviews", companyReview()],
      ["/api/v1/managers", { company_id: 1, manager: newManager(), review: managerReview() }],
      ["/api/v1/managers/1/reviews", managerReview()],
    ];
    const firstWrite = await client.post(writes[0]![0], writes[0]![1], { ip });
    assertStatus(firstWrite, 401);
    const writeLimit = Number(firstWrite.response.headers.get("ratelimit-limit"));
    assert.ok(writeLimit > 0, "RateLimit-Limit on writes");
    // What remains of a limit shared by everyone behind the client's address would show their writes: not said.
    assert.equal(firstWrite.response.headers.get("ratelimit-remaining"), null);
    assert.equal(firstWrite.response.headers.get("ratelimit-reset"), null);
    for (let index = 1; index < writeLimit; index += 1) {
      assertStatus(await client.post(writes[0]![0], writes[0]![1], { ip }), 401);
    }
    for (const [path, body] of writes) {
      const refused = await client.post(path, body, { ip });
      assertStatus(refused, 429);
      assertClosedWrite(refused);
      assert.ok(Number(refused.response.headers.get("retry-after")) > 0);
    }

    const guess = { grant_type: "password", email: "nobody@example.com", password: "guessing" };
    let signIn: Answer;
    do {
      signIn = await client.post("/api/v1/auth/token", guess, { ip });
    } while (signIn.status === 401);
    assertStatus(signIn, 429);
    assert.ok(Number(signIn.response.headers.get("retry-after")) > 0);
  });
});

describe("batched publication (the default)", () => {
  it("answers 202 Accepted with the note of when the review appears, and shows nothing until a batch publishes it", async () => {
    const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-contract-keys-"));
    const secret = randomBytes(32).toString("hex");
    const settings = { PUBLISH_INTERVAL: "1800", MANAGER_MIN_REVIEWS: "3", PUBLISH_MIN_AUTHORS: "3" };
    const batched = await startServer("sqlite", {
      env: {
        DEMO_DATA: "never",
        TRUSTED_PROXIES: "127.0.0.1",
        QUEUE_KEY_DIR: keyDir,
        AUTH_SECRET: secret,
        ...settings,
      },
    });
    servers.push(batched);
    const client = await ApiClient.connect(batched.baseURL);
    const author = { token: (await client.newAccount(batched.databaseUrl)).accessToken };
    const note = (kind: PublicationNoteKind) => publicationNote(kind, { intervalSeconds: 1800, managerMinReviews: 3 });

    const added = await client.post("/api/v1/companies", { company: newCompany(), review: companyReview() }, author);
    assertStatus(added, 202);
    assert.deepEqual(added.body, { status: "queued", note: note("company"), review_key: reviewKeyOf(added) });
    const company = newCompany();
    const atNew = { company, manager: newManager(), review: managerReview() };
    assertStatus(await client.post("/api/v1/managers", atNew, author), 202);
    const search = await client.get(
      `/api/v1/companies?country=${company.country}&q=${encodeURIComponent(String(company.name))}`,
    );
    assertStatus(search, 200);
    assert.deepEqual((search.body as Page<SearchResult>).items, []);

    // One account is fewer than PUBLISH_MIN_AUTHORS: the publisher holds both, sealed again under a new key.
    const published = execFileSync(process.execPath, ["scripts/publish.ts"], {
      cwd: path.resolve(import.meta.dirname, "../.."),
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: batched.databaseUrl,
        QUEUE_KEY_DIR: keyDir,
        AUTH_SECRET: secret,
        ...settings,
      },
      encoding: "utf8",
    });
    assert.equal(published.trim(), "Published 0 reviews; 2 held.");
    fs.rmSync(keyDir, { recursive: true, force: true });
  });
});

describe("verifying a work address", () => {
  const domain = `contract-${process.pid}.org`;
  const address = `erin@${domain}`;

  it("mails a code, signs blinded tokens, lists the key, and takes a token with a review", async () => {
    const keysBefore = await api.get("/.well-known/candor-keys.json");
    assertStatus(keysBefore, 200);

    const freeMail = await api.post("/api/v1/verification/codes", { email: "erin@gmail.com" }, auth);
    assertStatus(freeMail, 400);
    assert.equal((freeMail.body as Problem).detail, verificationMessages.freeMail);

    const started = await api.post("/api/v1/verification/codes", { email: address }, auth);
    assertStatus(started, 201);
    const challenge = started.body as { challenge: string; domain: string; quarter: string; public_key: JsonWebKey };
    assert.equal(challenge.domain, domain);
    const listed = await api.get(`/.well-known/candor-keys.json?domain=${domain}`);
    assertStatus(listed, 200);
    const keys = (listed.body as { keys: { public_key: JsonWebKey }[] }).keys;
    assert.deepEqual(
      keys.map((key) => key.public_key),
      [challenge.public_key],
    );

    const publicKey = await importPublicKey(challenge.public_key);
    const drafts = await blindTokens(publicKey, challenge, 2);
    const blinded = drafts.map((draft) => toBase64url(draft.blindedMsg));
    const code = await mailedCode(server.outboxDir, address);
    const wrong = await api.post(
      "/api/v1/verification/tokens",
      { challenge: challenge.challenge, code: code === "000000" ? "000001" : "000000", blinded },
      auth,
    );
    assertStatus(wrong, 400);
    assert.equal((wrong.body as Problem).detail, verificationMessages.codeWrong);
    const signed = await api.post(
      "/api/v1/verification/tokens",
      { challenge: challenge.challenge, code, blinded },
      auth,
    );
    assertStatus(signed, 200);
    const [token] = await finalizeTokens(
      publicKey,
      drafts,
      (signed.body as { blind_signatures: string[] }).blind_signatures,
    );

    const company = await api.post(
      "/api/v1/companies",
      {
        company: { ...newCompany(unique("Contract Verified")), website: `https://${domain}` },
        review: companyReview(),
      },
      auth,
    );
    assertStatus(company, 201);
    const companyId = (company.body as { id: number }).id;
    // One address verified: below the threshold of 10, the review is taken without the badge and the token kept.
    const review = await api.post(
      `/api/v1/companies/${companyId}/reviews`,
      companyReview({ verification_token: token }),
      auth,
    );
    assertStatus(review, 201);
    assert.deepEqual((review.body as { verification: unknown }).verification, {
      badge: "withheld",
      domain,
      note: verificationMessages.badgeWithheld(domain, 10),
    });
    const foreign = await api.post("/api/v1/companies/1/reviews", companyReview({ verification_token: token }), auth);
    assertStatus(foreign, 400);
    assert.equal((foreign.body as Problem).code, "token-domain");

    // A manager added at that company, and one at a company with a new website, carry the token too.
    const manager = await api.post(
      "/api/v1/managers",
      { company_id: companyId, manager: newManager(), review: managerReview(), verification_token: token },
      auth,
    );
    assertStatus(manager, 201);
    assert.equal((manager.body as { verification: { badge: string } }).verification.badge, "withheld");
    const elsewhere = await api.post(
      "/api/v1/managers",
      {
        company: newCompany(unique("Contract Elsewhere")),
        manager: newManager(),
        review: managerReview(),
        verification_token: token,
      },
      auth,
    );
    assertStatus(elsewhere, 400);
    assert.equal((elsewhere.body as Problem).code, "token-domain");
    const managerReviewed = await api.post(
      `/api/v1/managers/${demo.manager.id}/reviews`,
      managerReview({ verification_token: token }),
      auth,
    );
    assertStatus(managerReviewed, 400);
    assert.equal((managerReviewed.body as Problem).code, "token-domain");
  });

  it("limits the codes mailed to one address", async () => {
    const answers: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      answers.push((await api.post("/api/v1/verification/codes", { email: address }, auth)).status);
    }
    assert.deepEqual(answers, [201, 201, 429]);
  });
});

describe("helpful votes", () => {
  it("counts a vote under the account's own key once, refuses it without that key or an account, and sorts by it", async () => {
    // With the token, the list is read afresh (the page cache keeps answers for visitors without credentials).
    const list = async () =>
      (await api.get(`/api/v1/companies/${demo.company.id}/reviews?sort=helpful`, auth)).body as Page<ReviewCard>;
    const target = (await list()).items.at(-1)!;
    const vote = { review_id: target.id, helpful: true };
    api.contract.assertRequestBody("POST", "/api/v1/helpful-votes", vote);
    const withKey = { ...auth, headers: { "Candor-Vote-Key": account.voteKey } };
    const cast = await api.post("/api/v1/helpful-votes", vote, withKey);
    assertStatus(cast, 200);
    assertClosedWrite(cast);
    assert.deepEqual(cast.body, { review_id: target.id, helpful_votes: target.helpfulVotes + 1, voted: true });
    assertStatus(await api.post("/api/v1/helpful-votes", vote, withKey), 409);
    // Without the key, or with one that is not this account's: 401 account-key-required (one vote per account).
    for (const key of ["", "A".repeat(43)]) {
      const refused = await api.post("/api/v1/helpful-votes", vote, {
        ...auth,
        headers: { "Candor-Account-Key": key },
      });
      assertStatus(refused, 401);
      assert.equal((refused.body as { code: string }).code, "account-key-required");
    }
    assertStatus(
      await api.post("/api/v1/helpful-votes", vote, { headers: { "Candor-Vote-Key": account.voteKey } }),
      401,
    );
    assertStatus(await api.post("/api/v1/helpful-votes", { ...vote, review_id: "no-such-review" }, withKey), 404);
    const badBody = await api.post("/api/v1/helpful-votes", { review_id: target.id, helpful: "yes" }, withKey);
    assertStatus(badBody, 400);
    assert.deepEqual(fields(badBody), ["helpful"]);
    const sorted = (await list()).items;
    assert.equal(sorted[0]!.id, target.id);
    assert.deepEqual(
      sorted.map((item) => item.helpfulVotes),
      sorted.map((item) => item.helpfulVotes).toSorted((a, b) => b - a),
    );
    const taken = await api.post("/api/v1/helpful-votes", { ...vote, helpful: false }, withKey);
    assertStatus(taken, 200);
    assert.deepEqual(taken.body, { review_id: target.id, helpful_votes: target.helpfulVotes, voted: false });
  });
});

describe("one-review tokens", () => {
  it("signs one token per account and manager, and takes the review it carries only without a session", async () => {
    const author = { token: (await api.newAccount(server.databaseUrl)).accessToken };
    const keyAnswer = await api.get("/api/v1/review-tokens/key");
    assertStatus(keyAnswer, 200);
    const managerId = demo.manager.id;
    const blind = await blindReviewToken(keyAnswer.body as ReviewTokenKeyAnswer, managerId);
    const request = blind.request;
    const path = `/api/v1/managers/${managerId}/review-tokens`;
    assertStatus(await api.post(path, request), 401);
    assertStatus(await api.post(path, { ...request, blinded: "short" }, author), 400);
    const signed = await api.post(path, request, author);
    assertStatus(signed, 200);
    const again = await api.post(path, request, author);
    assertStatus(again, 409);
    assert.equal((again.body as Problem).code, "review-token-taken");
    const token = await blind.finish((signed.body as { blind_signature: string }).blind_signature);
    const spendPath = `/api/v1/managers/${managerId}/token-reviews`;
    const withSession = await api.post(spendPath, managerReview({ review_token: token }), author);
    assertStatus(withSession, 400);
    assert.equal((withSession.body as Problem).code, "review-token-session");
    const elsewhere = await api.post(
      `/api/v1/managers/${unknownId}/token-reviews`,
      managerReview({ review_token: token }),
    );
    assertStatus(elsewhere, 400);
    assert.equal((elsewhere.body as Problem).code, "review-token-manager");
    assertStatus(await api.post(spendPath, managerReview({ review_token: "r1~nothing" })), 400);
    const review = await api.post(spendPath, managerReview({ review_token: token }));
    assertStatus(review, 201);
    const twice = await api.post(spendPath, managerReview({ review_token: token }));
    assertStatus(twice, 409);
    assert.equal((twice.body as Problem).code, "review-token-spent");
  });
});

describe("reports and moderation", () => {
  it("takes a report from anyone, refuses the queue and decisions without the role, and logs a moderator's", async () => {
    const reviews = (await api.get(`/api/v1/companies/${demo.company.id}/reviews`)).body as Page<ReviewCard>;
    const reviewId = reviews.items[0]!.id;
    const report = { reason: "spam", explanation: "An advertisement." };
    api.contract.assertRequestBody("POST", "/api/v1/reviews/{reviewId}/reports", report);
    const reported = await api.post(`/api/v1/reviews/${reviewId}/reports`, report);
    assertStatus(reported, 201);
    assertClosedWrite(reported);
    assertStatus(await api.post("/api/v1/reviews/no-such-review/reports", report), 404);
    const badAddress = await api.post(`/api/v1/reviews/${reviewId}/reports`, { ...report, contactEmail: "nope" });
    assertStatus(badAddress, 400);
    assert.deepEqual(fields(badAddress), ["contactEmail"]);

    // A normal account: 403 on the queue and on decisions; no account: 401.
    assertStatus(await api.get("/api/v1/moderation/queue", auth), 403);
    assertStatus(await api.get("/api/v1/moderation/queue"), 401);
    const removal = { reviewId, action: "remove", reason: "spam", statement: "Advertising, not a review." };
    api.contract.assertRequestBody("POST", "/api/v1/moderation/decisions", removal);
    assertStatus(await api.post("/api/v1/moderation/decisions", removal, auth), 403);

    // A moderator, granted from the command line.
    const moderator = await api.newAccount(server.databaseUrl);
    execFileSync(process.execPath, ["scripts/admin.ts", "grant", "moderator", moderator.email], {
      env: { PATH: process.env.PATH, DATABASE_URL: server.databaseUrl, LOG_LEVEL: "warn" },
    });
    const as = { token: moderator.accessToken };
    const queue = await api.get("/api/v1/moderation/queue", as);
    assertStatus(queue, 200);
    assertClosedWrite(queue);
    const items = (queue.body as { items: Array<{ reviewId: string }> }).items;
    assert.ok(items.some((item) => item.reviewId === reviewId));
    const removed = await api.post("/api/v1/moderation/decisions", removal, as);
    assertStatus(removed, 201);
    assertStatus(await api.post("/api/v1/moderation/decisions", removal, as), 409);
    const noReason = await api.post("/api/v1/moderation/decisions", { ...removal, reason: null }, as);
    assertStatus(noReason, 400);
    assert.deepEqual(fields(noReason), ["reason"]);

    const log = await api.get("/api/v1/moderation/decisions");
    assertStatus(log, 200);
    await assertPublicRead(log);
    const decision = (removed.body as { id: number }).id;
    const entries = (log.body as { items: Array<{ decision: number; statement: string }> }).items;
    assert.equal(entries[0]?.decision, decision);
    assert.ok(!log.text.includes(moderator.email));
    // A position in the log is plain digits: what Number() reads otherwise is refused (was taken, checked).
    assertStatus(await api.get(`/api/v1/moderation/decisions?before=${decision + 1}`), 200);
    for (const spelled of ["0x5", "5e0", "5.0", "+5", "%205"]) {
      const refused = await api.get(`/api/v1/moderation/decisions?before=${spelled}`);
      assertStatus(refused, 400);
      assert.deepEqual(fields(refused), ["before"], spelled);
    }
    const page = (await api.get(`/api/v1/companies/${demo.company.id}/reviews`)).body as Page<ReviewCard>;
    assert.equal(page.items[0]?.id, reviewId);
    assert.equal((page.items[0] as { removed?: { decision: number } }).removed?.decision, decision);

    // Manipulation alerts: a normal account may not release one; a moderator gets 404 for one that does not exist.
    const release = { alertId: 99_999, statement: "Checked: an honest wave." };
    api.contract.assertRequestBody("POST", "/api/v1/moderation/alerts", release);
    assertStatus(await api.post("/api/v1/moderation/alerts", release, auth), 403);
    assertStatus(await api.post("/api/v1/moderation/alerts", release, as), 404);
    const noStatement = await api.post("/api/v1/moderation/alerts", { alertId: 1, statement: " " }, as);
    assertStatus(noStatement, 400);
    assert.deepEqual(fields(noStatement), ["statement"]);
    assert.deepEqual((queue.body as { alerts: unknown[] }).alerts, []);

    const restore = { reviewId, action: "restore", statement: "Kept after all." };
    assertStatus(await api.post("/api/v1/moderation/decisions", restore, as), 201);

    const figures = await api.get("/api/v1/transparency");
    assertStatus(figures, 200);
    await assertPublicRead(figures);
    const months = (figures.body as { months: Array<{ decisions: { remove: number; restore: number } }> }).months;
    assert.ok(months[0]!.decisions.remove >= 1 && months[0]!.decisions.restore >= 1);
  });

  it("lets the holder of a review key appeal its removal and withdraw it, without an account", async () => {
    const body = companyReview({ review_text: "Clear goals and a fair review process every quarter." });
    const created = await api.post(`/api/v1/companies/${demo.company.id}/reviews`, body, auth);
    assertStatus(created, 201);
    const key = reviewKeyOf(created);
    const reviews = (await api.get(`/api/v1/companies/${demo.company.id}/reviews`)).body as Page<ReviewCard>;
    const reviewId = reviews.items.find((item) => item.text === body.review_text)?.id;
    assert.ok(reviewId, "the new review is not on its company's first page");

    const appeal = { action: "appeal", key, statement: "This is my own experience." };
    api.contract.assertRequestBody("POST", "/api/v1/review-key", appeal);
    // The review stands: there is nothing to appeal yet.
    assertStatus(await api.post("/api/v1/review-key", appeal), 409);
    const moderator = await api.newAccount(server.databaseUrl);
    execFileSync(process.execPath, ["scripts/admin.ts", "grant", "moderator", moderator.email], {
      env: { PATH: process.env.PATH, DATABASE_URL: server.databaseUrl, LOG_LEVEL: "warn" },
    });
    const removal = { reviewId, action: "remove", reason: "fake", statement: "Reads like a template." };
    assertStatus(await api.post("/api/v1/moderation/decisions", removal, { token: moderator.accessToken }), 201);

    const appealed = await api.post("/api/v1/review-key", appeal);
    assertStatus(appealed, 201);
    assertClosedWrite(appealed);
    assert.ok((appealed.body as { id: number }).id > 0);
    const unknownKey = await api.post("/api/v1/review-key", { ...appeal, key: "A".repeat(22) });
    assertStatus(unknownKey, 404);
    const noStatement = await api.post("/api/v1/review-key", { action: "appeal", key });
    assertStatus(noStatement, 400);
    assert.deepEqual(fields(noStatement), ["statement"]);

    const withdrawn = await api.post("/api/v1/review-key", { action: "withdraw", key });
    assertStatus(withdrawn, 200);
    assert.deepEqual(withdrawn.body, { withdrawn: true });
    // The key opened one review, now gone with it.
    assertStatus(await api.post("/api/v1/review-key", { action: "withdraw", key }), 404);
    const remaining = (await api.get(`/api/v1/companies/${demo.company.id}/reviews`)).body as Page<ReviewCard>;
    assert.ok(!remaining.items.some((item) => item.id === reviewId));
  });
});

describe("coverage", () => {
  it("exercised every operation of the document", (t) => {
    const summary = api.contract.coverage();
    t.diagnostic(summary);
    console.log(summary);
    assert.deepEqual(api.contract.unexercised(), [], "documented operations that no test exercised");
  });
});
