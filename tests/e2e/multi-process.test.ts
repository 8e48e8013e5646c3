// Two server processes on one PostgreSQL schema, as behind a proxy: they share rate-limit counters (in PostgreSQL,
// or in Redis when REDIS_URL is set), the counters outlive a restart, and a change published through one process
// reaches the other's page cache (LISTEN/NOTIFY, or Redis pub/sub), which lets go of the changed page at once
// instead of keeping it until it expires.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { companyReview, password } from "./support/api.ts";
import { headlineReviewCount, newClientIp, newEmail, Visitor } from "./support/http.ts";
import {
  cleanUp,
  createDatabase,
  freePort,
  newSecret,
  type ServerProcess,
  publishQueued,
  spawnServer,
  type ThrowawayDatabase,
  waitForHealth,
} from "../support/server.ts";

const redisUrl = process.env.TEST_REDIS_URL || "redis://127.0.0.1:6379";

type Node = { baseURL: string; port: number; server: ServerProcess };

for (const channel of ["postgres", "redis"] as const) {
  describe(`two processes sharing state through ${channel === "redis" ? "Redis" : "PostgreSQL"}`, () => {
    let database: ThrowawayDatabase;
    const secret = newSecret();
    const nodes: Node[] = [];

    function settings(port: number, demo: "always" | "never"): Record<string, string> {
      return {
        AUTH_SECRET: secret,
        DEMO_DATA: demo,
        TRUSTED_PROXIES: "127.0.0.1",
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        ...(channel === "redis" ? { REDIS_URL: redisUrl } : {}),
      };
    }

    async function startNode(
      demo: "always" | "never",
      port?: number,
      extra: Record<string, string> = {},
    ): Promise<Node> {
      const chosen = port ?? (await freePort());
      const server = spawnServer(database, chosen, { ...settings(chosen, demo), ...extra });
      const baseURL = `http://127.0.0.1:${chosen}`;
      await waitForHealth(baseURL, server, 30_000);
      return { baseURL, port: chosen, server };
    }

    before(async () => {
      database = await createDatabase("postgres", `multi-${channel}`);
      // The first loads the demo data; the second starts on the same schema once it is there.
      nodes.push(await startNode("always"));
      nodes.push(await startNode("never"));
    });

    after(async () => {
      for (const node of nodes) {
        if (node.server.child.exitCode !== null) continue;
        node.server.child.kill("SIGTERM");
        assert.equal(await node.server.exited, 0, `a server did not shut down cleanly:\n${node.server.log()}`);
      }
      await cleanUp(undefined, database);
    });

    it("lets exactly 10 sign-in attempts from one address through, across both processes at once", async () => {
      const ip = newClientIp();
      const attempt = (node: Node) =>
        fetch(new URL("/api/v1/auth/token", node.baseURL), {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Forwarded-For": ip },
          body: JSON.stringify({ grant_type: "password", email: newEmail("nobody"), password: "not the password" }),
        }).then(async (response) => {
          await response.body?.cancel();
          return response.status;
        });
      // 16 attempts sent together, half to each process.
      const statuses = await Promise.all(Array.from({ length: 16 }, (_, index) => attempt(nodes[index % 2]!)));
      assert.equal(statuses.filter((status) => status === 401).length, 10, `statuses: ${statuses.join(",")}`);
      assert.equal(statuses.filter((status) => status === 429).length, 6, `statuses: ${statuses.join(",")}`);

      // A restarted process remembers: the address is still refused by the fresh process.
      const restarted = nodes[1]!;
      restarted.server.child.kill("SIGTERM");
      assert.equal(await restarted.server.exited, 0, restarted.server.log());
      nodes[1] = await startNode("never", restarted.port);
      assert.equal(await attempt(nodes[1]), 429);
    });

    /** Signs up through `node`, then posts a review of the company at `path` with a token; answers the status. */
    async function postReview(node: Node, path: string): Promise<number> {
      const email = newEmail("multi");
      await new Visitor(node.baseURL, newClientIp()).signUp(email, password);
      const json = { "Content-Type": "application/json", "X-Forwarded-For": newClientIp() };
      const grant = await fetch(new URL("/api/v1/auth/token", node.baseURL), {
        method: "POST",
        headers: json,
        body: JSON.stringify({ grant_type: "password", email, password }),
      });
      assert.equal(grant.status, 200);
      // A review is taken only with the account's own key, which the grant answers as vote_key (decision 0046).
      const { access_token: token, vote_key: accountKey } = (await grant.json()) as {
        access_token: string;
        vote_key: string;
      };
      const posted = await fetch(new URL(`/api/v1${path.replace("company", "companies")}/reviews`, node.baseURL), {
        method: "POST",
        headers: { ...json, Authorization: `Bearer ${token}`, "Candor-Account-Key": accountKey },
        body: JSON.stringify(companyReview()),
      });
      await posted.body?.cancel();
      return posted.status;
    }

    /** A visit of `path` on `node` as a reader without cookies: whether the page cache answered, and the count. */
    async function visit(node: Node, path: string) {
      const response = await fetch(new URL(path, node.baseURL), { headers: { "X-Forwarded-For": newClientIp() } });
      const html = await response.text();
      return { cache: response.headers.get("x-cache"), count: headlineReviewCount(html) };
    }

    /** Keeps the page in `node`'s cache (its change channel connects in the background), and returns its count. */
    async function kept(node: Node, path: string): Promise<number> {
      let seen = await visit(node, path);
      for (let tries = 0; seen.cache !== "hit" && tries < 200; tries += 1) seen = await visit(node, path);
      assert.equal(seen.cache, "hit", "the reader keeps the page");
      return seen.count;
    }

    /** How long a process keeps a page in its cache unless told of a change (server/page-cache.ts). */
    const pageCacheTtlMs = 60_000;

    /**
     * Polls `node` until `path` shows `count` reviews. The page entered the cache at `cachedSince` or later; it is
     * watched for half of its lifetime at most, so only the change channel, never its expiry, can have let it go.
     * How long that took is a diagnostic: on a busy machine a process can wait its turn for the CPU for a while.
     */
    async function seenBeforeExpiry(node: Node, path: string, count: number, cachedSince: number, since: number) {
      let seen = await visit(node, path);
      while (seen.count !== count && performance.now() - cachedSince < pageCacheTtlMs / 2)
        seen = await visit(node, path);
      const elapsed = Math.round(performance.now() - since);
      assert.equal(seen.count, count, `the reader still showed ${seen.count} reviews after ${elapsed} ms`);
      return elapsed;
    }

    it("shows a review published through one process on the other's cached page, long before the page expires", async (t) => {
      const [writer, reader] = [nodes[0]!, nodes[1]!];
      const cachedSince = performance.now();
      const before = await kept(reader, "/company/4");
      assert.equal(await postReview(writer, "/company/4"), 201);
      // Published before it was answered (PUBLISH_INTERVAL=0): from now on the reader must show it.
      const elapsed = await seenBeforeExpiry(reader, "/company/4", before + 1, cachedSince, performance.now());
      t.diagnostic(`the reader showed the review ${elapsed} ms after it was published`);
    });

    /** How long a process believes a session cookie it found valid unless told a session ended (decision 0034). */
    const verifiedSessionMs = 30_000;

    it("ends a session signed out through one process on the other at once, long before it would forget it", async (t) => {
      const [writer, reader] = [nodes[0]!, nodes[1]!];
      const visitor = new Visitor(writer.baseURL, newClientIp());
      await visitor.signUp(newEmail("leaving"), password);
      await (await visitor.get("/guidelines")).body?.cancel(); // the sign-up's toast, shown once
      const cookie = visitor.cookieHeader();
      const view = async () => {
        const response = await fetch(new URL("/company/5", reader.baseURL), {
          headers: { Cookie: cookie, "X-Forwarded-For": newClientIp() },
        });
        const html = await response.text();
        return { cache: response.headers.get("x-cache"), signedIn: html.includes(">Sign out</button>") };
      };
      // The reader process checks the session once and then believes it, answering from its kept signed-in page.
      const rememberedSince = performance.now();
      let seen = await view();
      for (let tries = 0; seen.cache !== "hit" && tries < 200; tries += 1) seen = await view();
      assert.equal(seen.cache, "hit", "the reader keeps the signed-in page");
      assert.ok(seen.signedIn);
      const signedOut = await visitor.post("/signout", {});
      await signedOut.body?.cancel();
      assert.equal(signedOut.status, 302);
      const since = performance.now();
      // Watched for half of the time the reader would believe the session on its own: only the change channel can
      // have made it ask again.
      while (seen.signedIn && performance.now() - rememberedSince < verifiedSessionMs / 2) seen = await view();
      const elapsed = Math.round(performance.now() - since);
      assert.equal(seen.signedIn, false, `the reader still showed the old cookie signed in after ${elapsed} ms`);
      t.diagnostic(`the other process let the session go ${elapsed} ms after the sign-out`);
    });

    it("shows a review published by `npm run reviews:publish`, beside the servers, long before the page expires", async (t) => {
      const queueing = await startNode("never", undefined, { PUBLISH_INTERVAL: "86400" });
      nodes.push(queueing);
      const reader = nodes[1]!;
      const cachedSince = performance.now();
      const before = await kept(reader, "/company/5");
      assert.equal(await postReview(queueing, "/company/5"), 202);
      publishQueued(database, { AUTH_SECRET: secret, ...(channel === "redis" ? { REDIS_URL: redisUrl } : {}) });
      const elapsed = await seenBeforeExpiry(reader, "/company/5", before + 1, cachedSince, performance.now());
      t.diagnostic(`the reader showed the review ${elapsed} ms after it was published`);
    });
  });
}
