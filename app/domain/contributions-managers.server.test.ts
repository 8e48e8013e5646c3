import type { Kysely } from "kysely";
import { expect, it } from "vitest";
import type { Database } from "#app/db/schema.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { countRows, insertCompany, insertManager } from "#tests/support/test-fixtures.ts";
import { managerCriteria } from "#app/lib/ratings.ts";
import { addCompany, addManager, hasReviewedManager, recordManagerReview } from "./contributions.server.ts";
import {
  author,
  company,
  companyReview,
  expectRefusal,
  manager,
  managerReview,
  published,
  receiptOf,
  someone,
} from "#tests/support/test-contributions.ts";

type Db = Kysely<Database>;

describeEachEngine("adding a manager", (database) => {
  it("links the manager to an existing company, takes its country, and records the first review", async () => {
    const { db } = database();
    const companyId = await insertCompany(db, { name: "Initech", country: "FR" });
    const alice = author("user-alice");

    const id = published(
      await addManager(db, alice, { company: { id: companyId }, manager: manager(), review: managerReview() }),
    );

    const row = await db.selectFrom("managers").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      first_name: "Jane",
      last_name: "Doe",
      folded_name: "jane doe",
      country: "FR",
      department: "Platform",
      linkedin_url: "https://linkedin.com/in/jane-doe",
      review_count: 1,
      sum_empathy: 4,
      recommended_yes: 1,
      communication_yes: 0,
    });
    expect(await db.selectFrom("manager_companies").selectAll().execute()).toEqual([
      { manager_id: id, company_id: companyId },
    ]);
    expect(await countRows(db, "manager_reviews")).toBe(1);
    expect(await db.selectFrom("review_receipts").select("receipt").execute()).toEqual([
      { receipt: await receiptOf(db, alice, id) },
    ]);
    expect(await hasReviewedManager(db, alice, id)).toBe(true);
  });

  it("refuses a lookalike of a manager with the same LinkedIn profile, and allows a namesake with another", async () => {
    const { db } = database();
    const companyId = await insertCompany(db, { name: "Initech" });
    await addManager(db, author("user-alice"), {
      company: { id: companyId },
      manager: manager(),
      review: managerReview(),
    });

    for (const lookalike of [{ first_name: "J\u0430ne" }, { last_name: "Do\u200Be" }, { first_name: "\u202EJANE" }]) {
      const error = await expectRefusal(
        addManager(db, author("user-bob"), {
          company: { id: companyId },
          manager: manager(lookalike),
          review: managerReview(),
        }),
        "manager-exists",
      );
      expect(error.message).toBe("Duplicate entry, Already Exists ");
      expect(error.status).toBe(409);
    }
    expect(await countRows(db, "managers")).toBe(1);

    await addManager(db, author("user-bob"), {
      company: { id: companyId },
      manager: manager({ linkedin_url: "linkedin.com/in/jane-doe-2" }),
      review: managerReview(),
    });
    expect(await countRows(db, "managers")).toBe(2);
  });

  it("creates a new company given inline, together with the manager", async () => {
    const { db } = database();
    const id = published(
      await addManager(db, author("user-alice"), {
        company: { company: company({ name: "Globex", website: "globex.example.com", country: "US" }) },
        manager: manager({ department: "" }),
        review: managerReview(),
      }),
    );

    const created = await db.selectFrom("companies").selectAll().executeTakeFirstOrThrow();
    expect(created).toMatchObject({ name: "Globex", country: "US", review_count: 0 });
    const row = await db.selectFrom("managers").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ country: "US", department: null });
    expect(await db.selectFrom("manager_companies").selectAll().execute()).toEqual([
      { manager_id: id, company_id: created.id },
    ]);
  });

  it("writes nothing when the inline company already exists", async () => {
    const { db } = database();
    await addCompany(db, someone, company(), companyReview());

    await expectRefusal(
      addManager(db, author("user-alice"), {
        company: { company: company({ name: "ACME gmbh", website: "https://www.acme.com" }) },
        manager: manager(),
        review: managerReview(),
      }),
      "company-exists",
    );
    for (const table of ["managers", "manager_companies", "manager_reviews", "review_receipts"] as const) {
      expect(await countRows(db, table), table).toBe(0);
    }
    expect(await countRows(db, "companies")).toBe(1);
  });

  it("writes nothing when the company id is unknown", async () => {
    const { db } = database();

    await expectRefusal(
      addManager(db, author("user-alice"), { company: { id: 4242 }, manager: manager(), review: managerReview() }),
      "company-not-found",
    );
    expect(await countRows(db, "managers")).toBe(0);
    expect(await countRows(db, "review_receipts")).toBe(0);
  });
});

describeEachEngine("reviewing a manager", (database) => {
  /** A manager with no review yet. */
  async function newManager(db: Db): Promise<number> {
    const companyId = await insertCompany(db, { name: "Initech" });
    return insertManager(db, { first_name: "Jane", last_name: "Doe" }, [companyId]);
  }

  it("refuses a second review of the same manager by the same user", async () => {
    const { db } = database();
    const id = await newManager(db);
    const bob = author("user-bob");
    expect(await hasReviewedManager(db, bob, id)).toBe(false);

    await recordManagerReview(db, bob, id, managerReview({ empathy: "1" }));
    const error = await expectRefusal(
      recordManagerReview(db, bob, id, managerReview({ empathy: "5" })),
      "already-reviewed",
    );

    expect(error.message).toBe("You have already reviewed this manager.");
    expect(error.status).toBe(409);
    expect(await hasReviewedManager(db, bob, id)).toBe(true);
    const row = await db.selectFrom("managers").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ review_count: 1, sum_empathy: 1, sum_vision: 4, recommended_yes: 1 });
    expect(await countRows(db, "manager_reviews")).toBe(1);
    expect(await countRows(db, "review_receipts")).toBe(1);
  });

  it("lets a different user review the same manager", async () => {
    const { db } = database();
    const id = await newManager(db);

    await recordManagerReview(db, author("user-bob"), id, managerReview());
    await recordManagerReview(db, author("user-carol"), id, managerReview());

    expect(await countRows(db, "manager_reviews")).toBe(2);
    expect(await hasReviewedManager(db, author("user-carol"), id)).toBe(true);
    expect(await hasReviewedManager(db, author("user-dave"), id)).toBe(false);
  });

  it("leaves exactly one review of 20 simultaneous identical submissions by one user", async () => {
    const { db } = database();
    const id = await newManager(db);
    const bob = author("user-bob");

    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => recordManagerReview(db, bob, id, managerReview())),
    );

    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    const rejections = results.flatMap((result) => (result.status === "rejected" ? [result.reason] : []));
    expect(rejections).toHaveLength(19);
    for (const reason of rejections) expect(reason).toMatchObject({ kind: "already-reviewed" });
    expect(await countRows(db, "manager_reviews")).toBe(1);
    expect(await countRows(db, "review_receipts")).toBe(1);
    const row = await db.selectFrom("managers").select("review_count").where("id", "=", id).executeTakeFirstOrThrow();
    expect(row.review_count).toBe(1);
  });

  it("refuses a review of an unknown manager and keeps no receipt", async () => {
    const { db } = database();
    const bob = author("user-bob");

    const error = await expectRefusal(recordManagerReview(db, bob, 4242, managerReview()), "manager-not-found");
    expect(error.status).toBe(404);
    expect(await countRows(db, "review_receipts")).toBe(0);
    expect(await hasReviewedManager(db, bob, 4242)).toBe(false);
  });

  it("keeps the aggregates equal to the reviews", async () => {
    const { db } = database();
    const id = await newManager(db);
    await recordManagerReview(db, author("user-alice"), id, managerReview());
    await recordManagerReview(db, author("user-bob"), id, managerReview({ trust: "2", invested: "No" }));

    const stored = await db.selectFrom("managers").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    const reviews = await db.selectFrom("manager_reviews").selectAll().where("manager_id", "=", id).execute();
    for (const criterion of managerCriteria) {
      expect(stored[`sum_${criterion}`], criterion).toBe(reviews.reduce((sum, review) => sum + review[criterion], 0));
    }
    expect(stored.invested_yes).toBe(reviews.filter((review) => review.invested === 1).length);
    expect(stored.sum_trust).toBe(6);
  });
});
