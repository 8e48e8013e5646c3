import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { paths } from "#app/lib/paths.ts";
import { companyDraft, companyEntries, companyReviewEntries, postEntries } from "./support/contribute.ts";
import { newClientIp, newEmail, Visitor } from "./support/http.ts";
import { type Engine, readDatabase, startServer } from "../support/server.ts";
import { type LoggedRequest, type Stamp, joinStamps, requestLines } from "../support/stamp-join.ts";

// Account stamps × the request log, both engines (docs/anonymity.md, decisions 0050 and 0051). Five accounts sign up,
// add a company with its only review, review it, sign out and in again and vote, and one signs in over the API and
// votes with its bearer token; then whoever holds the database and
// the log lays every stored stamp about an account beside every contribution's log line. Each contribution must keep
// at least 3 candidate authors.
//
// Live: the same join runs on a planted copy of this very run, as the server wrote it before decision 0050: every
// sign-up and sign-in stamped to the millisecond, a session refresh stamped inside each contribution's request, and
// the request log to the millisecond with each request's duration (times the test saw, which lie inside the server's
// own). The join must name authors there (fewer than 3 candidates), or the check could not fail.

const password = "a long and private passphrase";
const contributionPaths = new Set([
  "/company/add",
  "/company/review",
  "/helpful",
  "/manager/add",
  "/manager-review",
  "/api/v1/helpful-votes",
]);
const isContribution = (line: LoggedRequest) => line.method === "POST" && contributionPaths.has(line.path);

for (const engine of ["sqlite", "postgres"] as Engine[]) {
  describe(`account stamps joined with the request log (${engine})`, async () => {
    const server = await startServer(engine, {
      env: { DEMO_DATA: "never", TRUSTED_PROXIES: "127.0.0.1", LOG_LEVEL: "info" },
    });
    after(() => server.stop());
    const copy = { engine, url: server.databaseUrl };

    it("leaves every contribution at least 3 candidate authors, where the planted stamps name them", async () => {
      const planted: { stamps: Stamp[]; lines: LoggedRequest[] } = { stamps: [], lines: [] };
      /** A request as the test saw it, and as the old server would have logged and stamped it. */
      async function timed(label: string, stamp: boolean, send: () => Promise<Response>, pattern: string) {
        const sent = Date.now();
        const response = await send();
        await response.body?.cancel();
        const answered = Date.now();
        const method = pattern === "GET" ? "GET" : "POST";
        planted.lines.push({ time: answered, resolutionMs: 1, durationMs: answered - sent, method, path: pattern });
        if (stamp) planted.stamps.push({ account: label, at: sent + Math.floor((answered - sent) / 2) });
        return response;
      }

      const labels = ["ana", "ben", "cai", "dee", "eli"];
      const people = labels.map((label) => ({
        label,
        email: newEmail(label),
        visitor: new Visitor(server.baseURL, newClientIp()),
      }));
      for (const { label, email, visitor } of people) {
        const response = await timed(label, true, () => visitor.post("/signup", { email, password }), "/signup");
        assert.equal(response.status, 302, `${label} signed up`);
      }
      const [founder, ...others] = people;
      const added = await timed(
        founder!.label,
        true,
        () =>
          postEntries(founder!.visitor, paths.addCompany(), [
            ...companyEntries(companyDraft("Stamped Co")),
            ...companyReviewEntries({ tags: ["Stable"], text: "A new company's only review, for a while." }),
          ]),
        "/company/add",
      );
      assert.equal(added.status, 302, "the new company was added with its review");
      const companyId = Number(added.headers.get("location")?.split("/").at(-1));
      for (const { label, visitor } of others) {
        const text = `Review by ${label}: clear goals and kind people, long meetings though.`;
        const response = await timed(
          label,
          true,
          () => postEntries(visitor, paths.reviewCompany(companyId), companyReviewEntries({ tags: ["Stable"], text })),
          "/company/review",
        );
        assert.equal(response.status, 302, `${label}'s review was taken`);
      }
      const reviews = await readDatabase(copy, `select id from company_reviews where company_id = ${companyId}`);
      assert.equal(reviews.length, 5, "five reviews published");
      for (const [index, { label, email, visitor }] of people.slice(1, 4).entries()) {
        await (await visitor.post("/signout", {})).body?.cancel();
        const signedIn = await timed(label, true, () => visitor.signIn(email, password), "/signin");
        assert.equal(signedIn.status, 302, `${label} signed in again`);
        const review = String(reviews[index]!.id);
        const voted = await timed(
          label,
          true,
          () => visitor.post(paths.helpful(), { review, vote: "add", returnTo: paths.company(companyId) }),
          "/helpful",
        );
        assert.equal(voted.status, 302, `${label}'s vote was taken`);
      }

      // An API client: a password grant (a new session and token family), then a helpful vote with the bearer token.
      const client = people[4]!;
      const grantResponse = await timed(
        client.label,
        true,
        () =>
          fetch(new URL("/api/v1/auth/token", server.baseURL), {
            method: "POST",
            headers: { "Content-Type": "application/json", "X-Forwarded-For": newClientIp() },
            body: JSON.stringify({ grant_type: "password", email: client.email, password }),
          }),
        "/api/v1/auth/token",
      );
      assert.equal(grantResponse.status, 200, "the API client was granted tokens");
      const grant = (await (
        await fetch(new URL("/api/v1/auth/token", server.baseURL), {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Forwarded-For": newClientIp() },
          body: JSON.stringify({ grant_type: "password", email: client.email, password }),
        })
      ).json()) as { access_token: string; vote_key: string };
      const apiVote = await timed(
        client.label,
        true,
        () =>
          fetch(new URL("/api/v1/helpful-votes", server.baseURL), {
            method: "POST",
            headers: {
              "Content-Type": "application/json",
              "X-Forwarded-For": newClientIp(),
              authorization: `Bearer ${grant.access_token}`,
              "Candor-Vote-Key": grant.vote_key,
            },
            body: JSON.stringify({ review_id: String(reviews[0]!.id), helpful: true }),
          }),
        "/api/v1/helpful-votes",
      );
      assert.equal(apiVote.status, 200, "the API client's vote was taken");

      // What the copy holds: every stamp about an account, with the account it is about, and the request log.
      const users = await readDatabase(copy, `select id, email from users`);
      const labelOf = new Map(
        users.map((user) => [String(user.id), people.find((person) => person.email === user.email)!.label]),
      );
      const stamps: Stamp[] = [];
      const stamped = (userId: unknown, ...values: unknown[]) => {
        for (const value of values) {
          const at = typeof value === "number" ? value : new Date(value as string).getTime();
          stamps.push({ account: labelOf.get(String(userId))!, at });
        }
      };
      for (const user of await readDatabase(copy, `select id, "createdAt", "updatedAt" from users`)) {
        stamped(user.id, user.createdAt, user.updatedAt);
      }
      for (const table of ["sessions", "accounts"]) {
        for (const row of await readDatabase(copy, `select "userId", "createdAt", "updatedAt" from ${table}`)) {
          stamped(row.userId, row.createdAt, row.updatedAt);
        }
      }
      for (const row of await readDatabase(copy, `select "userId", "expiresAt" from sessions`)) {
        stamped(row.userId, row.expiresAt);
      }
      const tokens = await readDatabase(
        copy,
        `select sessions."userId" as "userId", api_tokens.expires_at as expires from api_tokens join sessions on sessions.id = api_tokens.session_id`,
      );
      assert.ok(tokens.length >= 4, "the copy holds the API client's token rows");
      for (const token of tokens) stamped(token.userId, Number(token.expires));
      // What stays (decision 0050), measured and printed, not asserted: on PostgreSQL a sign-in's session row is
      // written a few transaction ids before the vote that follows it.
      if (engine === "postgres") {
        const sessionRows = await readDatabase(copy, `select xmin::text::bigint as x, "userId" from sessions`);
        const votes = await readDatabase(copy, `select xmin::text::bigint as x from vote_receipts`);
        const nearest = votes.map((vote) => {
          const before = sessionRows.filter((row) => Number(row.x) < Number(vote.x));
          const latest = before.reduce((a, b) => (Number(a.x) > Number(b.x) ? a : b));
          return { gap: Number(vote.x) - Number(latest.x), owner: labelOf.get(String(latest.userId)) };
        });
        const voters = new Set(["ben", "cai", "dee", "eli"]);
        const named = new Set(nearest.filter(({ owner }) => voters.has(owner ?? "")).map(({ owner }) => owner));
        console.log(
          `# postgres, still open: the latest session row before each of the ${votes.length} votes belongs to a voter ` +
            `for ${named.size} distinct voters, ${nearest.map(({ gap }) => gap).join(", ")} transaction ids before it`,
        );
      }

      // The log as the stopped server left it: every line written (a running server hands its lines over in turns).
      assert.equal(await server.stop(), 0, "the server stopped cleanly");
      const lines = requestLines(server.output());

      const real = joinStamps(lines, stamps, labels, isContribution);
      const plantedJoin = joinStamps(planted.lines, planted.stamps, labels, isContribution);
      console.log(
        `# ${engine}: planted (stamps and log to the millisecond, a refresh inside each contribution): ` +
          `${plantedJoin.narrowed} of ${plantedJoin.lines} contributions below 3 candidates, fewest ${plantedJoin.fewest}; ` +
          `real: ${real.narrowed} of ${real.lines} below 3 from ${real.stamps} stamps, fewest ${real.fewest}`,
      );
      assert.equal(plantedJoin.lines, 9, "the planted run has the 9 contributions");
      assert.ok(plantedJoin.narrowed > 0, "the join names authors in the planted run (the check is live)");
      assert.equal(real.lines, 9, "the log holds a line for each of the 9 contributions (nothing to compare fails)");
      assert.ok(real.stamps >= 20, `the copy holds the accounts' stamps: ${real.stamps}`);
      assert.equal(real.narrowed, 0, `every contribution keeps at least 3 candidates: fewest ${real.fewest}`);
      for (const line of lines) assert.doesNotMatch(line.path, /\/\d+(?:\/|\.|$)/, `an id in the log: ${line.path}`);
    });
  });
}
