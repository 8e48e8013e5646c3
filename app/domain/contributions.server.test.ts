import type { Kysely } from "kysely";
import { expect, it } from "vitest";
import type { Database } from "#app/db/schema.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { countRows, insertCompany } from "#tests/support/test-fixtures.ts";
import { fold } from "#app/lib/fold.ts";
import { today } from "#app/lib/ids.server.ts";
import { nameSkeleton } from "#app/lib/names.server.ts";
import { companyCriteria } from "#app/lib/ratings.ts";
import { addCompany, companySuggestions, recordCompanyReview } from "./contributions.server.ts";
import { company, companyReview, expectRefusal, published, someone } from "#tests/support/test-contributions.ts";

type Db = Kysely<Database>;

/** The stored aggregates of a company, next to the same numbers aggregated afresh from its reviews. */
async function companyAggregates(db: Db, id: number) {
  const stored = await db.selectFrom("companies").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  const fresh = await db
    .selectFrom("company_reviews")
    .where("company_id", "=", id)
    .select((eb) => [
      eb.fn.countAll<number>().as("review_count"),
      eb.fn.sum<number>("again").as("again_yes"),
      eb.fn.sum<number>("recommend").as("recommend_yes"),
      ...companyCriteria.map((criterion) => eb.fn.sum<number>(criterion).as(`sum_${criterion}`)),
    ])
    .executeTakeFirstOrThrow();
  const keys = Object.keys(fresh) as (keyof typeof fresh & keyof typeof stored)[];
  return {
    stored: Object.fromEntries(keys.map((key) => [key, Number(stored[key])])),
    fresh: Object.fromEntries(keys.map((key) => [key, Number(fresh[key] ?? 0)])),
    company: stored,
  };
}

describeEachEngine("adding a company", (database) => {
  it("stores the company with its first review, aggregates equal to the reviews", async () => {
    const { db } = database();
    const id = published(
      await addCompany(db, someone, company(), companyReview({ reputation: "5", has_oncall: "Yes" })),
    );
    await recordCompanyReview(
      db,
      someone,
      id,
      companyReview({ reputation: "2", again: "No", recommend: "Yes", has_oncall: "No" }),
    );
    await recordCompanyReview(db, someone, id, companyReview({ culture: "1", again: "Yes" }));

    const { stored, fresh, company: row } = await companyAggregates(db, id);
    expect(stored).toEqual(fresh);
    expect(stored).toMatchObject({
      review_count: 3,
      sum_reputation: 11,
      sum_culture: 9,
      again_yes: 2,
      recommend_yes: 1,
    });
    expect(row).toMatchObject({
      name: "Acme GmbH",
      folded_name: "acme gmbh",
      website: "https://acme.com/",
      website_key: "acme.com",
      created_on: today(),
      latest_has_oncall: 1,
    });
    const review = await db
      .selectFrom("company_reviews")
      .selectAll()
      .where("company_id", "=", id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(review.tags)).toEqual(["Fair Pay", "Hybrid"]);
  });

  it('refuses "This company already exists." when the folded name and the website match', async () => {
    const { db } = database();
    await addCompany(db, someone, company({ name: "ACME GmbH", website: "https://www.acme.com/" }), companyReview());

    const error = await expectRefusal(
      addCompany(db, someone, company({ name: "acme gmbh", website: "acme.com" }), companyReview()),
      "company-exists",
    );
    expect(error.message).toBe("This company already exists.");
    expect(error.status).toBe(409);
    expect(await countRows(db, "companies")).toBe(1);
    expect(await countRows(db, "company_reviews")).toBe(1);
  });

  // The lookalikes a security review added as new companies: a zero-width space, a Cyrillic "е", an RTL override.
  it.each([
    ["a zero-width space", "AC\u200BME GmbH"],
    ["a Cyrillic е", "Acm\u0435 GmbH"],
    ["a right-to-left override", "\u202EACME GmbH"],
    ["full-width letters", "\uFF21\uFF23\uFF2D\uFF25 GmbH"],
  ])("refuses a name with %s as the same company", async (_, lookalike) => {
    const { db } = database();
    await addCompany(db, someone, company({ name: "ACME GmbH", website: "acme.com" }), companyReview());

    const error = await expectRefusal(
      addCompany(db, someone, company({ name: lookalike, website: "https://www.acme.com/" }), companyReview()),
      "company-exists",
    );
    expect(error.message).toBe("This company already exists.");
    expect(await countRows(db, "companies")).toBe(1);
  });

  it("stores a name without its invisible characters, so an override is never shown", async () => {
    const { db } = database();
    const id = published(
      await addCompany(
        db,
        someone,
        company({ name: "\u202EAc\u200Bme\u2066 GmbH", website: "acme.com" }),
        companyReview(),
      ),
    );

    const stored = await db
      .selectFrom("companies")
      .select(["name", "folded_name", "name_skeleton"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ name: "Acme GmbH", folded_name: "acme gmbh", name_skeleton: nameSkeleton("Acme GmbH") });
  });

  it("lets the unique index refuse a lookalike that a concurrent check missed", async () => {
    const { db } = database();
    await addCompany(db, someone, company({ name: "ACME GmbH", website: "acme.com" }), companyReview());

    // Straight into the table, past the check in addCompany: the index on (name_skeleton, website_key) holds.
    await expect(
      insertCompany(db, {
        name: "Acm\u0435 GmbH",
        name_skeleton: nameSkeleton("Acm\u0435 GmbH"),
        website_key: "acme.com",
      }),
    ).rejects.toThrow(/unique|UNIQUE/);
  });

  it("allows the same name with another website", async () => {
    const { db } = database();
    await addCompany(db, someone, company({ website: "acme.com" }), companyReview());
    await addCompany(db, someone, company({ website: "acme.de" }), companyReview());

    expect(await countRows(db, "companies")).toBe(2);
  });

  it("leaves no company behind when its first review cannot be stored", async () => {
    const { db } = database();
    // Past the schema, straight into the CHECK constraint: the whole transaction must roll back.
    const invalid = { ...companyReview(), reputation: 9 };

    await expect(addCompany(db, someone, company(), invalid)).rejects.toThrow(/check constraint/i);
    expect(await countRows(db, "companies")).toBe(0);
    expect(await countRows(db, "company_reviews")).toBe(0);
  });
});

describeEachEngine("reviewing a company", (database) => {
  it("adds to the count, the sums and the yes counts, and takes has-on-call from the new review", async () => {
    const { db } = database();
    const id = await insertCompany(db, { name: "Initech" });

    await recordCompanyReview(db, someone, id, companyReview({ has_oncall: "Yes", again: "Yes", recommend: "No" }));
    expect((await companyAggregates(db, id)).company).toMatchObject({
      review_count: 1,
      sum_growth: 4,
      again_yes: 1,
      recommend_yes: 0,
      latest_has_oncall: 1,
    });

    await recordCompanyReview(db, someone, id, companyReview({ has_oncall: "No", growth: "1", recommend: "Yes" }));
    const { stored, fresh, company: row } = await companyAggregates(db, id);
    expect(stored).toEqual(fresh);
    expect(row).toMatchObject({ review_count: 2, sum_growth: 5, again_yes: 2, recommend_yes: 1, latest_has_oncall: 0 });
  });

  it("sets the layoffs date when none is stored, and later only to a newer one", async () => {
    const { db } = database();
    const id = await insertCompany(db, { name: "Initech" });
    const layoffs = async () =>
      (await db.selectFrom("companies").select("recent_layoffs").where("id", "=", id).executeTakeFirstOrThrow())
        .recent_layoffs;

    await recordCompanyReview(db, someone, id, companyReview());
    expect(await layoffs()).toBeNull();
    await recordCompanyReview(db, someone, id, companyReview({ recent_layoffs: "2024-05-01" }));
    expect(await layoffs()).toBe("2024-05-01");
    await recordCompanyReview(db, someone, id, companyReview({ recent_layoffs: "2023-11-30" }));
    expect(await layoffs()).toBe("2024-05-01");
    await recordCompanyReview(db, someone, id, companyReview({ recent_layoffs: "" }));
    expect(await layoffs()).toBe("2024-05-01");
    await recordCompanyReview(db, someone, id, companyReview({ recent_layoffs: "2025-01-15" }));
    expect(await layoffs()).toBe("2025-01-15");
  });

  it("refuses a review of an unknown company and writes nothing", async () => {
    const { db } = database();
    const id = await insertCompany(db, { name: "Initech" });

    const error = await expectRefusal(
      recordCompanyReview(db, someone, id + 1000, companyReview()),
      "company-not-found",
    );
    expect(error.status).toBe(404);
    expect(await countRows(db, "company_reviews")).toBe(0);
    expect((await companyAggregates(db, id)).company.review_count).toBe(0);
  });
});

describeEachEngine("company suggestions", (database) => {
  const names = async (typed: string) => (await companySuggestions(database().db, typed)).map((item) => item.name);

  it("suggests nothing for fewer than 5 characters", async () => {
    await insertCompany(database().db, { name: "Acme" });

    expect(await names("acme")).toEqual([]);
    expect(await names("  Acme   ")).toEqual([]);
    expect(await names("acme ")).toEqual([]);
  });

  it("suggests at most 10 companies, by name", async () => {
    for (const n of [12, 3, 7, 1, 11, 5, 9, 2, 10, 4, 8, 6]) {
      await insertCompany(database().db, { name: `Widget Works ${String(n).padStart(2, "0")}` });
    }

    const found = await companySuggestions(database().db, "widget works");
    expect(found.map((item) => item.name)).toEqual(
      Array.from({ length: 10 }, (_, i) => `Widget Works ${String(i + 1).padStart(2, "0")}`),
    );
    expect(found[0]).toMatchObject({ city: "Munich", country: "DE" });
  });

  it("matches folded names that contain the input or are contained in it", async () => {
    await insertCompany(database().db, { name: "München Widgets" });
    await insertCompany(database().db, { name: "Widgets of München GmbH" });
    await insertCompany(database().db, { name: "Berlin Widgets" });

    expect(await names("munchen widgets gmbh")).toEqual(["München Widgets"]);
    expect(await names("MÜNCHEN")).toEqual(["München Widgets", "Widgets of München GmbH"]);
    expect(fold("München Widgets")).toBe("munchen widgets");
  });

  it("takes LIKE wildcards literally, in the input and in stored names", async () => {
    for (const name of ["100% Remote", "1000 Remote", "A_B Labs", "AXB Labs", "Back\\slash Co"]) {
      await insertCompany(database().db, { name });
    }

    expect(await names("100% remote")).toEqual(["100% Remote"]);
    expect(await names("a_b labs")).toEqual(["A_B Labs"]);
    expect(await names("axb labs inc")).toEqual(["AXB Labs"]);
    expect(await names("1000 remote team")).toEqual(["1000 Remote"]);
    expect(await names("back\\slash")).toEqual(["Back\\slash Co"]);
    expect(await names("the back\\slash co")).toEqual(["Back\\slash Co"]);
  });
});
