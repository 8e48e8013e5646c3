import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import pg from "pg";
import {
  type Answer,
  ApiClient,
  type Call,
  companyReview,
  managerReview,
  newCompany,
  newManager,
  StoredData,
} from "./support/api.ts";
import { type RunningServer, startServer } from "../support/server.ts";

// Property-based fuzzing of every endpoint's input (query parameters, path ids, JSON bodies of every
// write, methods). For every request: never a 5xx; every error is application/problem+json carrying its status;
// every answer matches the OpenAPI document; and after every refused request (4xx) — and every read — nothing
// stored changed: a hash of every row of every table, read from the SQLite file through a read-only connection.
// Requests come from ever new client addresses (TRUSTED_PROXIES), so no rate limit is met and none is raised.
const seed = 20_260_505;
const server = await startServer("sqlite", { env: { DEMO_DATA: "always", TRUSTED_PROXIES: "127.0.0.1" } });
const servers: RunningServer[] = [server];
const api = await ApiClient.connect(server.baseURL);
const account = await api.newAccount(server.databaseUrl);
const stored = new StoredData(server.databaseUrl);
let fingerprint = stored.fingerprint();
const tally = new Map<string, number>();

after(async () => {
  stored.close();
  console.log(`fuzz: statuses seen ${[...tally].map(([key, count]) => `${key}×${count}`).join(", ")}`);
  for (const running of servers) {
    assert.equal(await running.stop(), 0, `the server did not shut down cleanly on SIGTERM:\n${running.output()}`);
    assert.doesNotMatch(running.output(), /"level":(50|60)/, `the server logged errors:\n${running.output()}`);
  }
});

/** The invariants every fuzzed request must keep. */
async function assertSafe(client: ApiClient, method: string, path: string, call: Call): Promise<Answer> {
  const answer = await client.call(method, path, call);
  const what = `${method} ${answer.url.pathname}${answer.url.search.slice(0, 200)} answered ${answer.status}`;
  tally.set(String(answer.status), (tally.get(String(answer.status)) ?? 0) + 1);
  assert.ok(answer.status < 500, `${what}: ${answer.text.slice(0, 300)}`);
  if (answer.status >= 400) {
    assert.equal(answer.contentType, "application/problem+json", what);
    if (method !== "HEAD") assert.equal((answer.body as { status: number }).status, answer.status, what);
  }
  return answer;
}

/** Sends a request and holds it to the invariants; `unchanged`: nothing may change whatever the answer. */
async function send(method: string, path: string, call: Call = {}, unchanged = false): Promise<Answer> {
  const answer = await assertSafe(api, method, path, call);
  const now = stored.fingerprint();
  if (unchanged || answer.status >= 400 || method === "GET" || method === "HEAD" || method === "OPTIONS") {
    assert.equal(now, fingerprint, `${method} ${path} answered ${answer.status} and changed stored data`);
  }
  if (answer.status === 201) assert.notEqual(now, fingerprint, `${method} ${path} created nothing`);
  fingerprint = now;
  return answer;
}

// ---- Arbitraries ----

const nasty = fc.constantFrom(
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\uD800",
  "a\uDC00b",
  "\r\n",
  "\t",
  "%",
  "%00",
  "%zz",
  "..",
  "../../etc/passwd",
  "' OR 1=1 --",
  "'; DROP TABLE companies; --",
  '" OR ""="',
  "1; select * from users",
  "<script>alert(1)</script>",
  '"><img src=x onerror=alert(1)>',
  "javascript:alert(1)",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "NaN",
  "Infinity",
  "-1",
  "0",
  "1e309",
  "0x10",
  "9".repeat(40),
  "null",
  "true",
  "[]",
  "{}",
  "ＡＢＣ",
  "Zoë Ĳssel Straße",
  "👩‍👩‍👧‍👦",
  "\u202Eevil",
  "\uFEFF",
  "%%%_%_\\",
);

const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
  { weight: 4, arbitrary: nasty },
  { weight: 1, arbitrary: fc.integer({ min: 90, max: 6000 }).map((length) => "x".repeat(length)) },
);

const number = fc.oneof(
  fc.integer(),
  fc.integer({ min: -5, max: 10 }),
  fc.double(),
  fc.constantFrom(-0, 1.5, 2.0000001, 1e308, -1e308, 2 ** 31, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, Number.NaN),
);

/** Any JSON value, junk included, nested a little. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: text },
  { weight: 2, arbitrary: number },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(text, { maxLength: 8 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.oneof(text, nasty), text, { maxKeys: 4 }) },
);

/** A path into a body: a known key (or a nested one) most of the time, any key otherwise. */
function keyOf(keys: string[][]): fc.Arbitrary<string[]> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...keys) },
    { weight: 1, arbitrary: fc.tuple(nasty).map(([key]) => [key]) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...keys), text).map(([path, key]) => [...path, key]) },
  );
}

type Mutation = { kind: "set" | "delete"; path: string[]; value: unknown };

function mutation(keys: string[][]): fc.Arbitrary<Mutation> {
  return fc.record({
    kind: fc.constantFrom("set" as const, "set" as const, "delete" as const),
    path: keyOf(keys),
    value: junk,
  });
}

/** Applies mutations to a copy of a JSON body; own properties only, so "__proto__" becomes a key, not a prototype. */
function mutate(body: unknown, mutations: Mutation[]): unknown {
  const copy = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  for (const { kind, path, value } of mutations) {
    let target: unknown = copy;
    for (const key of path.slice(0, -1)) {
      const next = (target as Record<string, unknown>)[key];
      if (next === null || typeof next !== "object" || !Object.hasOwn(target as object, key)) {
        const fresh = {};
        Object.defineProperty(target, key, { value: fresh, enumerable: true, writable: true, configurable: true });
        target = fresh;
      } else target = next;
    }
    const last = path.at(-1)!;
    if (kind === "delete") delete (target as Record<string, unknown>)[last];
    else Object.defineProperty(target, last, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

function keysOf(body: Record<string, unknown>, prefix: string[] = []): string[][] {
  return Object.entries(body).flatMap(([key, value]) =>
    value && typeof value === "object" && !Array.isArray(value)
      ? [[...prefix, key], ...keysOf(value as Record<string, unknown>, [...prefix, key])]
      : [[...prefix, key]],
  );
}

type RawBody = { text: string; contentType: string | undefined };

/** A body built from a valid one: mutated, replaced by junk, not JSON, too deep, or sent as another type. */
function bodyFor(template: () => Record<string, unknown>): fc.Arbitrary<RawBody> {
  const keys = keysOf(template());
  const json = fc.oneof(
    { weight: 6, arbitrary: fc.array(mutation(keys), { maxLength: 4 }).map((list) => mutate(template(), list)) },
    { weight: 1, arbitrary: junk },
    { weight: 1, arbitrary: fc.constant(template()) },
  );
  const raw = fc.oneof(
    { weight: 8, arbitrary: json.map((value) => JSON.stringify(value) ?? "null") },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "",
        "{",
        "[1,]",
        "{'a': 1}",
        "\u0000",
        '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}',
        `{"a": ${"1".repeat(400)}}`,
        JSON.stringify(template()).replace(/}$/, ', "__proto__": {"polluted": true}}'),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 30_000 }).map((depth) => `${"[".repeat(depth)}${"]".repeat(depth)}`),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 20_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`),
    },
  );
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant("application/json") },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "application/json; charset=utf-8",
        "APPLICATION/JSON",
        "application/x-www-form-urlencoded",
        "text/plain",
        "multipart/form-data; boundary=x",
        "application/json-patch+json",
        undefined,
      ),
    },
  );
  return fc.record({ text: raw, contentType });
}

/** A write's credentials: the account's token mostly, else none or a forged one. */
const token = fc.oneof(
  { weight: 8, arbitrary: fc.constant(account.accessToken) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, "x", "A".repeat(43), `${account.accessToken}x`, "../../") },
);

function call(body: RawBody, bearer: string | undefined): Call {
  const headers: Record<string, string> = {};
  if (body.contentType) headers["Content-Type"] = body.contentType;
  return { body: body.text, headers, token: bearer };
}

/** Query values: junk, or a cursor of ours wrapped around junk. */
const cursor = fc.oneof(
  text,
  fc.jsonValue({ maxDepth: 2 }).map((value) => Buffer.from(JSON.stringify(value)).toString("base64url")),
  fc
    .tuple(fc.oneof(text, number), fc.oneof(text, number))
    .map((key) => Buffer.from(JSON.stringify(key)).toString("base64url")),
  text.map((value) => Buffer.from(JSON.stringify([value])).toString("base64url")),
);

/** A query string: known parameters with junk values, sometimes extra or repeated ones, sometimes raw junk. */
function queryFor(names: Record<string, fc.Arbitrary<string>>): fc.Arbitrary<string> {
  const entries = Object.entries(names).map(([name, value]) =>
    fc.option(
      value.map((chosen) => [name, chosen] as [string, string]),
      { nil: undefined, freq: 3 },
    ),
  );
  const structured = fc
    .tuple(fc.tuple(...entries), fc.array(fc.tuple(fc.oneof(nasty, text), text), { maxLength: 2 }))
    .map(([known, extra]) => {
      const params = new URLSearchParams();
      for (const entry of [...known, ...extra])
        if (entry) params.append(entry[0].slice(0, 100), entry[1].slice(0, 3000));
      return params.toString();
    });
  const raw = fc.constantFrom(
    "%",
    "q=%",
    "q=%zz&country=US",
    "country=US&q=%ED%A0%80",
    "country=US&q=a%00b",
    "&&&=",
    "q[]=a&country[]=US",
  );
  return fc.oneof({ weight: 6, arbitrary: structured }, { weight: 1, arbitrary: raw });
}

const country = fc.oneof(fc.constantFrom("US", "us", " GB ", "CA", "ZZ", "XK", "U", "USA"), text);
const searchTerm = fc.oneof(fc.constantFrom("a", "e", "Group", "LLC", "son"), text);

/** A path segment standing for an id: real ones, unknown ones, and junk. */
const idSegment = fc.oneof(
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 60 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom("2147483647", "2147483648", "0", "-1", "1.0", "1e2", "0x1", " 1", "1 ") },
  { weight: 1, arbitrary: number.map(String) },
  { weight: 2, arbitrary: text },
);

/** Percent-encodes a segment; lone surrogates, which encodeURIComponent refuses, as raw invalid UTF-8. */
function segment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value.replace(/[\uD800-\uDFFF]/g, "%ED%A0%80").replace(/[^%\w.-]/g, (char) => encodeURIComponent(char));
  }
}

const runs = (count: number) => ({ seed, numRuns: count, endOnFailure: true });

describe("fuzzing the reads", () => {
  it("searches: never a 5xx, never a change", async () => {
    const query = queryFor({ country, q: searchTerm, after: cursor });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("/api/v1/companies", "/api/v1/managers"), query, async (path, search) => {
        await send("GET", `${path}?${search}`);
      }),
      runs(250),
    );
  });

  it("companies and managers by id, their reviews and managers: never a 5xx, never a change", async () => {
    const paths = fc.constantFrom(
      "/api/v1/companies/{id}",
      "/api/v1/companies/{id}/reviews",
      "/api/v1/companies/{id}/managers",
      "/api/v1/managers/{id}",
      "/api/v1/managers/{id}/reviews",
    );
    const query = queryFor({ before: cursor, after: cursor });
    await fc.assert(
      fc.asyncProperty(paths, idSegment, query, async (template, id, search) => {
        await send("GET", `${template.replace("{id}", segment(id))}?${search}`);
      }),
      runs(300),
    );
  });

  it("suggestions, countries and tags: never a 5xx, never a change", async () => {
    const query = queryFor({
      q: fc.oneof(
        searchTerm,
        text.map((value) => value.repeat(3)),
      ),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("/api/v1/companies/suggestions", "/api/v1/countries", "/api/v1/tags"),
        query,
        async (path, search) => {
          await send("GET", `${path}?${search}`);
        },
      ),
      runs(150),
    );
  });
});

describe("fuzzing the writes", () => {
  it("POST /api/v1/companies: refused bodies change nothing", async () => {
    const body = bodyFor(() => ({ company: newCompany(), review: companyReview({ recent_layoffs: "2023-11-30" }) }));
    await fc.assert(
      fc.asyncProperty(body, token, async (raw, bearer) => {
        await send("POST", "/api/v1/companies", call(raw, bearer));
      }),
      runs(200),
    );
  });

  it("POST /api/v1/companies/{id}/reviews: refused bodies change nothing", async () => {
    const body = bodyFor(() => companyReview());
    await fc.assert(
      fc.asyncProperty(idSegment, body, token, async (id, raw, bearer) => {
        await send("POST", `/api/v1/companies/${segment(id)}/reviews`, call(raw, bearer));
      }),
      runs(200),
    );
  });

  it("POST /api/v1/managers: refused bodies change nothing", async () => {
    const atExisting = bodyFor(() => ({ company_id: 1, manager: newManager(), review: managerReview() }));
    const atNew = bodyFor(() => ({ company: newCompany(), manager: newManager(), review: managerReview() }));
    await fc.assert(
      fc.asyncProperty(fc.oneof(atExisting, atNew), token, async (raw, bearer) => {
        await send("POST", "/api/v1/managers", call(raw, bearer));
      }),
      runs(200),
    );
  });

  it("POST /api/v1/managers/{id}/reviews: refused bodies change nothing", async () => {
    const body = bodyFor(() => managerReview());
    await fc.assert(
      fc.asyncProperty(idSegment, body, token, async (id, raw, bearer) => {
        await send("POST", `/api/v1/managers/${segment(id)}/reviews`, call(raw, bearer));
      }),
      runs(200),
    );
  });

  it("POST /api/v1/auth/token and /api/v1/auth/revoke: refused grants change nothing", async () => {
    const email = fc.oneof(fc.emailAddress(), text);
    const grant = bodyFor(() => ({
      grant_type: "password",
      email: "someone@example.com",
      password: "a guess of a password",
    }));
    const refresh = bodyFor(() => ({ grant_type: "refresh_token", refresh_token: "A".repeat(43) }));
    const withEmail = fc.tuple(grant, email).map(([raw, address]) => ({
      ...raw,
      text: raw.text.replace("someone@example.com", address.replace(/["\\]/g, "")),
    }));
    const revoke = bodyFor(() => ({ refresh_token: "A".repeat(43) }));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          withEmail.map((raw) => ["/api/v1/auth/token", raw] as const),
          refresh.map((raw) => ["/api/v1/auth/token", raw] as const),
          revoke.map((raw) => ["/api/v1/auth/revoke", raw] as const),
        ),
        async ([path, raw]) => {
          // Nobody signs in with junk, and revoking an unknown token revokes nothing: no change, whatever the answer.
          const answer = await send("POST", path, call(raw, undefined), true);
          assert.notEqual(answer.status, 200, `${path} granted a token for ${raw.text.slice(0, 200)}`);
        },
      ),
      runs(150),
    );
  });
});

describe("fuzzing methods and addresses", () => {
  it("any method on any address: never a 5xx, never a change when refused", async () => {
    const addresses = fc.constantFrom(
      "/api/v1/countries",
      "/api/v1/tags",
      "/api/v1/companies",
      "/api/v1/companies/1",
      "/api/v1/companies/1/reviews",
      "/api/v1/companies/1/managers",
      "/api/v1/companies/suggestions",
      "/api/v1/managers",
      "/api/v1/managers/1",
      "/api/v1/managers/1/reviews",
      "/api/v1/auth/token",
      "/api/v1/auth/revoke",
      "/api/v1/auth/user",
      "/api/v1/companies/1/reviews/2",
      "/api/v1/nothing/here",
      "/api/v1/companies/",
      "/api/v1//companies",
    );
    const method = fc.constantFrom("GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE");
    await fc.assert(
      fc.asyncProperty(
        method,
        addresses,
        fc.option(text, { nil: undefined }),
        token,
        async (verb, path, body, bearer) => {
          const hasBody = verb !== "GET" && verb !== "HEAD" && body !== undefined;
          await send(verb, path, {
            token: bearer,
            headers: hasBody ? { "Content-Type": "application/json" } : {},
            body: hasBody ? JSON.stringify({ junk: body }) : undefined,
          });
        },
      ),
      runs(200),
    );
  });
});

describe("fuzzing NUL and control characters on PostgreSQL", () => {
  it("refuses them as bad input, never a 5xx, never a change", async () => {
    const postgres = await startServer("postgres", { env: { DEMO_DATA: "never", TRUSTED_PROXIES: "127.0.0.1" } });
    servers.push(postgres);
    const client = new ApiClient(postgres.baseURL, api.contract);
    const { accessToken } = await client.newAccount(postgres.databaseUrl, "postgres");
    const created = await client.post(
      "/api/v1/companies",
      { company: newCompany(), review: companyReview() },
      { token: accessToken },
    );
    assert.equal(created.status, 201, created.text);
    const companyId = (created.body as { id: number }).id;
    const managerAnswer = await client.post(
      "/api/v1/managers",
      { company_id: companyId, manager: newManager(), review: managerReview() },
      { token: accessToken },
    );
    assert.equal(managerAnswer.status, 201, managerAnswer.text);
    const managerId = (managerAnswer.body as { id: number }).id;

    const database = new pg.Client({ connectionString: postgres.databaseUrl });
    await database.connect();
    const tables = [
      "companies",
      "company_reviews",
      "managers",
      "manager_companies",
      "manager_reviews",
      "review_receipts",
    ];
    const pgFingerprint = async () => {
      const parts = [];
      for (const table of tables) {
        const { rows } = await database.query(
          `select count(*)::text || ':' || coalesce(md5(string_agg(t::text, '|' order by t::text)), '') as f from ${table} t`,
        );
        parts.push((rows[0] as { f: string }).f);
      }
      return parts.join(",");
    };
    try {
      const control = fc.oneof(
        fc.constantFrom("\u0000", "a\u0000", "\u0000b", "\u0001\u0002", "\u007F", "\uFFFF", "\uD800"),
        fc.string({ unit: "binary-ascii", maxLength: 12 }),
      );
      const withControl = fc
        .tuple(text, control, text)
        .map(([before, inserted, afterwards]) => `${before}${inserted}${afterwards}`.slice(0, 90));
      const requests = fc.oneof(
        fc.tuple(fc.constantFrom("/api/v1/companies", "/api/v1/managers"), withControl).map(([path, term]) => ({
          method: "GET",
          path: `${path}?${new URLSearchParams({ country: "US", q: term })}`,
          call: {},
        })),
        fc.tuple(withControl).map(([term]) => ({
          method: "GET",
          path: `/api/v1/companies/suggestions?${new URLSearchParams({ q: `acme ${term}` })}`,
          call: {},
        })),
        fc.tuple(fc.constantFrom("after", "before"), withControl, fc.nat({ max: 2 ** 31 })).map(([name, key, id]) => {
          const value = Buffer.from(JSON.stringify(name === "after" ? [key, id] : [key])).toString("base64url");
          const path =
            name === "after" ? `/api/v1/companies/${companyId}/managers` : `/api/v1/managers/${managerId}/reviews`;
          return { method: "GET", path: `${path}?${name}=${value}`, call: {} };
        }),
        fc
          .tuple(
            fc.constantFrom("name", "city", "industry", "website"),
            withControl,
            fc.constantFrom("company", "review"),
          )
          .map(([field, value, where]) => {
            const body = { company: newCompany(), review: companyReview() };
            if (where === "company") (body.company as Record<string, unknown>)[field] = value;
            else body.review.review_text = `Honest enough ${value} words here`;
            return { method: "POST", path: "/api/v1/companies", call: { json: body, token: accessToken } };
          }),
        withControl.map((value) => ({
          method: "POST",
          path: `/api/v1/managers/${managerId}/reviews`,
          call: {
            json: managerReview({ review_text: `Fair and calm ${value} most days`, [value]: 1 }),
            token: accessToken,
          },
        })),
        withControl.map((value) => ({
          method: "POST",
          path: "/api/v1/auth/token",
          call: { json: { grant_type: "password", email: `a${value}@example.com`, password: value } },
        })),
      );
      let before = await pgFingerprint();
      await fc.assert(
        fc.asyncProperty(requests, async ({ method, path, call: request }) => {
          const answer = await assertSafe(client, method, path, request as Call);
          const now = await pgFingerprint();
          if (answer.status >= 400 || method === "GET")
            assert.equal(now, before, `${method} ${path} changed stored data`);
          before = now;
        }),
        runs(150),
      );
    } finally {
      await database.end();
    }
  });
});
