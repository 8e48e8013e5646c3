import { expect, it } from "vitest";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { allPages, insertCompany, insertCompanyReview } from "#tests/support/test-fixtures.ts";
import { encodeCursor } from "#app/lib/cursor.server.ts";
import { companyCriteria } from "#app/lib/ratings.ts";
import { companyReviews, findCompany, searchCompanies } from "./companies.server.ts";
import { searchPageSize } from "./subjects.server.ts";
import { isReviewCard, reviewsPageSize } from "./reviews.server.ts";

describeEachEngine("company search", (database) => {
  async function names(term: string, country = "DE") {
    const page = await searchCompanies(database().db, { country, term });
    return page.items.map((item) => item.name);
  }

  it("finds München GmbH when searching munchen, MÜNCH or ünch", async () => {
    await insertCompany(database().db, { name: "München GmbH" });
    await insertCompany(database().db, { name: "Berlin AG" });

    expect(await names("munchen")).toEqual(["München GmbH"]);
    expect(await names("MÜNCH")).toEqual(["München GmbH"]);
    expect(await names("ünch")).toEqual(["München GmbH"]);
  });

  it("finds only companies of the chosen country", async () => {
    const german = await insertCompany(database().db, { name: "Acme", country: "DE" });
    await insertCompany(database().db, { name: "Acme", country: "US" });

    const page = await searchCompanies(database().db, { country: "DE", term: "acme" });

    expect(page.items.map((item) => item.id)).toEqual([german]);
  });

  it("lists matches by name", async () => {
    for (const name of ["Zeta Acme", "Acme Alpha", "Beta Acme", "Unrelated"]) {
      await insertCompany(database().db, { name });
    }

    expect(await names("acme")).toEqual(["Acme Alpha", "Beta Acme", "Zeta Acme"]);
  });

  it("lists names that start with the term before names that hold it elsewhere", async () => {
    for (const name of ["Aaron Acme", "Acme Beta", "Bacmen", "Acme Alpha"]) {
      await insertCompany(database().db, { name });
    }

    expect(await names("acme")).toEqual(["Acme Alpha", "Acme Beta", "Aaron Acme", "Bacmen"]);
  });

  it("gives the first page for a malformed cursor of the names that hold the term elsewhere", async () => {
    for (let i = 0; i < 25; i++) await insertCompany(database().db, { name: `Old Cursor Co ${i}` });
    const first = await searchCompanies(database().db, { country: "DE", term: "cursor" });
    expect(first.items).toHaveLength(searchPageSize);

    for (const after of [encodeCursor([1, "x"]), encodeCursor([1, -1]), encodeCursor([1, 0, "cursor", "x"])]) {
      const page = await searchCompanies(database().db, { country: "DE", term: "cursor", after });
      expect(page, after).toEqual(first);
    }
    const second = await searchCompanies(database().db, { country: "DE", term: "cursor", after: first.next });
    expect(second.items).toHaveLength(5);
    expect(second.next).toBeNull();
  });

  it("returns nothing for an empty or blank term", async () => {
    await insertCompany(database().db, { name: "Acme" });

    for (const term of ["", "   "]) {
      expect(await searchCompanies(database().db, { country: "DE", term })).toEqual({ items: [], next: null });
    }
  });

  it("matches % and _ in the term literally", async () => {
    for (const name of ["100% Remote", "100 Remote", "A_B Labs", "AXB Labs", "Back\\slash"]) {
      await insertCompany(database().db, { name });
    }

    expect(await names("100%")).toEqual(["100% Remote"]);
    expect(await names("%")).toEqual(["100% Remote"]);
    expect(await names("a_b")).toEqual(["A_B Labs"]);
    expect(await names("k\\s")).toEqual(["Back\\slash"]);
  });

  it("pages through more than 20 matches with every company exactly once", async () => {
    const ids: number[] = [];
    // Repeated names: the keyset must break ties by id.
    for (let i = 0; i < 47; i++) {
      ids.push(await insertCompany(database().db, { name: `Paging Co ${String(i % 9).padStart(2, "0")}` }));
    }
    await insertCompany(database().db, { name: "Paging Co elsewhere", country: "FR" });

    const pages = await allPages((after) => searchCompanies(database().db, { country: "DE", term: "paging", after }));

    expect(pages.map((page) => page.length)).toEqual([searchPageSize, searchPageSize, 7]);
    const seen = pages.flat();
    expect(seen.map((item) => item.id).sort((a, b) => a - b)).toEqual(ids);
    const keys = seen.map((item) => [item.name, item.id] as const);
    const sorted = [...keys].sort(([nameA, idA], [nameB, idB]) =>
      nameA === nameB ? idA - idB : nameA < nameB ? -1 : 1,
    );
    expect(keys).toEqual(sorted);
  });

  it("gives the first page for a malformed search cursor", async () => {
    for (let i = 0; i < 25; i++) await insertCompany(database().db, { name: `Cursor Co ${i}` });
    const first = await searchCompanies(database().db, { country: "DE", term: "cursor" });

    for (const after of ["garbage", encodeCursor(["cursor co", "x"]), encodeCursor(["cursor co", 1e20])]) {
      const page = await searchCompanies(database().db, { country: "DE", term: "cursor", after });
      expect(page, after).toEqual(first);
    }
  });
});

describeEachEngine("company profile", (database) => {
  it("computes averages and a floored score from the stored sums", async () => {
    const { db } = database();
    const id = await insertCompany(db, { name: "Two Reviews Ltd" });
    const ratings = (value: number) => Object.fromEntries(companyCriteria.map((criterion) => [criterion, value]));
    await insertCompanyReview(db, id, { ...ratings(5), reputation: 5, created_on: "2026-01-10" });
    await insertCompanyReview(db, id, { ...ratings(2), reputation: 4, created_on: "2026-02-10" });

    const company = await findCompany(db, id);

    expect(company?.reviewCount).toBe(2);
    expect(company?.averages.reputation).toBe(4.5);
    expect(company?.averages.culture).toBe(3.5);
    // (9 + 12 × 7) / (2 × 13) = 3.58, floored.
    expect(company?.score).toBe(3);
  });

  it("rounds averages to one decimal", async () => {
    const { db } = database();
    const id = await insertCompany(db, { name: "Three Reviews Ltd" });
    for (const growth of [1, 2, 2]) await insertCompanyReview(db, id, { growth });

    expect((await findCompany(db, id))?.averages.growth).toBe(1.7);
  });

  it("shows no averages and a score of 0 before the first review", async () => {
    const { db } = database();
    const id = await insertCompany(db, { name: "Quiet GmbH" });

    const company = await findCompany(db, id);

    expect(company?.reviewCount).toBe(0);
    expect(company?.score).toBe(0);
    expect(Object.values(company?.averages ?? {}).every((average) => average === null)).toBe(true);
  });

  it("reports on-call duty from the newest review", async () => {
    const { db } = database();
    const id = await insertCompany(db, { name: "Pager Inc" });
    await insertCompanyReview(db, id, { has_oncall: 1, created_on: "2026-03-01" });
    await insertCompanyReview(db, id, { has_oncall: 0, created_on: "2025-01-01" });
    expect((await findCompany(db, id))?.hasOncall).toBe(true);

    await insertCompanyReview(db, id, { has_oncall: 0, created_on: "2026-04-01" });
    expect((await findCompany(db, id))?.hasOncall).toBe(false);
  });

  it("returns the company's details with its country's name", async () => {
    const { db } = database();
    const id = await insertCompany(db, { name: "München GmbH", city: "Munich", recent_layoffs: "2025-11-03" });

    expect(await findCompany(db, id)).toMatchObject({
      id,
      name: "München GmbH",
      city: "Munich",
      country: "DE",
      countryName: "Germany",
      recentLayoffs: "2025-11-03",
      isDemo: false,
    });
  });

  it("returns undefined for an unknown company", async () => {
    expect(await findCompany(database().db, 987654)).toBeUndefined();
  });
});

describeEachEngine("company reviews", (database) => {
  async function companyWithReviews(days: string[]) {
    const { db } = database();
    const id = await insertCompany(db, { name: "Busy Corp" });
    const reviews: Array<{ id: string; day: string }> = [];
    for (const day of days) reviews.push({ id: await insertCompanyReview(db, id, { created_on: day }), day });
    // Newest first; reviews of one day in descending id order, like the listing.
    reviews.sort((a, b) => (a.day === b.day ? (a.id < b.id ? 1 : -1) : a.day < b.day ? 1 : -1));
    return { id, newestFirst: reviews.map((review) => review.id) };
  }

  // 25 reviews over 9 days: most days hold several reviews, so pages split inside a day.
  const days = Array.from({ length: 25 }, (_, i) => `2026-0${1 + (i % 9)}-1${i % 3}`);

  it("lists reviews newest first, ten per page, each exactly once", async () => {
    const { id, newestFirst } = await companyWithReviews(days);
    const other = await insertCompany(database().db, { name: "Other Corp" });
    await insertCompanyReview(database().db, other, { created_on: "2026-05-10" });

    const pages = await allPages((before) => companyReviews(database().db, id, before));

    expect(pages.map((page) => page.length)).toEqual([reviewsPageSize, reviewsPageSize, 5]);
    expect(pages.flat().map((card) => card.id)).toEqual(newestFirst);
  });

  it("gives the first page for a garbage cursor", async () => {
    const { id } = await companyWithReviews(days);
    const first = await companyReviews(database().db, id);

    for (const before of ["garbage", "%%%", encodeCursor([42]), encodeCursor(["no such review"])]) {
      expect(await companyReviews(database().db, id, before), before).toEqual(first);
    }
  });

  it("shows the month of a review, never its day", async () => {
    const { id } = await companyWithReviews([...days, "2026-11-23"]);

    const page = await companyReviews(database().db, id);

    expect(page.items[0]?.month).toBe("2026-11");
    const exposed = JSON.stringify(page.items) + Buffer.from(page.next ?? "", "base64url").toString();
    expect(exposed).not.toMatch(/\d{4}-\d{2}-\d{2}/);
  });

  it("shows a review's ratings, answers, tags and text", async () => {
    const { db } = database();
    const id = await insertCompany(db, { name: "Card Corp" });
    await insertCompanyReview(db, id, {
      reputation: 5,
      recommend: 1,
      tags: JSON.stringify(["Toxic", "Burn Out"]),
      review_text: "Long hours, little thanks.",
    });

    const [card] = (await companyReviews(db, id)).items.filter(isReviewCard);

    expect(card?.ratings.reputation).toBe(5);
    expect(card?.ratings.culture).toBe(3);
    expect(card?.answers).toEqual({ again: false, recommend: true, has_oncall: false });
    expect(card?.tags).toEqual(["Toxic", "Burn Out"]);
    expect(card?.text).toBe("Long hours, little thanks.");
    expect(card?.score).toBe(3);
  });
});
