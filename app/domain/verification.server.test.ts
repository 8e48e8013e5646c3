import { blindTokens, finalizeTokens } from "#app/lib/verification-client.ts";
import { createHmac } from "node:crypto";
import type { Kysely } from "kysely";
import { expect, it, vi } from "vitest";
import type { Database } from "#app/db/schema.ts";
import { describeEachEngine, tableNames } from "#tests/support/test-database.ts";
import { insertCompany } from "#tests/support/test-fixtures.ts";
import { insertManager } from "#tests/support/test-fixtures.ts";
import {
  author,
  company,
  companyReview,
  manager,
  managerReview,
  testReceiptSecret,
} from "#tests/support/test-contributions.ts";
import { decodeToken, importPublicKey, quarterOf, toBase64url, tokenMessage } from "#app/lib/verification-token.ts";
import { addCompany, addManager, recordCompanyReview, recordManagerReview } from "./contributions.server.ts";
import { type PublicationSettings, publicationSettings, publishQueued } from "./publication.server.ts";
import { contributionPublisher } from "./contributions.server.ts";
import {
  checkToken,
  forgetPastQuarters,
  issueVerificationTokens,
  publicSigningKeys,
  requestVerificationCode,
  spentTokenHash,
  VerificationError,
  type VerificationFailure,
  workDomainOf,
} from "./verification.server.ts";

/**
 * How many of `tokens` are spent. Every submission writes two rows to `spent_tokens` (its tokens' hashes and random
 * fillers, decision 0044), so the table's length says nothing; the tokens' own hashes do.
 */
async function spentOf(db: Kysely<Database>, tokens: readonly string[]): Promise<number> {
  const hashes = tokens.map((token) => spentTokenHash(tokenMessage(decodeToken(token)!)));
  const rows = await db.selectFrom("spent_tokens").select("token_hash").where("token_hash", "in", hashes).execute();
  return rows.length;
}

const outbox = await vi.hoisted(() => import("#tests/support/test-outbox.ts"));

type Db = Kysely<Database>;
const secret = testReceiptSecret;

async function refusal(work: Promise<unknown>, kind: VerificationFailure): Promise<VerificationError> {
  const error = await work.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(VerificationError);
  expect((error as VerificationError).kind).toBe(kind);
  return error as VerificationError;
}

function codeMailedTo(address: string): string {
  const mail = outbox
    .sentMails()
    .filter((sent) => sent.to.includes(address))
    .at(-1);
  const code = /Your code is (\d{6})/.exec(mail?.text ?? "")?.[1];
  if (!code) throw new Error(`No code was mailed to ${address}.`);
  return code;
}

/** What a browser does: request a code, read it, blind `count` tokens, have them signed, finalize them. */
async function verify(db: Db, address: string, options: { now?: Date; count?: number } = {}): Promise<string[]> {
  const now = options.now ?? new Date();
  const started = await requestVerificationCode(db, secret, { email: address }, now);
  const publicKey = await importPublicKey(started.key.publicKey);
  const drafts = await blindTokens(publicKey, started, options.count ?? 1);
  const issued = await issueVerificationTokens(
    db,
    secret,
    {
      challenge: started.challenge,
      code: codeMailedTo(address),
      blinded: drafts.map((draft) => toBase64url(draft.blindedMsg)),
    },
    now,
  );
  return finalizeTokens(publicKey, drafts, issued.signatures);
}

/** Every text value stored in every table, for "the address is not stored anywhere". */
async function everyStoredText(db: Db, engine: "sqlite" | "postgres"): Promise<string> {
  const parts: string[] = [];
  for (const table of await tableNames(db, engine)) {
    const rows = await db
      .selectFrom(table as keyof Database)
      .selectAll()
      .execute();
    parts.push(JSON.stringify(rows));
  }
  return parts.join("\n").toLowerCase();
}

const queued: PublicationSettings = {
  intervalSeconds: 1800,
  managerMinReviews: 1,
  minAuthors: 1,
  // The queue's key files are named by each database's queue id: the suites' directory serves this one too.
  keyDir: publicationSettings().keyDir,
};

it("takes the registrable domain and refuses free-mail and malformed addresses", () => {
  expect(workDomainOf("jane@mail.eu.example.co.uk")).toBe("example.co.uk");
  expect(workDomainOf("jane@acmecorp.com")).toBe("acmecorp.com");
  for (const address of ["jane@gmail.com", "jane@gmx.de", "jane@outlook.com", "jane@yahoo.co.uk"]) {
    expect(() => workDomainOf(address), address).toThrow(VerificationError);
    expect(() => workDomainOf(address)).toThrow(/free e-mail service/);
  }
  for (const address of ["jane@duck.com", "jane@mozmail.com", "jane@addy.io", "jane@simplelogin.com"]) {
    expect(() => workDomainOf(address), address).toThrow(/forwarding or throwaway e-mail service/);
  }
  expect(() => workDomainOf("jane@tutanota.com")).toThrow(/free e-mail service/);
  expect(() => workDomainOf("jane@localhost")).toThrow(/work e-mail address/);
  expect(() => workDomainOf("jane@co.uk")).toThrow(/work e-mail address/);
});

describeEachEngine("verifying a work address", (database, engine) => {
  it("mails a code, signs blinded tokens after it, and stores no address", async () => {
    const { db } = database();
    const [token, second, third] = await verify(db, "Jane.Doe@Mail.Acmecorp.com ".trim().toLowerCase(), { count: 3 });
    expect([token, second, third].every(Boolean)).toBe(true);
    const website = "https://www.acmecorp.com/careers";
    expect(await checkToken(db, token!, [website], "company", { minPeople: 1 })).toMatchObject({
      badge: true,
      domain: "acmecorp.com",
    });
    const stored = await everyStoredText(db, engine);
    expect(stored).not.toContain("jane.doe");
    expect(stored).not.toContain(token!.split("~")[3]!.toLowerCase());
    expect(await db.selectFrom("verified_addresses").selectAll().execute()).toEqual([
      { address_hash: expect.any(String), domain: "acmecorp.com", quarter: quarterOf(new Date()) },
    ]);
    expect(await db.selectFrom("verification_codes").selectAll().execute()).toEqual([]);
    // One key for the domain and quarter, listed publicly; the second verification uses it too.
    await verify(db, "john@acmecorp.com");
    const keys = await publicSigningKeys(db);
    expect(keys.map((key) => [key.domain, key.quarter])).toEqual([["acmecorp.com", quarterOf(new Date())]]);
  });

  // Proven live: with the domain written in clear beside the sealed content (as the layout before this one did), the
  // first expectation fails; with the challenge as the row id, the third does.
  it("keeps a waiting code in a row that names neither the domain nor the address, dated to the minute", async () => {
    const { db } = database();
    const quarter = quarterOf(new Date());
    const started = await requestVerificationCode(db, secret, { email: "ann.lee@newco-industries.example" });
    const rows = await db.selectFrom("verification_codes").selectAll().execute();
    expect(rows).toHaveLength(1);
    const text = JSON.stringify(rows, (_, value: unknown) =>
      value instanceof Uint8Array || (value as { type?: string })?.type === "Buffer"
        ? Buffer.from(value as Uint8Array).toString("latin1")
        : value,
    );
    expect(text).not.toContain("newco");
    // A guess tested with the server's secret: the address's keyed hash is not there either, in any encoding.
    const guess = createHmac("sha256", secret)
      .update(`verification-address\u0000${quarter}\u0000ann.lee@newco-industries.example`)
      .digest();
    for (const encoding of ["base64url", "hex", "latin1"] as const) {
      expect(text).not.toContain(guess.toString(encoding));
    }
    expect(rows[0]!.id).not.toBe(started.challenge);
    expect(text).not.toContain(started.challenge);
    expect(Number(rows[0]!.expires_at) % 60_000).toBe(0);
    // Only the challenge opens it.
    const code = codeMailedTo("ann.lee@newco-industries.example");
    const blinded = [toBase64url(new Uint8Array(256).fill(1))];
    const forged = `${started.challenge.slice(0, -1)}${started.challenge.endsWith("A") ? "B" : "A"}`;
    await refusal(issueVerificationTokens(db, secret, { challenge: forged, code, blinded }), "code-expired");
  });

  it("refuses a wrong code, an expired one, a code tried too often, and a second verification of an address", async () => {
    const { db } = database();
    const started = await requestVerificationCode(db, secret, { email: "ann@acme.example" });
    const code = codeMailedTo("ann@acme.example");
    const wrong = code === "000000" ? "000001" : "000000";
    const blinded = [toBase64url(new Uint8Array(256).fill(1))];
    await refusal(
      issueVerificationTokens(db, secret, { challenge: started.challenge, code: wrong, blinded }),
      "code-wrong",
    );
    const later = new Date(Date.now() + 16 * 60_000);
    await refusal(
      issueVerificationTokens(db, secret, { challenge: started.challenge, code, blinded }, later),
      "code-expired",
    );

    const again = await requestVerificationCode(db, secret, { email: "ann@acme.example" });
    const right = codeMailedTo("ann@acme.example");
    const other = right === "000000" ? "000001" : "000000";
    for (let attempt = 1; attempt < 5; attempt++) {
      await refusal(
        issueVerificationTokens(db, secret, { challenge: again.challenge, code: other, blinded }),
        "code-wrong",
      );
    }
    await refusal(
      issueVerificationTokens(db, secret, { challenge: again.challenge, code: other, blinded }),
      "code-expired",
    );
    await refusal(
      issueVerificationTokens(db, secret, { challenge: again.challenge, code: right, blinded }),
      "code-expired",
    );

    await verify(db, "bob@acme.example");
    const error = await refusal(verify(db, "bob@acme.example"), "already-verified");
    expect(error.message).toBe(
      "This address has already been verified this quarter: each address can be verified once a quarter.",
    );
  });

  it("counts a mailbox once, however its address is spelled: sub-addresses", async () => {
    // Ten plus-addresses of one mailbox gave 30 tokens and the badge of ten people (fails without the mailbox
    // spelling, checked).
    const { db } = database();
    await verify(db, "jane.doe@acmecorp.com");
    for (const spelling of [
      ...Array.from({ length: 9 }, (_, index) => `jane.doe+${index + 1}@acmecorp.com`),
      "jane.doe+team@acmecorp.com",
    ]) {
      await refusal(verify(db, spelling), "already-verified");
    }
    expect(await db.selectFrom("verified_addresses").selectAll().execute()).toHaveLength(1);
    await verify(db, "john@acmecorp.com");
    expect(await db.selectFrom("verified_addresses").selectAll().execute()).toHaveLength(2);
    expect(JSON.stringify(await db.selectFrom("verification_codes").selectAll().execute())).not.toContain("jane");
  });

  it("forgets a past quarter: address hashes, codes and private keys go, public keys stay", async () => {
    const { db } = database();
    const past = new Date(Date.UTC(2025, 4, 10));
    await verify(db, "old@initech.example", { now: past });
    await requestVerificationCode(db, secret, { email: "late@initech.example" }, past);
    await forgetPastQuarters(db);
    expect(await db.selectFrom("verified_addresses").selectAll().execute()).toEqual([]);
    expect(await db.selectFrom("verification_codes").selectAll().execute()).toEqual([]);
    const keys = await db.selectFrom("verification_keys").selectAll().execute();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ domain: "initech.example", quarter: "2025-Q2", private_sealed: null });
  });
});

describeEachEngine("spending a verification token", (database) => {
  it("badges one review once 10 addresses of the domain verified, and refuses reuse, waiting or published", async () => {
    const { db } = database();
    const companyId = await insertCompany(db, { name: "Example Inc", website: "https://acmecorp.com" });
    const [first, spare] = await verify(db, "p0@acmecorp.com", { count: 2 });
    // Below the threshold: the review goes without the badge and the token stays unspent.
    const below = await recordCompanyReview(db, author("u0"), companyId, companyReview(), undefined, first);
    expect(below.badge).toEqual({ shown: false, domain: "acmecorp.com", minPeople: 10 });
    expect(await spentOf(db, [first!, spare!])).toBe(0);

    for (let person = 1; person < 10; person++) await verify(db, `p${person}@acmecorp.com`);
    const shown = await recordCompanyReview(db, author("u0"), companyId, companyReview(), undefined, first);
    expect(shown.badge).toEqual({ shown: true, domain: "acmecorp.com" });
    const badges = await db
      .selectFrom("company_reviews")
      .select("verified_domain")
      .where("company_id", "=", companyId)
      .execute();
    expect(badges.map((row) => row.verified_domain).sort()).toEqual(["acmecorp.com", null]);
    expect(await spentOf(db, [first!, spare!])).toBe(1);

    const reuse = await refusal(
      recordCompanyReview(db, author("u1"), companyId, companyReview(), undefined, first),
      "token-spent",
    );
    expect(reuse.message).toBe("This verification token has already been used.");

    // A spend waiting in the queue is caught without opening it: its submission wrote the hash (decision 0044).
    await recordCompanyReview(db, author("u2"), companyId, companyReview(), queued, spare);
    const rowsBefore = (await db.selectFrom("spent_tokens").selectAll().execute()).length;
    await refusal(recordCompanyReview(db, author("u3"), companyId, companyReview(), queued, spare), "token-spent");
    expect(await spentOf(db, [first!, spare!])).toBe(2);
    expect(await db.selectFrom("spent_tokens").selectAll().execute()).toHaveLength(rowsBefore);
    await publishQueued(db, contributionPublisher(secret), { settings: queued });
    expect(await spentOf(db, [first!, spare!])).toBe(2);
    await refusal(recordCompanyReview(db, author("u3"), companyId, companyReview(), queued, spare), "token-spent");
  });

  it("refuses a token of another domain, another quarter, or with a forged signature", async () => {
    const { db } = database();
    const example = await insertCompany(db, { name: "Example Inc", website: "https://acmecorp.com" });
    const globex = await insertCompany(db, { name: "Globex", website: "https://globex.example.org" });
    const [token] = await verify(db, "eve@acmecorp.com");
    const foreign = await refusal(
      recordCompanyReview(db, author("u"), globex, companyReview(), undefined, token),
      "token-domain",
    );
    expect(foreign.message).toBe(
      "This verification token is for acmecorp.com, but this company's website is on example.org.",
    );
    const [old] = await verify(db, "eve@acmecorp.com", { now: new Date(Date.UTC(2025, 1, 1)) });
    await refusal(recordCompanyReview(db, author("u"), example, companyReview(), undefined, old), "token-quarter");
    const parts = token!.split("~");
    parts[3] = toBase64url(crypto.getRandomValues(new Uint8Array(32)));
    await refusal(
      recordCompanyReview(db, author("u"), example, companyReview(), undefined, parts.join("~")),
      "token-invalid",
    );
    await refusal(
      recordCompanyReview(db, author("u"), example, companyReview(), undefined, "v1~not-a-token"),
      "token-invalid",
    );
    expect(await db.selectFrom("company_reviews").selectAll().execute()).toEqual([]);
  });
});

describeEachEngine("a verification token on manager reviews and new subjects", (database) => {
  /** Ten addresses of the domain verified, so its badge shows; answers `count` tokens of the last one. */
  async function crowd(db: Db, domain: string, count: number): Promise<string[]> {
    for (let person = 1; person < 10; person++) await verify(db, `p${person}@${domain}`);
    return verify(db, `p0@${domain}`, { count });
  }

  it("badges a manager review with the domain of one of the manager's companies, once", async () => {
    const { db } = database();
    const globex = await insertCompany(db, { name: "Globex", website: "https://globex.example.org" });
    const acme = await insertCompany(db, { name: "Acme", website: "https://jobs.acmecorp.com" });
    const managerId = await insertManager(db, { first_name: "Ada", last_name: "Byron" }, [globex, acme]);
    const [token] = await crowd(db, "acmecorp.com", 1);
    const submission = await recordManagerReview(db, author("m1"), managerId, managerReview(), undefined, token);
    expect(submission.badge).toEqual({ shown: true, domain: "acmecorp.com" });
    const rows = await db.selectFrom("manager_reviews").select("verified_domain").execute();
    expect(rows).toEqual([{ verified_domain: "acmecorp.com" }]);
    expect(await spentOf(db, [token!])).toBe(1);
    await refusal(recordManagerReview(db, author("m2"), managerId, managerReview(), undefined, token), "token-spent");
  });

  it("refuses a manager review's token of a domain none of the manager's companies is on", async () => {
    const { db } = database();
    const globex = await insertCompany(db, { name: "Globex", website: "https://globex.example.org" });
    const managerId = await insertManager(db, { first_name: "Ada", last_name: "Byron" }, [globex]);
    const [token] = await verify(db, "eve@acmecorp.com");
    const error = await refusal(
      recordManagerReview(db, author("m1"), managerId, managerReview(), undefined, token),
      "token-domain",
    );
    expect(error.message).toBe(
      "This verification token is for acmecorp.com, but this manager's companies are on example.org.",
    );
    expect(await db.selectFrom("manager_reviews").selectAll().execute()).toEqual([]);
  });

  it("badges the first review of a company added with it, and of a manager added with an existing or new company", async () => {
    const { db } = database();
    const [forCompany, forManager, forBoth, foreign] = await crowd(db, "acmecorp.com", 4);
    const added = await addCompany(
      db,
      author("a1"),
      company({ name: "Acme Corp", website: "https://www.acmecorp.com" }),
      companyReview(),
      undefined,
      forCompany,
    );
    expect(added.badge).toEqual({ shown: true, domain: "acmecorp.com" });
    const acme = await db
      .selectFrom("companies")
      .select("id")
      .where("name", "=", "Acme Corp")
      .executeTakeFirstOrThrow();
    expect(
      await db.selectFrom("company_reviews").select("verified_domain").where("company_id", "=", acme.id).execute(),
    ).toEqual([{ verified_domain: "acmecorp.com" }]);

    const withExisting = await addManager(
      db,
      author("a2"),
      { company: { id: acme.id }, manager: manager({ linkedin_url: "linkedin.com/in/ada" }), review: managerReview() },
      undefined,
      forManager,
    );
    expect(withExisting.badge).toEqual({ shown: true, domain: "acmecorp.com" });

    // A new manager whose review waits for its group (MANAGER_MIN_REVIEWS = 2) keeps its badge while it waits.
    const grouped = { ...queued, managerMinReviews: 2 };
    await addManager(
      db,
      author("a3"),
      {
        company: { company: company({ name: "Acme Labs", website: "acmecorp.com/labs" }) },
        manager: manager({ first_name: "Grace", linkedin_url: "linkedin.com/in/grace" }),
        review: managerReview(),
      },
      grouped,
      forBoth,
    );
    await refusal(
      addCompany(
        db,
        author("a4"),
        company({ name: "Globex", website: "globex.example.org" }),
        companyReview(),
        grouped,
        foreign,
      ),
      "token-domain",
    );
    await publishQueued(db, contributionPublisher(secret), { settings: grouped });
    const grace = await db
      .selectFrom("managers")
      .select("id")
      .where("first_name", "=", "Grace")
      .executeTakeFirstOrThrow();
    // The spend waits with the held review: the same token is refused meanwhile.
    await refusal(recordManagerReview(db, author("a5"), grace.id, managerReview(), grouped, forBoth), "token-spent");
    await recordManagerReview(db, author("a6"), grace.id, managerReview(), grouped);
    await publishQueued(db, contributionPublisher(secret), { settings: grouped });
    const graceReviews = await db
      .selectFrom("manager_reviews")
      .select("verified_domain")
      .where("manager_id", "=", grace.id)
      .execute();
    expect(graceReviews.map((row) => row.verified_domain).sort()).toEqual(["acmecorp.com", null]);
    // Three tokens spent: the company's, the existing company's manager's, and the new one's.
    expect(await spentOf(db, [forCompany!, forManager!, forBoth!, foreign!])).toBe(3);
  });
});
