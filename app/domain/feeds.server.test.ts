import { expect, it } from "vitest";
import { describeEachEngine } from "#tests/support/test-database.ts";
import {
  insertCompany,
  insertCompanyReview,
  insertManager,
  insertManagerReview,
} from "#tests/support/test-fixtures.ts";
import { xmlProblems } from "#tests/support/xml-validation.ts";
import { atomFeed, jsonFeed } from "#app/lib/feeds.ts";
import { env } from "#app/lib/env.server.ts";
import { feedLength, feedOf } from "./feeds.server.ts";

const atomProblems = (xml: string) => xmlProblems(xml, "atom.rng");

function documentOf(feed: NonNullable<Awaited<ReturnType<typeof feedOf>>>) {
  return {
    title: `Candor: new reviews of ${feed.name}`,
    selfUrl: "https://candor.example/feeds/x.atom",
    pageUrl: "https://candor.example/x",
    subjectUrl: (subject: { kind: string; id: number }) => `https://candor.example/${subject.kind}/${subject.id}`,
    entries: feed.entries,
  };
}

describeEachEngine("feeds of new reviews", (database) => {
  it("lists a company's reviews that stand, newest first, dated to their month, and validates as Atom 1.0", async () => {
    const db = database().db;
    const company = await insertCompany(db, { name: "Feedly & <Sons>" });
    const older = await insertCompanyReview(db, company, { created_on: "2026-01-15", review_text: "Old & <fine>" });
    const newer = await insertCompanyReview(db, company, { created_on: "2026-03-02" });
    const removed = await insertCompanyReview(db, company, { created_on: "2026-03-20" });
    const decision = await db
      .insertInto("moderation_decisions")
      .values({
        review_id: removed,
        subject: "company",
        subject_id: company,
        action: "remove",
        reason: "private-person",
        statement: "Names a private person.",
        moderator: "mod",
        decided_on: "2026-03-21",
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await db.insertInto("removed_reviews").values({ review_id: removed, decision_id: decision.id }).execute();

    const feed = await feedOf(db, { kind: "company", id: company });
    expect(feed?.name).toBe("Feedly & <Sons>");
    expect(feed?.entries.map((entry) => [entry.reviewId, entry.month])).toEqual([
      [newer, "2026-03"],
      [older, "2026-01"],
    ]);

    const xml = atomFeed(documentOf(feed!));
    // Escaped, dated to the month only, and valid: a planted unescaped "<" or a missing <id> fails the grammar
    // (checked live while writing this test: both made xmllint refuse the document).
    expect(xml).toContain("Old &amp; &lt;fine&gt;");
    expect(xml).toContain("<updated>2026-03-01T00:00:00Z</updated>");
    expect(xml).not.toContain("2026-03-02");
    expect(atomProblems(xml)).toBe("");
    expect(atomProblems(xml.replace("<id>https://candor.example/feeds/x.atom</id>", ""))).not.toBe("");

    const json = JSON.parse(jsonFeed(documentOf(feed!))) as { version: string; items: Array<{ id: string }> };
    expect(json.version).toBe("https://jsonfeed.org/version/1.1");
    expect(json.items).toHaveLength(2);
  });

  it("shows a manager's reviews only once the manager shows them (the small-team minimum)", async () => {
    const db = database().db;
    const manager = await insertManager(db, { first_name: "Ada", last_name: "Feed" });
    for (let i = 1; i < env().MANAGER_MIN_REVIEWS; i++) await insertManagerReview(db, manager);
    expect((await feedOf(db, { kind: "manager", id: manager }))?.entries).toEqual([]);
    await insertManagerReview(db, manager);
    const feed = await feedOf(db, { kind: "manager", id: manager });
    expect(feed?.name).toBe("Ada Feed");
    expect(feed?.entries).toHaveLength(env().MANAGER_MIN_REVIEWS);
    expect(atomProblems(atomFeed(documentOf(feed!)))).toBe("");
  });

  it("gathers a country's company and manager reviews, an industry's companies, and at most the newest few", async () => {
    const db = database().db;
    const french = await insertCompany(db, { name: "Paris SA", country: "FR", industry_section: "K" });
    const german = await insertCompany(db, { name: "Bonn AG", country: "DE", industry_section: "K" });
    for (let day = 1; day <= feedLength + 3; day++) {
      await insertCompanyReview(db, french, { created_on: `2026-02-${String(day).padStart(2, "0")}` });
    }
    const germanReview = await insertCompanyReview(db, german, { created_on: "2026-05-01" });
    const manager = await insertManager(db, { first_name: "Jean", last_name: "Lyon", country: "FR" });
    const managerReviews = [];
    for (let i = 0; i < env().MANAGER_MIN_REVIEWS; i++) {
      managerReviews.push(await insertManagerReview(db, manager, { created_on: "2026-04-10" }));
    }

    const france = await feedOf(db, { kind: "country", code: "FR" });
    expect(france?.name).toBe("France");
    expect(france?.entries).toHaveLength(feedLength);
    expect(france?.entries.slice(0, managerReviews.length).map((entry) => entry.subject.kind)).toEqual(
      managerReviews.map(() => "manager"),
    );
    expect(france?.entries.some((entry) => entry.reviewId === germanReview)).toBe(false);

    const finance = await feedOf(db, { kind: "industry", code: "K" });
    expect(finance?.entries[0]?.reviewId).toBe(germanReview);
    expect(finance?.entries).toHaveLength(feedLength);
  });

  it("has no feed for an unknown company, manager, country or industry", async () => {
    const db = database().db;
    expect(await feedOf(db, { kind: "company", id: 999_999 })).toBeUndefined();
    expect(await feedOf(db, { kind: "manager", id: 999_999 })).toBeUndefined();
    expect(await feedOf(db, { kind: "country", code: "XX" })).toBeUndefined();
    expect(await feedOf(db, { kind: "industry", code: "Z" })).toBeUndefined();
  });
});
