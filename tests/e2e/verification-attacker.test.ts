import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import path from "node:path";
import { after, describe, it } from "node:test";
import { paths } from "#app/lib/paths.ts";
import { decodeToken, tokenMessage } from "#app/lib/verification-token.ts";
import { companyDraft, companyEntries, companyReviewEntries, postEntries } from "./support/contribute.ts";
import { newClientIp, newEmail, Visitor } from "./support/http.ts";
import { type IssuanceTranscript, shuffled, verifyOverHttp } from "./support/verify.ts";
import { modInverse, modPow } from "#app/lib/modular.ts";
import { type Engine, publishQueued, readDatabase, startServer } from "../support/server.ts";

// The attacker of docs/anonymity.md (T2), against verification: they hold the database after publication, AUTH_SECRET,
// the server's log at level info (one line per request), and, beyond T2, the full wire transcript of every issuance
// (the blinded tokens and the blind signatures) and the spent tokens themselves, which the server never stores. Six
// people verify addresses of one domain and each badges one review, in an order the test shuffles. The attack tries
// to match each spent token to its issuance; it must find every pairing equally consistent (no better than chance)
// and no stored value, log line or write that ties the two.

const people = 6;
const browserPassword = "a long and private passphrase";

const toBig = (base64url: string) => BigInt(`0x${Buffer.from(base64url, "base64url").toString("hex") || "0"}`);

for (const engine of ["sqlite", "postgres"] as Engine[]) {
  describe(`issued and spent verification tokens cannot be matched (${engine})`, async () => {
    const secret = randomBytes(32).toString("hex");
    const settings = {
      PUBLISH_INTERVAL: "3600",
      MANAGER_MIN_REVIEWS: "3",
      PUBLISH_MIN_AUTHORS: "3",
      VERIFIED_MIN_PEOPLE: String(people),
    };
    const server = await startServer(engine, {
      env: {
        DEMO_DATA: "never",
        TRUSTED_PROXIES: "127.0.0.1",
        LOG_LEVEL: "info",
        AUTH_SECRET: secret,
        ...settings,
      },
    });
    after(async () => {
      assert.equal(await server.stop(), 0, `the server did not shut down cleanly:\n${server.output()}`);
    });
    // The server's directory holds its outbox and its queue keys (`npm run reviews:publish` reads them there).
    const publish = (extra: Record<string, string>) =>
      publishQueued(
        { url: server.databaseUrl, dir: path.dirname(server.outboxDir) },
        { AUTH_SECRET: secret, ...extra },
      );
    const database = { engine, url: server.databaseUrl };
    const dump = async () => {
      const tables = ["verification_keys", "verification_codes", "verified_addresses", "spent_tokens"];
      const rows = await Promise.all(tables.map((table) => readDatabase(database, `select * from ${table}`)));
      const reviews = await readDatabase(database, "select * from company_reviews");
      const pending = await readDatabase(database, "select * from pending_receipts");
      return JSON.stringify([...rows, reviews, pending]);
    };

    it("gives every spent token every issuance as an equally consistent origin", async () => {
      const domain = `attack-${process.pid}-${engine}.org`;
      const founder = new Visitor(server.baseURL, newClientIp());
      await founder.signUp(newEmail("founder"), browserPassword);
      const added = await postEntries(founder, paths.addCompany(), [
        ...companyEntries({ ...companyDraft("Attacked Co"), website: `https://${domain}` }),
        ...companyReviewEntries({ tags: ["Stable"], text: "A first review, before anyone verified." }),
      ]);
      await added.body?.cancel();
      assert.equal(added.status, 302);
      // The company alone, published by a run that needs no crowd (its only review is not under attack).
      publish({});
      const [company] = await readDatabase(database, "select id from companies");
      const companyId = Number(company!.id);

      // Ground truth: person i obtained transcript i and spent token i.
      const truth: { visitor: Visitor; transcript: IssuanceTranscript; token: string }[] = [];
      for (let person = 0; person < people; person++) {
        const visitor = new Visitor(server.baseURL, newClientIp());
        await visitor.signUp(newEmail("staff"), browserPassword);
        const { tokens, transcript } = await verifyOverHttp(visitor, server.outboxDir, `p${person}@${domain}`);
        truth.push({ visitor, transcript, token: tokens[0]! });
      }
      for (const person of shuffled(truth)) {
        const response = await postEntries(person.visitor, paths.reviewCompany(companyId), [
          ...companyReviewEntries({ tags: ["Stable"], text: "Verified, and nobody can tell which of us wrote it." }),
          ["verification_token", person.token],
        ]);
        await response.body?.cancel();
        assert.equal(response.status, 302);
      }
      const tokenHashes = truth.map(({ token }) =>
        createHash("sha256")
          .update(tokenMessage(decodeToken(token)!))
          .digest("base64url"),
      );
      // Spends are written by the submissions that make them (decision 0044: the primary key refuses a second copy),
      // two rows for every submission, the founder's too, the tokens' hashes among random fillers: the rows do not
      // tell which submission carried a token. No badge is public before publication.
      const spentBefore = (await readDatabase(database, "select token_hash from spent_tokens")).map((row) =>
        String(row.token_hash),
      );
      assert.equal(spentBefore.length, 2 * (people + 1), "two spent rows for every submission");
      for (const hash of tokenHashes) assert.ok(spentBefore.includes(hash), "a spend was not written at submission");
      assert.deepEqual(
        await readDatabase(database, "select id from company_reviews where verified_domain is not null"),
        [],
      );

      publish(settings);
      const badged = await readDatabase(
        database,
        "select verified_domain from company_reviews where verified_domain is not null",
      );
      assert.equal(badged.length, people, "every spend was published with its badge");

      // The attacker's holdings.
      const stored = await dump();
      const log = server.output();
      assert.match(log, /verification\/tokens/, "the log at level info records the issuance requests");
      const spent = (await readDatabase(database, "select token_hash from spent_tokens")).map((row) =>
        String(row.token_hash),
      );
      assert.deepEqual([...spent].sort(), [...spentBefore].sort(), "publication wrote no spent row of its own");

      // a. No value of an issuance appears in storage or in the log, and no spent hash appears in the log.
      for (const { transcript } of truth) {
        for (const value of [...transcript.blinded, ...transcript.blindSignatures]) {
          assert.ok(!stored.includes(value) && !log.includes(value), "an issuance value was kept");
        }
      }
      for (const hash of tokenHashes) assert.ok(!log.includes(hash), "a spent token's hash is in the log");
      for (const { token } of truth) assert.ok(!stored.includes(token.split("~")[3]!), "a token's nonce was stored");

      // b. The algebra: for every issuance i and spent token j, the one blinding factor r = blind_sig_i / sig_j
      //    satisfies blinded_i = EM_j · r^e (mod n). Every pairing is consistent, so the attacker's best match of
      //    each spent token is a uniform guess among all issuances of the domain and quarter.
      //    Had the server signed someone with a key of their own, the pairs across keys would fail here, and the
      //    public list would show more than one key for the domain and quarter.
      const keys = await readDatabase(database, `select public_n, public_e from verification_keys`);
      assert.equal(keys.length, 1, "one key for the domain and quarter");
      const [key] = keys;
      const n = toBig(String(key!.public_n));
      const e = toBig(String(key!.public_e));
      let consistent = 0;
      for (const issuance of truth) {
        const blinded = toBig(issuance.transcript.blinded[0]!);
        const blindSignature = toBig(issuance.transcript.blindSignatures[0]!);
        for (const spend of truth) {
          const signature = toBig(decodeToken(spend.token)!.signature);
          const encoded = modPow(signature, e, n);
          const r = (blindSignature * modInverse(signature, n)) % n;
          if ((encoded * modPow(r, e, n)) % n === blinded) consistent += 1;
        }
      }
      assert.equal(consistent, people * people, "some pairing of issuance and spend was ruled out");

      // c. Storage: nothing from issuance has a time, an account or a reference to a review.
      const addressRows = await readDatabase(database, "select * from verified_addresses");
      assert.deepEqual(Object.keys(addressRows[0]!).sort(), ["address_hash", "domain", "quarter"]);
      const spentRows = await readDatabase(database, "select * from spent_tokens");
      assert.deepEqual(Object.keys(spentRows[0]!), ["token_hash"]);
      assert.deepEqual(await readDatabase(database, "select * from verification_codes"), []);
      const users = await readDatabase(database, "select id, email from users");
      assert.equal(users.length, people + 1);
      for (const user of users) {
        assert.ok(!stored.includes(String(user.id)) && !stored.includes(String(user.email)), "an account is stored");
      }
    });
  });
}
