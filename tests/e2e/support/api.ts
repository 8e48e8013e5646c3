import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import { companyJson, companyReviewJson, managerJson, managerReviewJson } from "../../support/payloads.ts";
import { newClientIp, newEmail, Visitor } from "./http.ts";
import { ApiContract, type Checked } from "./openapi-contract.ts";

/**
 * A client of the JSON API for tests: every response goes through the OpenAPI contract, and none may carry what
 * identifies the account (its id or e-mail), except GET /api/v1/auth/user, which answers the bearer about itself.
 * Each request comes from a new client address (X-Forwarded-For, behind TRUSTED_PROXIES=127.0.0.1) unless told
 * otherwise, so that rate limits are only met where a test means to meet them.
 */

export type Call = {
  /** Sent as JSON with Content-Type: application/json. */
  json?: unknown;
  /** Sent as is (a string, form fields…); set Content-Type in `headers`. */
  body?: BodyInit;
  headers?: Record<string, string>;
  /** Sent as Authorization: Bearer … */
  token?: string;
  /** The client address; a new one by default. */
  ip?: string;
};

export type Answer = Checked & { response: Response; url: URL };

export type Account = {
  email: string;
  password: string;
  userId: string;
  accessToken: string;
  refreshToken: string;
  /** What the password grant answered as `vote_key`: the account key, sent as Candor-Account-Key with every write. */
  voteKey: string;
};

export type TokenPair = {
  access_token: string;
  token_type: string;
  expires_in: number;
  expires_at: number;
  refresh_token: string;
};

export const password = "a long and private passphrase";

export class ApiClient {
  readonly baseURL: string;
  readonly contract: ApiContract;
  /** Strings that no response may contain (an account's id and e-mail). */
  readonly secrets: string[] = [];
  /**
   * Each access token's account key (the grant's `vote_key`), sent as Candor-Account-Key with every call made with
   * that token, as a client does; a call that sets the header itself (empty: none) sends its own.
   */
  readonly accountKeys = new Map<string, string>();

  constructor(baseURL: string, contract: ApiContract) {
    this.baseURL = baseURL;
    this.contract = contract;
  }

  static async connect(baseURL: string): Promise<ApiClient> {
    return new ApiClient(baseURL, await ApiContract.load(baseURL));
  }

  url(path: string): URL {
    return new URL(path, this.baseURL);
  }

  async call(method: string, path: string, call: Call = {}): Promise<Answer> {
    const url = this.url(path);
    const headers = new Headers(call.headers);
    if (!headers.has("X-Forwarded-For")) headers.set("X-Forwarded-For", call.ip ?? newClientIp());
    if (call.token !== undefined) headers.set("Authorization", `Bearer ${call.token}`);
    const accountKey = call.token === undefined ? undefined : this.accountKeys.get(call.token);
    if (accountKey && !headers.has("Candor-Account-Key")) headers.set("Candor-Account-Key", accountKey);
    if (headers.get("Candor-Account-Key") === "") headers.delete("Candor-Account-Key");
    let body = call.body;
    if (call.json !== undefined) {
      body = JSON.stringify(call.json);
      if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
    }
    // A stream is sent chunked, without Content-Length (fetch wants duplex: "half" for it).
    const init = {
      method,
      headers,
      body,
      redirect: "manual",
      duplex: body instanceof ReadableStream ? "half" : undefined,
    };
    const response = await fetch(url, init as RequestInit);
    const checked = await this.contract.check(method, url, response, headers.has("If-None-Match"));
    if (url.pathname !== "/api/v1/auth/user") {
      for (const secret of this.secrets) {
        assert.ok(!checked.text.includes(secret), `${method} ${path} answered with an account's id or e-mail`);
      }
    }
    return { ...checked, response, url };
  }

  get(path: string, call: Call = {}): Promise<Answer> {
    return this.call("GET", path, call);
  }

  post(path: string, json: unknown, call: Call = {}): Promise<Answer> {
    return this.call("POST", path, { ...call, json });
  }

  /**
   * Signs up through the site's form (same origin), then takes a token pair from POST /api/v1/auth/token. The
   * account's id is read from the database, so that tests can look for it in every answer.
   */
  async newAccount(databaseUrl: string, engine: "sqlite" | "postgres" = "sqlite"): Promise<Account> {
    const email = newEmail("api");
    await new Visitor(this.baseURL, newClientIp()).signUp(email, password);
    const grant = await this.post("/api/v1/auth/token", { grant_type: "password", email, password });
    assert.equal(grant.status, 200, grant.text);
    const pair = grant.body as TokenPair & { vote_key: string };
    const userId = await readUserId(databaseUrl, engine, email);
    this.secrets.push(email, userId);
    this.accountKeys.set(pair.access_token, pair.vote_key);
    return {
      email,
      password,
      userId,
      accessToken: pair.access_token,
      refreshToken: pair.refresh_token,
      voteKey: pair.vote_key,
    };
  }
}

async function readUserId(databaseUrl: string, engine: "sqlite" | "postgres", email: string): Promise<string> {
  if (engine === "postgres") {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ id: string }>("select id from users where email = $1", [email]);
      assert.ok(rows[0], `no user ${email}`);
      return rows[0].id;
    } finally {
      await client.end();
    }
  }
  const db = new Database(databaseUrl, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare("select id from users where email = ?").get(email) as { id: string } | undefined;
    assert.ok(row, `no user ${email}`);
    return row.id;
  } finally {
    db.close();
  }
}

/**
 * A cheap fingerprint of everything stored: a hash of every row of every table of the server's SQLite file, read
 * through a read-only connection (the server keeps writing through its own).
 */
export class StoredData {
  private readonly db: Database.Database;
  private readonly tables: string[];

  constructor(databasePath: string) {
    this.db = new Database(databasePath, { readonly: true, fileMustExist: true });
    this.tables = (
      this.db.prepare("select name from sqlite_master where type = 'table' order by name").all() as Array<{
        name: string;
      }>
    ).map(({ name }) => name);
  }

  fingerprint(): string {
    const hash = createHash("sha256");
    for (const table of this.tables) {
      const rows = (this.db.prepare(`select * from "${table}"`).raw().all() as unknown[][]).map((row) =>
        JSON.stringify(row, (_key, value: unknown) => (typeof value === "bigint" ? String(value) : value)),
      );
      rows.sort();
      hash.update(`${table}\u0000${rows.length}\u0000${rows.join("\n")}\u0001`);
    }
    return hash.digest("base64url");
  }

  count(table: string): number {
    return (this.db.prepare(`select count(*) as n from "${table}"`).get() as { n: number }).n;
  }

  close(): void {
    this.db.close();
  }
}

let made = 0;

/** A unique word for names, so that each new company is new. */
export function unique(label: string): string {
  made += 1;
  return `${label} ${process.pid.toString(36)} ${made} ${Math.random().toString(36).slice(2, 8)}`;
}

export function companyReview(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return companyReviewJson({
    tags: ["Remote Friendly", "Fair Pay"],
    review_text: "Steady work, kind colleagues and honest planning.",
    ...overrides,
  });
}

export function managerReview(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return managerReviewJson(
    {
      tags: ["Supportive", "Clear Goals"],
      review_text: "Listens first, decides clearly and shares credit.",
      ...overrides,
    },
    { seed: 2, answers: "text" },
  );
}

export function newCompany(name = unique("Contract Company")): Record<string, unknown> {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  return companyJson({ name, website: `https://${slug}.example`, glassdoor_url: `https://reviews.example/${slug}` });
}

export function newManager(): Record<string, unknown> {
  return managerJson({
    first_name: unique("Avery").split(" ").join(""),
    last_name: "Contract",
    linkedin_url: "https://www.linkedin.com/in/avery-contract",
    department: "Platform",
  });
}
