import { createHash } from "node:crypto";
import { type Kysely, sql } from "kysely";
import { expect, it } from "vitest";
import type { Database } from "#app/db/schema.ts";
import { columnNames, describeEachEngine } from "#tests/support/test-database.ts";
import { dump } from "#tests/support/test-dump.ts";
import { today } from "#app/lib/ids.server.ts";
import {
  addCompany,
  addManager,
  type Author,
  legacyManagerReviewReceipt,
  recordCompanyReview,
  recordManagerReview,
} from "./contributions.server.ts";
import { createTestAuth, signUpAccount, testAuthSecret } from "#tests/support/test-accounts.ts";
import {
  company,
  companyReview,
  manager,
  managerReview,
  published,
  receiptOf,
  testAccountKey,
} from "#tests/support/test-contributions.ts";

/**
 * docs/data-model.md, what is never stored: after known users post reviews, nothing in the database links a review to its author.
 * The test reads every table of the database, as an operator with full access could.
 */

type Db = Kysely<Database>;

const reviewTables = ["company_reviews", "manager_reviews", "review_receipts"];
const contentTables = [...reviewTables, "companies", "managers", "manager_companies"];
// Where accounts live: these hold user ids and e-mails by necessity, and must hold no review id.
const accountTables = ["users", "sessions", "accounts", "verifications", "two_factors", "api_tokens"];

const reviewIds = async (db: Db) => [
  ...(await db.selectFrom("company_reviews").select("id").execute()).map((row) => row.id),
  ...(await db.selectFrom("manager_reviews").select("id").execute()).map((row) => row.id),
];

/** Three people sign up and review two companies and two managers; returns them and the review ids in order. */
async function postReviews(db: Db, auth: ReturnType<typeof createTestAuth>) {
  const people = [];
  for (const name of ["alice", "bob", "carol"]) {
    const account = await signUpAccount(auth, `${name}.${name}@candor-people.example`);
    people.push({
      ...account,
      author: {
        userId: account.userId,
        secret: testAuthSecret,
        accountKey: testAccountKey(account.userId),
      } satisfies Author,
    });
  }
  const [alice, bob, carol] = people as [(typeof people)[0], (typeof people)[0], (typeof people)[0]];
  const written: string[] = [];
  const write = async <T>(action: () => Promise<T>): Promise<T> => {
    const before = new Set(await reviewIds(db));
    const result = await action();
    written.push(...(await reviewIds(db)).filter((id) => !before.has(id)));
    return result;
  };

  const acme = published(await write(() => addCompany(db, alice.author, company(), companyReview())));
  await write(() => recordCompanyReview(db, bob.author, acme, companyReview({ recent_layoffs: "2024-03-01" })));
  await write(() => recordCompanyReview(db, carol.author, acme, companyReview({ has_oncall: "No" })));
  const jane = published(
    await write(() =>
      addManager(db, alice.author, { company: { id: acme }, manager: manager(), review: managerReview() }),
    ),
  );
  await write(() => recordManagerReview(db, bob.author, jane, managerReview()));
  await write(() => recordManagerReview(db, carol.author, jane, managerReview({ trust: "1" })));
  const max = published(
    await write(() =>
      addManager(db, bob.author, {
        company: { company: company({ name: "Globex", website: "globex.example.com" }) },
        manager: manager({ first_name: "Max", last_name: "Mustermann", linkedin_url: "linkedin.com/in/max" }),
        review: managerReview(),
      }),
    ),
  );
  await write(() => recordManagerReview(db, alice.author, max, managerReview()));
  await write(() => recordManagerReview(db, carol.author, max, managerReview({ vision: "2" })));
  const globex = (await db.selectFrom("companies").select("id").where("name", "=", "Globex").executeTakeFirstOrThrow())
    .id;
  for (const person of people) {
    await write(() => recordCompanyReview(db, person.author, globex, companyReview({ growth: "2" })));
  }
  return { people, managers: [jane, max], written };
}

describeEachEngine("anonymity of reviews", (database, engine) => {
  it("leaves no user id or e-mail next to reviews, companies or managers, and no review id next to accounts", async () => {
    const { db } = database();
    const { people, written } = await postReviews(db, createTestAuth(database()));
    const tables = await dump(db, engine);

    expect([...tables.keys()]).toEqual(expect.arrayContaining([...contentTables, ...accountTables]));
    expect(tables.get("users")).toHaveLength(3);
    for (const table of reviewTables) expect(tables.get(table), table).toHaveLength(6);
    // The search below does find an id where one is: the sessions name their user.
    expect(JSON.stringify(tables.get("sessions"))).toContain(people[0]!.userId);
    expect(written).toHaveLength(12);
    const secrets = people.flatMap((person) => [person.userId, person.email.toLowerCase()]);
    for (const [table, rows] of tables) {
      const values = rows.flatMap((row) => Object.entries(row).map(([column, value]) => [column, value] as const));
      if (!accountTables.includes(table)) {
        for (const [column, value] of values) {
          for (const secret of secrets) expect(value.toLowerCase(), `${table}.${column}`).not.toContain(secret);
        }
      }
      // A review's id stands only beside the review itself, and beside its key's hash (review_keys), which the
      // check above keeps free of any account.
      if (!["company_reviews", "manager_reviews", "review_keys"].includes(table)) {
        for (const [column, value] of values) {
          for (const id of written) expect(value, `${table}.${column}`).not.toContain(id);
        }
      }
    }
  });

  it("gives review tables no column about the author and no time of day", async () => {
    const { db } = database();
    await postReviews(db, createTestAuth(database()));
    const tables = await dump(db, engine);

    for (const table of reviewTables) {
      for (const column of await columnNames(db, engine, table)) {
        const words = column.toLowerCase().split("_");
        for (const word of ["user", "email", "mail", "ip", "session", "author", "account", "agent", "address"]) {
          expect(words, `${table}.${column}`).not.toContain(word);
        }
        expect(column, table).not.toMatch(/_at$|timestamp|datetime|^created$/i);
      }
      for (const row of tables.get(table) ?? []) {
        for (const [column, value] of Object.entries(row)) {
          if (column !== "review_text") expect(value, `${table}.${column}`).not.toMatch(/\d{1,2}:\d{2}/);
        }
        if (table !== "review_receipts") expect(row.created_on).toBe(today());
      }
    }
    expect(await columnNames(db, engine, "review_receipts")).toEqual(["receipt"]);
  });

  it("keys receipts by an HMAC under each account's own key, which neither the ids nor the server secret recompute", async () => {
    const { db } = database();
    const { people, managers } = await postReviews(db, createTestAuth(database()));
    const receipts = (await db.selectFrom("review_receipts").select("receipt").execute()).map((row) => row.receipt);

    expect(receipts).toHaveLength(6);
    for (const receipt of receipts) expect(receipt).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const expected: string[] = [];
    for (const person of people) for (const id of managers) expected.push(await receiptOf(db, person.author, id));
    expect([...receipts].sort()).toEqual([...expected].sort());

    const unkeyed = people.flatMap((person) =>
      managers.flatMap((id) =>
        ["", ":", "|", "-", "\u0000", "/"].flatMap((glue) => {
          const plain = [`${person.userId}${glue}${id}`, `manager-review\u0000${person.userId}\u0000${id}`];
          return plain.flatMap((value) => {
            const digest = createHash("sha256").update(value).digest();
            return [value, digest.toString("hex"), digest.toString("base64url"), digest.toString("base64")];
          });
        }),
      ),
    );
    for (const receipt of receipts) expect(unkeyed).not.toContain(receipt);
    // Whoever holds the server secret and every account id: the old receipts (decision 0010) are not there.
    for (const person of people) {
      for (const id of managers) expect(receipts).not.toContain(legacyManagerReviewReceipt(person.author, id));
    }
  });

  it("gives reviews random ids that do not follow the order they were written in", async () => {
    const { db } = database();
    const { written } = await postReviews(db, createTestAuth(database()));

    expect(new Set(written).size).toBe(12);
    for (const id of written) {
      expect(id).toMatch(/^[A-Za-z0-9_-]{16}$/);
      expect(id).not.toMatch(/^\d+$/);
    }
    // 12 random ids fall in writing order (or its reverse) once in 10^8 runs.
    const sorted = [...written].sort();
    expect(written).not.toEqual(sorted);
    expect(written).not.toEqual([...sorted].reverse());
    // A time-ordered id (UUIDv7, ULID) would share its first characters with its neighbours.
    expect(new Set(written.map((id) => id.slice(0, 4))).size).toBe(12);
  });

  if (engine === "sqlite") {
    it("stores reviews and receipts WITHOUT ROWID, so no hidden column numbers them in writing order", async () => {
      const { db } = database();
      await postReviews(db, createTestAuth(database()));

      for (const table of reviewTables) {
        await expect(sql`select rowid from ${sql.table(table)}`.execute(db), table).rejects.toThrow(/no such column/);
      }
      await expect(sql`select rowid from companies`.execute(db)).resolves.toBeDefined();
    });
  }
});
