import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { hashIdentifier } from "#app/http/client.server.ts";
import { companyReview, managerReview, newCompany, password } from "../e2e/support/api.ts";
import {
  companyDraft,
  companyEntries,
  companyReviewEntries,
  managerDraft,
  managerEntries,
  managerReviewEntries,
  postEntries,
  type ReviewDraft,
} from "../e2e/support/contribute.ts";
import { newEmail, Visitor } from "../e2e/support/http.ts";
import { type RunningServer, startServer } from "../support/server.ts";

/**
 * Access control and anonymity: IDOR and mass-assignment attempts are refused, and no public page, API answer or log line
 * reveals who wrote a review. One SQLite server with demo data, request logs on (LOG_LEVEL=info).
 */

type Person = { email: string; ip: string; visitor: Visitor; userId: string; token: string };

const secret = randomBytes(32).toString("hex");
const contentTables = ["companies", "company_reviews", "managers", "manager_companies", "manager_reviews"];
const text = "Clear goals, fair reviews and a team that helps each other out.";
let server: RunningServer;
let db: Database.Database;
let lastIp = 100;
const people: Person[] = [];

const draft = (overrides: Partial<ReviewDraft> = {}): ReviewDraft => ({ tags: ["Stable"], text, ...overrides });
const row = (table: string, id: number | string) => db.prepare(`select * from "${table}" where id = ?`).get(id);
const count = (table: string) => (db.prepare(`select count(*) as n from "${table}"`).get() as { n: number }).n;
const snapshot = () => contentTables.map((table) => JSON.stringify(db.prepare(`select * from "${table}"`).all()));
const firstId = (table: string) =>
  (db.prepare(`select id from "${table}" order by id limit 1`).get() as { id: number }).id;
const idFrom = (response: Response, pattern: RegExp) => Number(response.headers.get("location")?.match(pattern)?.[1]);

async function person(label: string): Promise<Person> {
  lastIp += 1;
  const email = newEmail(label);
  const ip = `203.0.113.${lastIp}`;
  const visitor = new Visitor(server.baseURL, ip);
  await visitor.signUp(email, password);
  const grant = await api("POST", "/api/v1/auth/token", { json: { grant_type: "password", email, password }, ip });
  assert.equal(grant.status, 200, grant.text);
  const user = db.prepare("select id from users where email = ?").get(email) as { id: string };
  return {
    email,
    ip,
    visitor,
    userId: user.id,
    token: remember(JSON.parse(grant.text) as { access_token: string; vote_key: string }),
  };
}

/** Each access token's account key (the grant's `vote_key`), sent with every call made with the token. */
const accountKeys = new Map<string, string>();
function remember(pair: { access_token: string; vote_key: string }): string {
  accountKeys.set(pair.access_token, pair.vote_key);
  return pair.access_token;
}

async function api(method: string, path: string, call: { json?: unknown; token?: string; ip?: string } = {}) {
  const headers: Record<string, string> = { "X-Forwarded-For": call.ip ?? "198.51.100.200" };
  if (call.token) headers.Authorization = `Bearer ${call.token}`;
  const accountKey = call.token ? accountKeys.get(call.token) : undefined;
  if (accountKey) headers["Candor-Account-Key"] = accountKey;
  if (call.json !== undefined) headers["Content-Type"] = "application/json";
  const body = call.json === undefined ? undefined : JSON.stringify(call.json);
  const response = await fetch(new URL(path, server.baseURL), { method, headers, body, redirect: "manual" });
  return { status: response.status, text: await response.text(), response };
}

async function post(who: Person, path: string, entries: Array<[string, string]>): Promise<Response> {
  const response = await postEntries(who.visitor, path, entries);
  await response.body?.cancel();
  return response;
}

before(async () => {
  server = await startServer("sqlite", {
    env: { DEMO_DATA: "always", TRUSTED_PROXIES: "127.0.0.1", LOG_LEVEL: "info", AUTH_SECRET: secret },
  });
  db = new Database(server.databaseUrl, { readonly: true, fileMustExist: true });
  for (const label of ["alice", "bob", "carol"]) people.push(await person(label));
});

after(async () => {
  db?.close();
  await server?.stop();
});

describe("access control: IDOR and mass assignment", () => {
  it("ignores foreign ids and company fields posted with a company review; only the newer layoffs date counts", async () => {
    const [alice, bob] = people as [Person, Person];
    const added = await post(alice, "/company/add", [
      ...companyEntries(companyDraft("Guarded")),
      ...companyReviewEntries(draft({ layoffs: "2024-02-29" })),
    ]);
    assert.equal(added.status, 302);
    const target = idFrom(added, /^\/company\/(\d+)$/);
    const other = (
      db.prepare("select id from companies where id <> ? order by id limit 1").get(target) as { id: number }
    ).id;
    const [targetBefore, otherBefore] = [row("companies", target) as Record<string, unknown>, row("companies", other)];
    const response = await post(bob, `/company/review?company=${target}`, [
      ...companyReviewEntries(draft({ layoffs: "2020-01-01" })),
      ...(["user_id", "userId", "author", "author_id"].map((key) => [key, alice.userId]) as Array<[string, string]>),
      ["name", "Hijacked"],
      ["website", "https://evil.example/"],
      ["review_count", "999"],
      ["id", String(other)],
      ["company_id", String(other)],
      ["company", String(other)],
      ["is_demo", "1"],
      ["created_on", "1999-01-01"],
    ]);
    assert.equal(response.status, 302);
    assert.equal(response.headers.get("location"), `/company/${target}`);
    const targetAfter = row("companies", target) as Record<string, unknown>;
    assert.equal(targetAfter.review_count, Number(targetBefore.review_count) + 1);
    for (const key of ["id", "name", "folded_name", "website", "website_key", "glassdoor_url", "country"]) {
      assert.equal(targetAfter[key], targetBefore[key], key);
    }
    for (const key of ["industry", "is_demo", "created_on", "recent_layoffs"])
      assert.equal(targetAfter[key], targetBefore[key], key);
    assert.equal(targetAfter.recent_layoffs, "2024-02-29", "an older layoffs date never replaces a newer one");
    assert.deepEqual(row("companies", other), otherBefore, "the company named in the body is untouched");
    const reviews = db.prepare("select * from company_reviews where company_id = ?").all(target) as object[];
    assert.equal(reviews.length, 2);
    for (const review of reviews) assert.ok(!JSON.stringify(review).includes(alice.userId));
  });

  it("takes the manager only from the URL, and keeps each user's one-review receipt their own", async () => {
    const [alice, bob, carol] = people as [Person, Person, Person];
    const company = firstId("companies");
    const managers: number[] = [];
    for (const first of ["Quinn", "Remy"]) {
      const added = await post(alice, `/manager/add?company=${company}`, [
        ...managerEntries(managerDraft(first)),
        ...managerReviewEntries(draft({ tags: ["Supportive"] })),
      ]);
      assert.equal(added.status, 302);
      managers.push(idFrom(added, /^\/manager-profile\/(\d+)$/));
    }
    const [m1, m2] = managers as [number, number];
    const countOf = (id: number) => (row("managers", id) as { review_count: number }).review_count;
    const foreign = (id: number, user: string): Array<[string, string]> => [
      ...(["manager_id", "managerId", "manager", "id"].map((key) => [key, String(id)]) as Array<[string, string]>),
      ...(["user_id", "userId", "author"].map((key) => [key, user]) as Array<[string, string]>),
      ["review_count", "999"],
    ];
    const m2Before = row("managers", m2);
    const receipts = count("review_receipts");
    // Bob reviews m1 while naming m2 and Alice in the body: the review is Bob's, of m1.
    const bobs = await post(bob, `/manager-review?manager=${m1}`, [
      ...managerReviewEntries(draft({ tags: ["Supportive"] })),
      ...foreign(m2, alice.userId),
    ]);
    assert.equal(bobs.status, 302);
    assert.equal(bobs.headers.get("location"), `/manager-profile/${m1}`);
    assert.equal(countOf(m1), 2);
    assert.deepEqual(row("managers", m2), m2Before);
    assert.equal(count("review_receipts"), receipts + 1);
    // Alice already reviewed m1 (she added it): naming Carol as author does not let her review again…
    const again = await post(alice, `/manager-review?manager=${m1}`, [
      ...managerReviewEntries(draft({ tags: ["Supportive"] })),
      ...foreign(m1, carol.userId),
    ]);
    assert.notEqual(again.status, 302);
    assert.equal(countOf(m1), 2);
    assert.equal(count("review_receipts"), receipts + 1);
    // …and it did not spend Carol's receipt, nor did Bob's review spend Alice's or Carol's.
    const carols = await post(
      carol,
      `/manager-review?manager=${m1}`,
      managerReviewEntries(draft({ tags: ["Supportive"] })),
    );
    assert.equal(carols.status, 302);
    assert.equal(countOf(m1), 3);
    const bobAgain = await post(
      bob,
      `/manager-review?manager=${m1}`,
      managerReviewEntries(draft({ tags: ["Supportive"] })),
    );
    assert.notEqual(bobAgain.status, 302, "Bob's receipt is his own");
    assert.equal(countOf(m1), 3);
    for (const review of db.prepare("select * from manager_reviews").all()) {
      for (const who of people) assert.ok(!JSON.stringify(review).includes(who.userId));
    }
  });

  it("refuses or ignores foreign ids and extra fields in API bodies, never storing them", async () => {
    const [alice, bob] = people as [Person, Person];
    const company = firstId("companies");
    const ids = db.prepare("select id from managers order by id limit 10").all() as Array<{ id: number }>;
    const [reviewed, foreign] = [ids.slice(0, 5).map((r) => r.id), ids.slice(5).map((r) => r.id)];
    const companyBefore = row("companies", company) as Record<string, unknown>;
    const foreignBefore = foreign.map((id) => row("managers", id));
    const attempts: Array<[string, unknown]> = [
      ...["user_id", "userId", "author", "id", "company_id", "review_count"].map((key): [string, unknown] => [
        `/api/v1/companies/${company}/reviews`,
        companyReview({ [key]: key === "review_count" ? 999 : key.endsWith("id") ? 1 : bob.userId }),
      ]),
      ...["user_id", "userId", "author", "manager_id", "managerId"].map((key, i): [string, unknown] => [
        `/api/v1/managers/${reviewed[i]}/reviews`,
        managerReview({ [key]: key.startsWith("manager") ? foreign[i] : bob.userId }),
      ]),
      ["/api/v1/companies", { company: newCompany(), review: companyReview(), user_id: bob.userId }],
      ["/api/v1/companies", { company: newCompany(), review: companyReview(), author: bob.userId }],
      ["/api/v1/companies", { company: { ...newCompany(), review_count: 50, id: company }, review: companyReview() }],
    ];
    const ignored: string[] = [];
    for (const [path, json] of attempts) {
      const answer = await api("POST", path, { json, token: alice.token, ip: alice.ip });
      assert.ok([201, 400].includes(answer.status), `${path}: ${answer.status} ${answer.text}`);
      if (
        path === "/api/v1/companies" &&
        !("company" in (json as object) && "review_count" in (json as { company: object }).company)
      ) {
        assert.equal(answer.status, 400, `a top-level extra field in ${JSON.stringify(json).slice(0, 60)}`);
      }
      if (answer.status === 201)
        ignored.push(
          `${path} ${path.endsWith("companies") ? "company.review_count+id" : Object.keys(json as object).at(-1)}`,
        );
      if (answer.status === 201 && path === "/api/v1/companies") {
        const created = row("companies", (JSON.parse(answer.text) as { id: number }).id) as Record<string, unknown>;
        assert.equal(created.review_count, 1);
      }
    }
    const accepted = ignored.filter((entry) => entry.startsWith(`/api/v1/companies/${company}/`)).length;
    const companyAfter = row("companies", company) as Record<string, unknown>;
    assert.equal(companyAfter.review_count, Number(companyBefore.review_count) + accepted);
    for (const key of ["id", "name", "website", "is_demo", "created_on"])
      assert.equal(companyAfter[key], companyBefore[key]);
    assert.deepEqual(
      foreign.map((id) => row("managers", id)),
      foreignBefore,
      "managers named in bodies are untouched",
    );
    const stored = snapshot().join("");
    for (const who of people) assert.ok(!stored.includes(who.userId), "a user id was stored");
    console.log(
      `# API extra fields accepted and dropped (201) rather than refused (400): ${ignored.join(", ") || "none"}`,
    );
  });

  it("answers 405 to PUT, PATCH and DELETE on API resources, changing nothing", async () => {
    const [alice] = people as [Person];
    const company = firstId("companies");
    const manager = firstId("managers");
    const before = snapshot();
    for (const path of [
      "/api/v1/companies",
      `/api/v1/companies/${company}`,
      `/api/v1/companies/${company}/reviews`,
      `/api/v1/companies/${company}/managers`,
      "/api/v1/managers",
      `/api/v1/managers/${manager}`,
      `/api/v1/managers/${manager}/reviews`,
    ]) {
      for (const method of ["PUT", "PATCH", "DELETE"]) {
        const answer = await api(method, path, { json: { name: "Changed", review_count: 0 }, token: alice.token });
        assert.equal(answer.status, 405, `${method} ${path}: ${answer.text}`);
      }
    }
    assert.deepEqual(snapshot(), before);
  });

  it("refuses writes without a session or token: 401 from the API, sign-in from the forms", async () => {
    const company = firstId("companies");
    const manager = firstId("managers");
    const before = snapshot();
    for (const [path, json] of [
      [`/api/v1/companies/${company}/reviews`, companyReview()],
      [`/api/v1/managers/${manager}/reviews`, managerReview()],
      ["/api/v1/companies", { company: newCompany(), review: companyReview() }],
    ] as Array<[string, unknown]>) {
      assert.equal((await api("POST", path, { json })).status, 401, path);
      assert.equal((await api("POST", path, { json, token: "not-a-token" })).status, 401, path);
    }
    const stranger = new Visitor(server.baseURL, "198.51.100.201");
    for (const [path, entries] of [
      [`/company/review?company=${company}`, companyReviewEntries(draft())],
      ["/company/add", [...companyEntries(companyDraft("Anon")), ...companyReviewEntries(draft())]],
      [
        `/manager/add?company=${company}`,
        [...managerEntries(managerDraft()), ...managerReviewEntries(draft({ tags: ["Supportive"] }))],
      ],
      [`/manager-review?manager=${manager}`, managerReviewEntries(draft({ tags: ["Supportive"] }))],
    ] as Array<[string, Array<[string, string]>]>) {
      const response = await postEntries(stranger, path, entries);
      await response.body?.cancel();
      const toSignIn = response.status === 302 && response.headers.get("location")?.startsWith("/signin");
      assert.ok(toSignIn || response.status === 401, `${path} answered ${response.status}`);
    }
    assert.deepEqual(snapshot(), before);
  });
});

describe("anonymity crawl", () => {
  it("shows no user id, e-mail, session, token or IP on any public page or API answer, and no day of a review", async () => {
    for (const [index, who] of people.entries()) {
      const added = await post(who, "/company/add", [
        ...companyEntries(companyDraft(`Crawl ${index}`)),
        ...companyReviewEntries(draft()),
      ]);
      assert.equal(added.status, 302);
      const company = idFrom(added, /^\/company\/(\d+)$/);
      for (const other of people.filter((p) => p !== who)) {
        assert.equal(
          (await post(other, `/company/review?company=${company}`, companyReviewEntries(draft()))).status,
          302,
        );
      }
      const manager = await post(who, `/manager/add?company=${company}`, [
        ...managerEntries(managerDraft("Sasha")),
        ...managerReviewEntries(draft({ tags: ["Supportive"] })),
      ]);
      assert.equal(manager.status, 302);
      const managerId = idFrom(manager, /^\/manager-profile\/(\d+)$/);
      for (const other of people.filter((p) => p !== who)) {
        assert.equal(
          (
            await post(
              other,
              `/manager-review?manager=${managerId}`,
              managerReviewEntries(draft({ tags: ["Supportive"] })),
            )
          ).status,
          302,
        );
      }
    }
    const viewer = new Visitor(server.baseURL, "198.51.100.77");
    await viewer.signUp(newEmail("viewer"), password);
    const sessions = db.prepare(
      "select id, token from sessions where userId in (select id from users where email in (?, ?, ?))",
    );
    const secrets = [
      ...people.flatMap((p) => [p.userId, p.email, p.token, ...p.visitor.cookies.values()]),
      ...(sessions.all(...people.map((p) => p.email)) as Array<{ id: string; token: string }>).flatMap((s) => [
        s.id,
        s.token,
      ]),
      ...[...people.map((p) => p.ip), "198.51.100.77", "198.51.100.200"].flatMap((ip) => [
        ip,
        hashIdentifier(secret, "ip", ip),
      ]),
    ];
    const days = (
      db
        .prepare(
          "select created_on as day from company_reviews where created_on >= date('now', '-1 day') union select created_on from manager_reviews where created_on >= date('now', '-1 day')",
        )
        .all() as Array<{ day: string }>
    ).flatMap(({ day }) => {
      const date = new Date(`${day}T12:00:00Z`);
      const long = (month: "long" | "short") =>
        date.toLocaleDateString("en-US", { month, day: "numeric", timeZone: "UTC" });
      return [day, `${long("long")},`, `${long("short")},`, day.split("-").reverse().join("/")];
    });
    const companies = db
      .prepare("select id, name, review_count from companies order by review_count desc, id limit 150")
      .all() as Array<{ id: number; name: string; review_count: number }>;
    const managers = db.prepare("select id, first_name from managers order by id desc limit 150").all() as Array<{
      id: number;
      first_name: string;
    }>;
    const paths = ["/", "/landing", "/guidelines", "/privacy", "/api", "/search?kind=manager&country=US&q=Sasha"];
    const apiPaths = [
      "/api/v1/openapi.json",
      "/api/v1/countries",
      "/api/v1/tags",
      "/api/v1/companies/suggestions?q=Crawl",
    ];
    for (const c of companies) {
      const word = encodeURIComponent(c.name.split(" ")[0]!);
      paths.push(`/company/${c.id}`, `/managers?company=${c.id}`, `/search?country=US&q=${word}`);
      apiPaths.push(
        `/api/v1/companies/${c.id}`,
        `/api/v1/companies/${c.id}/reviews`,
        `/api/v1/companies/${c.id}/managers`,
      );
      apiPaths.push(`/api/v1/companies?country=US&q=${word}`);
    }
    for (const m of managers) {
      paths.push(`/manager-profile/${m.id}`);
      apiPaths.push(
        `/api/v1/managers/${m.id}`,
        `/api/v1/managers/${m.id}/reviews`,
        `/api/v1/managers?country=US&q=${m.first_name}`,
      );
    }
    let fetched = 0;
    let secondPages = 0;
    assert.ok(days.length > 0, "today's reviews have a day to look for");
    const check = (label: string, body: string) => {
      fetched += 1;
      for (const secret of secrets) assert.ok(!body.includes(secret), `${label} contains ${secret}`);
      for (const day of days) assert.ok(!body.includes(day), `${label} shows the day ${day}`);
    };
    const anonymous = new Visitor(server.baseURL, "198.51.100.200");
    for (const visitor of [anonymous, viewer]) {
      const who = visitor === viewer ? "signed in" : "signed out";
      for (const path of paths) {
        const response = await visitor.get(path);
        const body = await response.text();
        assert.equal(response.status, 200, `${who} ${path}`);
        check(`${who} ${path}`, body);
        const next = /href="(\/(?:company|manager-profile)\/\d+\?before=[^"]+)"/.exec(body)?.[1];
        if (next) secondPages += 1;
        if (next) check(`${who} ${next}`, await (await visitor.get(next.replaceAll("&amp;", "&"))).text());
      }
    }
    for (const path of apiPaths) {
      const answer = await api("GET", path, { ip: "198.51.100.200" });
      assert.equal(answer.status, 200, `${path}: ${answer.text}`);
      check(path, answer.text);
      const next = (JSON.parse(answer.text) as { next?: string | null }).next;
      if (typeof next === "string" && path.endsWith("/reviews")) {
        secondPages += 1;
        check(`${path} page 2`, (await api("GET", `${path}?before=${encodeURIComponent(next)}`)).text);
      }
    }
    console.log(
      `# anonymity crawl: ${fetched} responses (${secondPages} second pages) checked against ${secrets.length} secrets`,
    );
    assert.ok(secondPages > 0, "second pages of reviews were crawled");

    const lines = server.output().split("\n").filter(Boolean);
    const reviewIds = (
      db.prepare("select id from company_reviews union all select id from manager_reviews").all() as Array<{
        id: string;
      }>
    ).map((r) => r.id);
    assert.ok(
      lines.some((line) => line.includes('"msg":"request"')),
      "request logs are written",
    );
    for (const line of lines) {
      for (const secret of secrets) assert.ok(!line.includes(secret), `a log line contains ${secret}: ${line}`);
      const review = reviewIds.find((id) => line.includes(id));
      assert.ok(
        !review || !/\d+\.\d+\.\d+\.\d+|user|session|email/i.test(line),
        `a log line ties review ${review} to someone`,
      );
    }
    console.log(`# log lines checked: ${lines.length}`);
  });
});
