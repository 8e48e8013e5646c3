import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { after, describe, it } from "node:test";
import { modInverse, modPow } from "#app/lib/modular.ts";
import { paths } from "#app/lib/paths.ts";
import { bytesToBigint, decodeReviewToken, derivePublicExponent, reviewTokenInfo } from "#app/lib/review-token.ts";
import { verificationMessages } from "#app/lib/verification-messages.ts";
import {
  companyDraft,
  companyEntries,
  companyReviewEntries,
  managerDraft,
  managerEntries,
  managerReviewEntries,
  postEntries,
} from "./support/contribute.ts";
import { newClientIp, newEmail, sameOrigin, Visitor } from "./support/http.ts";
import { managerReview } from "./support/api.ts";
import { blindReviewToken, postJson, type ReviewTokenKeyAnswer, shuffled } from "./support/verify.ts";
import { type Engine, publishQueued, readDatabase, startServer } from "../support/server.ts";

// One review per account per manager as a partially blind token, over HTTP on both engines: obtained signed in,
// spent by a request without a session. Then the attacker of docs/anonymity.md (T2), with the database after
// publication, AUTH_SECRET, the log at level info and even every issuance's wire transcript, tries to match the
// spent tokens to the accounts that obtained them: every pairing is equally consistent.

const people = 4;
const password = "a long and private passphrase";
const toBig = (base64url: string) => bytesToBigint(Buffer.from(base64url, "base64url"));

type Issued = { visitor: Visitor; token: string; blinded: string; blindSignature: string };

/** Signed in: the key, a blinded nonce for the manager, its signature, the finished token. */
async function obtain(visitor: Visitor, managerId: number): Promise<{ response: Response; issued?: Issued }> {
  const key = (await (await visitor.request("/api/v1/review-tokens/key")).json()) as ReviewTokenKeyAnswer;
  const blind = await blindReviewToken(key, managerId);
  const response = await postJson(visitor, `/api/v1/managers/${managerId}/review-tokens`, blind.request);
  if (response.status !== 200) return { response };
  const { blind_signature: blindSignature } = (await response.clone().json()) as { blind_signature: string };
  const token = await blind.finish(blindSignature);
  return { response, issued: { visitor, token, blinded: blind.request.blinded, blindSignature } };
}

/** The review, sent as the page sends it: fetch with credentials "omit", so no cookie goes with it. */
function spend(baseURL: string, managerId: number, token: string, headers: Record<string, string> = {}) {
  const body = managerReview({ review_token: token });
  return fetch(new URL(`/api/v1/managers/${managerId}/token-reviews`, baseURL), {
    method: "POST",
    headers: {
      ...sameOrigin(baseURL),
      "Content-Type": "application/json",
      "X-Forwarded-For": newClientIp(),
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

for (const engine of ["sqlite", "postgres"] as Engine[]) {
  describe(`one-review tokens over HTTP (${engine})`, async () => {
    const secret = randomBytes(32).toString("hex");
    const settings = { PUBLISH_INTERVAL: "3600", MANAGER_MIN_REVIEWS: "3", PUBLISH_MIN_AUTHORS: "3" };
    const server = await startServer(engine, {
      env: { DEMO_DATA: "never", TRUSTED_PROXIES: "127.0.0.1", LOG_LEVEL: "info", AUTH_SECRET: secret, ...settings },
    });
    after(async () => {
      assert.equal(await server.stop(), 0, `the server did not shut down cleanly:\n${server.output()}`);
    });
    const database = { engine, url: server.databaseUrl };
    const publish = (extra: Record<string, string>) =>
      publishQueued(
        { url: server.databaseUrl, dir: path.dirname(server.outboxDir) },
        { AUTH_SECRET: secret, ...extra },
      );

    it("refuses a cookie on the spend, another manager, a second token and a second spend; and cannot be matched", async () => {
      const founder = new Visitor(server.baseURL, newClientIp());
      await founder.signUp(newEmail("founder"), password);
      const company = await postEntries(founder, paths.addCompany(), [
        ...companyEntries(companyDraft("Token Co")),
        ...companyReviewEntries({ tags: ["Stable"], text: "A company review to start with." }),
      ]);
      await company.body?.cancel();
      publish({});
      const [{ id: companyId }] = (await readDatabase(database, "select id from companies")) as [{ id: number }];
      for (const first of ["Ada", "Bea"]) {
        const added = await postEntries(founder, paths.addManager(Number(companyId)), [
          ...managerEntries(managerDraft(first)),
          ...managerReviewEntries({ tags: ["Supportive"], text: "The founder's first review of this manager." }),
        ]);
        await added.body?.cancel();
      }
      publish({});
      const managers = (await readDatabase(database, "select id, first_name from managers order by first_name")) as {
        id: number;
      }[];
      const [a, b] = managers.map((row) => Number(row.id)) as [number, number];

      const truth: Issued[] = [];
      for (let person = 0; person < people; person++) {
        const visitor = new Visitor(server.baseURL, newClientIp());
        await visitor.signUp(newEmail("staff"), password);
        const { response, issued } = await obtain(visitor, a);
        assert.equal(response.status, 200, await response.text());
        truth.push(issued!);
      }
      // A second token for the same account and manager is refused at issuance.
      const again = await obtain(truth[0]!.visitor, a);
      assert.equal(again.response.status, 409);
      assert.equal(((await again.response.json()) as { detail: string }).detail, verificationMessages.reviewTokenTaken);

      // The spend carries no session: with a cookie it is refused, and so is a token of A spent on B.
      const withCookie = await spend(server.baseURL, a, truth[0]!.token, { Cookie: "candor_session=anything" });
      assert.equal(withCookie.status, 400);
      assert.equal(((await withCookie.json()) as { code: string }).code, "review-token-session");
      const onB = await spend(server.baseURL, b, truth[0]!.token);
      assert.equal(onB.status, 400);
      assert.equal(((await onB.json()) as { code: string }).code, "review-token-manager");

      for (const person of shuffled(truth)) {
        const answer = await spend(server.baseURL, a, person.token);
        assert.equal(answer.status, 202, await answer.text());
      }
      const twice = await spend(server.baseURL, a, truth[1]!.token);
      assert.equal(twice.status, 409);
      assert.equal(((await twice.json()) as { code: string }).code, "review-token-spent");

      publish(settings);
      const published = await readDatabase(database, `select id from manager_reviews where manager_id = ${a}`);
      assert.equal(published.length, people + 1, "the spends and the founder's review were published together");
      const spentAgain = await spend(server.baseURL, a, truth[2]!.token);
      assert.equal(spentAgain.status, 409);

      // The attacker's holdings: no issuance value stored or logged, no nonce stored, no spent hash logged.
      const tables = ["review_token_keys", "spent_tokens", "review_receipts", "manager_reviews", "pending_receipts"];
      const stored = JSON.stringify(
        await Promise.all(tables.map((table) => readDatabase(database, `select * from ${table}`))),
      );
      const log = server.output();
      assert.match(log, /review-tokens/, "the log at level info records the issuance requests");
      for (const person of truth) {
        for (const value of [person.blinded, person.blindSignature]) {
          assert.ok(!stored.includes(value) && !log.includes(value), "an issuance value was kept");
        }
        assert.ok(!stored.includes(decodeReviewToken(person.token)!.nonce), "a token's nonce was stored");
      }
      const spent = (await readDatabase(database, "select token_hash from spent_tokens")) as { token_hash: string }[];
      // Two rows for each submission (decision 0044): the founder's company and two managers, and the people's spends.
      assert.equal(spent.length, 2 * (3 + people));
      for (const { token_hash: hash } of spent) assert.ok(!log.includes(hash), "a spent hash is in the log");

      // The algebra: for every issuance i and spent token j, r = z_i / s_j satisfies blinded_i = s_j^e' · r^e'
      // (mod n) with the manager's e': every pairing is consistent, so the best match is a uniform guess.
      const [key] = (await readDatabase(database, "select period, public_n from review_token_keys")) as {
        period: string;
        public_n: string;
      }[];
      const modulus = Buffer.from(key!.public_n, "base64url");
      const n = bytesToBigint(modulus);
      const ePrime = await derivePublicExponent(modulus, reviewTokenInfo(a, key!.period));
      let consistent = 0;
      for (const issuance of truth) {
        const blinded = toBig(issuance.blinded);
        const z = toBig(issuance.blindSignature);
        for (const other of truth) {
          const s = toBig(decodeReviewToken(other.token)!.signature);
          const r = (z * modInverse(s, n)) % n;
          if ((modPow(s, ePrime, n) * modPow(r, ePrime, n)) % n === blinded) consistent += 1;
        }
      }
      assert.equal(consistent, people * people, "some pairing of issuance and spend was ruled out");
    });
  });
}
