import { expect, it } from "vitest";
import { companyCriteria } from "#app/lib/ratings.ts";
import { allPages, insertCompany, insertCompanyReview } from "#tests/support/test-fixtures.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { companyReviewListSchema, companyReviews } from "./companies.server.ts";
import { decide } from "./moderation.server.ts";
import type { ReviewCard } from "./public-shapes.server.ts";
import { isReviewCard, reviewListMessages } from "./reviews.server.ts";

/** Every criterion at `value`. */
const allAt = (value: number) => Object.fromEntries(companyCriteria.map((key) => [key, value]));

describeEachEngine("sorting and narrowing a subject's reviews", (database) => {
  /** 13 reviews: overall scores 1 to 5 spread over months, two texts, two tag sets. */
  async function seed() {
    const { db } = database();
    const id = await insertCompany(db, { name: "Sorted Corp" });
    for (let index = 0; index < 13; index++) {
      const score = (index % 5) + 1;
      await insertCompanyReview(db, id, {
        ...allAt(score),
        // One criterion a notch up on some, so equal scores have different totals.
        culture: Math.min(5, score + (index % 2)),
        created_on: `2025-${String((index % 12) + 1).padStart(2, "0")}-10`,
        tags: JSON.stringify(index % 3 === 0 ? ["Hybrid", "Fair Pay"] : ["Fair Pay"]),
        review_text: index % 4 === 0 ? "The CAFETERIA is great, the canteen too." : "Meetings all day long.",
      });
    }
    return { db, id };
  }

  const cards = (pages: Array<Array<unknown>>) =>
    pages.flat().filter((item) => isReviewCard(item as never)) as ReviewCard[];
  const total = (card: ReviewCard) =>
    Object.values(card.ratings).reduce((sum: number, value) => sum + Number(value), 0);

  it("lists highest and lowest first across pages, newest first among equals, each review once", async () => {
    const { db, id } = await seed();
    for (const sort of ["highest", "lowest"] as const) {
      const pages = await allPages((cursor) => companyReviews(db, id, cursor, { sort }));
      expect(pages.map((page) => page.length)).toEqual([10, 3]);
      const list = cards(pages);
      expect(new Set(list.map((card) => card.id)).size).toBe(13);
      const keys = list.map((card) => [total(card), card.month] as const);
      const sorted = keys.toSorted((a, b) =>
        a[0] !== b[0] ? (sort === "highest" ? b[0] - a[0] : a[0] - b[0]) : b[1].localeCompare(a[1]),
      );
      expect(keys).toEqual(sorted);
    }
  });

  it("narrows to an overall score, a tag and words, together", async () => {
    const { db, id } = await seed();
    const fours = cards(await allPages((cursor) => companyReviews(db, id, cursor, { sort: "newest", rating: 4 })));
    expect(fours.length).toBeGreaterThan(0);
    expect(fours.every((card) => card.score === 4)).toBe(true);
    const hybrid = cards(await allPages((cursor) => companyReviews(db, id, cursor, { sort: "newest", tag: "Hybrid" })));
    expect(hybrid).toHaveLength(5);
    const words = cards(
      await allPages((cursor) => companyReviews(db, id, cursor, { sort: "lowest", q: "cafeteria  Canteen" })),
    );
    expect(words).toHaveLength(4);
    expect(words.every((card) => card.text.includes("CAFETERIA"))).toBe(true);
    const both = cards(
      await allPages((cursor) => companyReviews(db, id, cursor, { sort: "newest", tag: "Hybrid", q: "cafeteria" })),
    );
    expect(both.map((card) => card.id).toSorted()).toEqual(
      words
        .filter((card) => card.tags.includes("Hybrid"))
        .map((card) => card.id)
        .toSorted(),
    );
    expect(await companyReviews(db, id, null, { sort: "newest", q: "100%_off" })).toEqual({ items: [], next: null });
  });

  it("keeps a removed review's marker in the plain list only", async () => {
    const { db, id } = await seed();
    const [first] = cards([(await companyReviews(db, id)).items]);
    await decide(db, first!.id, { action: "remove", reason: "spam", statement: "Spam." }, "Moderator T");
    expect((await companyReviews(db, id)).items.map((item) => item.id)).toContain(first!.id);
    const highest = await allPages((cursor) => companyReviews(db, id, cursor, { sort: "highest" }));
    expect(highest.flat().map((item) => item.id)).not.toContain(first!.id);
    expect(highest.flat()).toHaveLength(12);
  });
});

it("refuses a sort, score, tag or words it does not know, with the message the page and the API show", () => {
  const refused = (query: Record<string, string>) =>
    companyReviewListSchema.safeParse(query).error?.issues.map((issue) => issue.message);
  expect(refused({ sort: "oldest" })).toEqual([reviewListMessages.sort]);
  expect(refused({ rating: "6" })).toEqual([reviewListMessages.rating]);
  expect(refused({ rating: "2.5" })).toEqual([reviewListMessages.rating]);
  expect(refused({ tag: "Supportive" })).toEqual([reviewListMessages.tag]);
  expect(refused({ q: "x".repeat(101) })).toEqual([reviewListMessages.words]);
  expect(refused({ q: "a\u0000b" })).toEqual([reviewListMessages.words]);
  expect(companyReviewListSchema.parse({ sort: "", rating: "", tag: "", q: "  " })).toEqual({ sort: "newest" });
  expect(companyReviewListSchema.parse({ sort: "lowest", rating: "3", tag: "Hybrid", q: " pay " })).toEqual({
    sort: "lowest",
    rating: 3,
    tag: "Hybrid",
    q: "pay",
  });
});
