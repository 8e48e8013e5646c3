import { expect, it } from "vitest";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { allPages, insertCompany, insertManager, insertManagerReview } from "#tests/support/test-fixtures.ts";
import { encodeCursor } from "#app/lib/cursor.server.ts";
import { managerCriteria } from "#app/lib/ratings.ts";
import { searchPageSize } from "./subjects.server.ts";
import { companyManagers, findManager, managerReviews, searchManagers } from "./managers.server.ts";
import { isReviewCard, reviewsPageSize } from "./reviews.server.ts";

describeEachEngine("manager search", (database) => {
  async function names(term: string, country = "DE") {
    const page = await searchManagers(database().db, { country, term });
    return page.items.map((item) => `${item.firstName} ${item.lastName}`);
  }

  it("matches the first name, the last name and the full name", async () => {
    await insertManager(database().db, { first_name: "José", last_name: "Müller" });
    await insertManager(database().db, { first_name: "Anna", last_name: "Schmidt" });

    expect(await names("jose")).toEqual(["José Müller"]);
    expect(await names("MULLER")).toEqual(["José Müller"]);
    expect(await names("josé müller")).toEqual(["José Müller"]);
    expect(await names("e mu")).toEqual(["José Müller"]);
  });

  it("finds only managers of the chosen country, by name", async () => {
    for (const [first_name, country] of [
      ["Zoe", "DE"],
      ["Anna", "DE"],
      ["Mia", "DE"],
      ["Anna", "AT"],
    ] as const) {
      await insertManager(database().db, { first_name, last_name: "Weber", country });
    }

    expect(await names("weber")).toEqual(["Anna Weber", "Mia Weber", "Zoe Weber"]);
    expect(await names("weber", "AT")).toEqual(["Anna Weber"]);
  });

  it("returns nothing for an empty term and matches wildcards literally", async () => {
    await insertManager(database().db, { first_name: "Ann", last_name: "Lee" });
    await insertManager(database().db, { first_name: "Ann_", last_name: "Lee" });

    expect(await searchManagers(database().db, { country: "DE", term: " " })).toEqual({ items: [], next: null });
    expect(await names("n_")).toEqual(["Ann_ Lee"]);
    expect(await names("%")).toEqual([]);
  });

  it("pages through more than 20 matches with every manager exactly once", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 43; i++) {
      ids.push(await insertManager(database().db, { first_name: `Kim ${i % 5}`, last_name: "Pager" }));
    }

    const pages = await allPages((after) => searchManagers(database().db, { country: "DE", term: "pager", after }));

    expect(pages.map((page) => page.length)).toEqual([searchPageSize, searchPageSize, 3]);
    expect(
      pages
        .flat()
        .map((card) => card.id)
        .sort((a, b) => a - b),
    ).toEqual(ids);
  });

  it("shows the companies each manager works for", async () => {
    const acme = await insertCompany(database().db, { name: "Acme" });
    const globex = await insertCompany(database().db, { name: "Globex" });
    await insertManager(database().db, { first_name: "Ola", last_name: "Nordmann" }, [globex, acme]);

    const [card] = (await searchManagers(database().db, { country: "DE", term: "ola" })).items;

    expect(card?.companies).toEqual([
      { id: acme, name: "Acme" },
      { id: globex, name: "Globex" },
    ]);
  });
});

describeEachEngine("company managers", (database) => {
  it("lists only the managers linked to the company", async () => {
    const { db } = database();
    const acme = await insertCompany(db, { name: "Acme" });
    const globex = await insertCompany(db, { name: "Globex" });
    const both = await insertManager(db, { first_name: "Bea", last_name: "Both" }, [acme, globex]);
    const acmeOnly = await insertManager(db, { first_name: "Al", last_name: "Acme" }, [acme]);
    await insertManager(db, { first_name: "Gus", last_name: "Globex" }, [globex]);
    await insertManager(db, { first_name: "Una", last_name: "Linked" });

    const page = await companyManagers(db, acme);

    expect(page.items.map((card) => card.id)).toEqual([acmeOnly, both]);
    expect(page.next).toBeNull();
  });

  it("pages through more than 20 managers of a company", async () => {
    const { db } = database();
    const acme = await insertCompany(db, { name: "Acme" });
    const ids: number[] = [];
    for (let i = 0; i < 22; i++) ids.push(await insertManager(db, { first_name: "Sam", last_name: "Same" }, [acme]));

    const pages = await allPages((after) => companyManagers(db, acme, after));

    expect(pages.map((page) => page.length)).toEqual([searchPageSize, 2]);
    expect(pages.flat().map((card) => card.id)).toEqual(ids);
  });
});

describeEachEngine("manager profile", (database) => {
  it("computes averages, yes counts and a floored score from the stored sums", async () => {
    const { db } = database();
    const id = await insertManager(db, { first_name: "Ada", last_name: "Lovelace" });
    const ratings = (value: number) => Object.fromEntries(managerCriteria.map((criterion) => [criterion, value]));
    await insertManagerReview(db, id, { ...ratings(5), vision: 4, recommended: 1, again: 1 });
    await insertManagerReview(db, id, { ...ratings(4), vision: 1, recommended: 1 });

    const manager = await findManager(db, id);

    expect(manager?.reviewCount).toBe(2);
    expect(manager?.averages.empathy).toBe(4.5);
    expect(manager?.averages.vision).toBe(2.5);
    expect(manager?.yesCounts).toEqual({ recommended: 2, invested: 0, communication: 0, gives_credit: 0, again: 1 });
    // (11 × 9 + 5) / (2 × 12) = 4.33, floored.
    expect(manager?.score).toBe(4);
  });

  it("returns the manager's details and companies", async () => {
    const { db } = database();
    const acme = await insertCompany(db, { name: "Acme" });
    const id = await insertManager(db, { first_name: "Ada", last_name: "Lovelace", department: "Research" }, [acme]);

    expect(await findManager(db, id)).toMatchObject({
      firstName: "Ada",
      lastName: "Lovelace",
      department: "Research",
      countryName: "Germany",
      companies: [{ id: acme, name: "Acme" }],
      reviewCount: 0,
      score: 0,
    });
  });

  it("returns undefined for an unknown manager", async () => {
    expect(await findManager(database().db, 987654)).toBeUndefined();
  });
});

describeEachEngine("manager reviews", (database) => {
  async function managerWithReviews(count: number) {
    const { db } = database();
    const id = await insertManager(db, { first_name: "Busy", last_name: "Boss" });
    const reviews: Array<{ id: string; day: string }> = [];
    for (let i = 0; i < count; i++) {
      // Some days hold two reviews, so a page can end inside a day.
      const day = `2025-${String(1 + Math.floor(i / 3)).padStart(2, "0")}-0${1 + (i % 2)}`;
      reviews.push({ id: await insertManagerReview(db, id, { created_on: day }), day });
    }
    reviews.sort((a, b) => (a.day === b.day ? (a.id < b.id ? 1 : -1) : a.day < b.day ? 1 : -1));
    return { id, newestFirst: reviews.map((review) => review.id) };
  }

  it("lists reviews newest first, ten per page, each exactly once", async () => {
    const { id, newestFirst } = await managerWithReviews(21);
    const other = await insertManager(database().db, { first_name: "Other", last_name: "Boss" });
    await insertManagerReview(database().db, other, { created_on: "2025-04-01" });

    const pages = await allPages((before) => managerReviews(database().db, id, before));

    expect(pages.map((page) => page.length)).toEqual([reviewsPageSize, reviewsPageSize, 1]);
    expect(pages.flat().map((card) => card.id)).toEqual(newestFirst);
  });

  it("gives the first page for a garbage cursor", async () => {
    const { id } = await managerWithReviews(12);
    const first = await managerReviews(database().db, id);

    for (const before of ["garbage", encodeCursor(["2025-01-01", "x"]), encodeCursor(["unknown"])]) {
      expect(await managerReviews(database().db, id, before), before).toEqual(first);
    }
  });

  it("shows the month of a review, never its day", async () => {
    const { id } = await managerWithReviews(12);

    const page = await managerReviews(database().db, id);

    expect(page.items.map((card) => card.month)).toContain("2025-04");
    const exposed = JSON.stringify(page.items) + Buffer.from(page.next ?? "", "base64url").toString();
    expect(exposed).not.toMatch(/\d{4}-\d{2}-\d{2}/);
  });

  it("shows a review's answers and tags", async () => {
    const { db } = database();
    const id = await insertManager(db, { first_name: "Card", last_name: "Boss" });
    await insertManagerReview(db, id, { gives_credit: 1, tags: JSON.stringify(["Mentor", "Fair"]) });

    const [card] = (await managerReviews(db, id)).items.filter(isReviewCard);

    expect(card?.answers).toEqual({
      recommended: false,
      invested: false,
      communication: false,
      gives_credit: true,
      again: false,
    });
    expect(card?.tags).toEqual(["Mentor", "Fair"]);
  });
});
