import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { checkAggregates } from "#tests/support/server.ts";
import { createTestAuth, signUpAccount } from "#tests/support/test-accounts.ts";
import { company as newCompanyInput, companyReview, published, someone } from "#tests/support/test-contributions.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { allPages, insertCompany, insertCompanyReview } from "#tests/support/test-fixtures.ts";
import { companyReviews } from "./companies.server.ts";
import { addCompany, recordCompanyReview } from "./contributions.server.ts";
import {
  accountKeyCheck,
  isAccountKeyOf,
  rewrapVoteKey,
  setHelpfulVote,
  unlockVoteKey,
  VoteError,
  votedAmong,
  voteReceipt,
} from "./helpful-votes.server.ts";
import { decide, withdrawReview } from "./moderation.server.ts";
import { isReviewCard } from "./reviews.server.ts";

const newKey = () => randomBytes(32).toString("base64url");

describeEachEngine("helpful votes", (database) => {
  async function reviewsOf(count: number) {
    const { db } = database();
    const companyId = await insertCompany(db, { name: "Voted Corp" });
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      ids.push(
        await insertCompanyReview(db, companyId, { created_on: `2025-${String(index + 1).padStart(2, "0")}-01` }),
      );
    }
    return { db, companyId, ids };
  }

  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => "accepted",
      (error: unknown) => (error instanceof VoteError ? error.kind : String(error)),
    );

  it("opens the same vote key with the password on every sign-in, keeps it across a password change, and stores it only wrapped", async () => {
    const { db } = database();
    const auth = createTestAuth(database());
    const account = await signUpAccount(auth, "voter@example.com");
    const first = await unlockVoteKey(db, account.userId, account.password);
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // A second device: the same password opens the same key.
    expect(await unlockVoteKey(db, account.userId, account.password)).toBe(first);

    const [row] = await db.selectFrom("vote_keys").selectAll().execute();
    expect(row?.user_id).toBe(account.userId);
    expect(Buffer.from(row!.wrapped).includes(Buffer.from(first, "base64url"))).toBe(false);

    const newPassword = "amber kettle hums softly";
    expect(await rewrapVoteKey(db, account.userId, { currentPassword: account.password, newPassword })).toBe(first);
    expect(await unlockVoteKey(db, account.userId, newPassword)).toBe(first);

    // After a reset the wrapping no longer opens: the next sign-in draws a new key (decision 0016's residual risk).
    const afterReset = await unlockVoteKey(db, account.userId, "a password set by a reset link");
    expect(afterReset).not.toBe(first);
    expect(await db.selectFrom("vote_keys").select("user_id").execute()).toHaveLength(1);
  });

  it("takes only the account's own key: a made-up key, another account's, or one whose check is not kept is refused", async () => {
    const { db } = database();
    const auth = createTestAuth(database());
    const ada = await signUpAccount(auth, "ada.key@example.com");
    const bob = await signUpAccount(auth, "bob.key@example.com");
    const adaKey = await unlockVoteKey(db, ada.userId, ada.password);
    const bobKey = await unlockVoteKey(db, bob.userId, bob.password);
    expect(await isAccountKeyOf(db, ada.userId, adaKey)).toBe(true);
    // Proved live: with isAccountKeyOf answering true, each of these 40 made-up keys would be a new voter.
    const madeUp = Array.from({ length: 40 }, newKey);
    const accepted = await Promise.all(madeUp.map((key) => isAccountKeyOf(db, ada.userId, key)));
    expect(accepted.filter(Boolean)).toHaveLength(0);
    expect(await isAccountKeyOf(db, ada.userId, bobKey)).toBe(false);

    // What is kept recomputes no receipt: it is neither the key nor a vote receipt under it.
    const [row] = await db.selectFrom("vote_keys").select("key_check").where("user_id", "=", ada.userId).execute();
    expect(row?.key_check).toBe(accountKeyCheck(adaKey));
    expect(row?.key_check).not.toContain(adaKey);

    // A key made before checks were kept: refused until the next sign-in writes the check.
    await db.updateTable("vote_keys").set({ key_check: null }).where("user_id", "=", ada.userId).execute();
    expect(await isAccountKeyOf(db, ada.userId, adaKey)).toBe(false);
    expect(await unlockVoteKey(db, ada.userId, ada.password)).toBe(adaKey);
    expect(await isAccountKeyOf(db, ada.userId, adaKey)).toBe(true);
  });

  it("counts one vote per key and review, refuses a second, takes a vote back, and shows a reader their votes", async () => {
    const { ids, db } = await reviewsOf(2);
    const [review, other] = ids as [string, string];
    const ada = newKey();
    const bob = newKey();

    expect(await setHelpfulVote(db, ada, review, true)).toEqual({ reviewId: review, helpfulVotes: 1, voted: true });
    expect(await failure(setHelpfulVote(db, ada, review, true))).toBe("already-voted");
    expect((await setHelpfulVote(db, bob, review, true)).helpfulVotes).toBe(2);
    expect(await votedAmong(db, ada, ids)).toEqual(new Set([review]));
    expect(await votedAmong(db, newKey(), ids)).toEqual(new Set());

    expect(await setHelpfulVote(db, ada, review, false)).toEqual({ reviewId: review, helpfulVotes: 1, voted: false });
    expect(await failure(setHelpfulVote(db, ada, review, false))).toBe("not-voted");
    expect(await failure(setHelpfulVote(db, ada, other, false))).toBe("not-voted");
    expect(await failure(setHelpfulVote(db, ada, "no-such-review", true))).toBe("review-not-found");

    // The table holds the receipts and nothing else: no account, no review id, no time.
    const receipts = await db.selectFrom("vote_receipts").selectAll().execute();
    expect(receipts).toEqual([{ receipt: voteReceipt(bob, review) }]);
    const [stored] = await db.selectFrom("company_reviews").select("helpful_votes").where("id", "=", review).execute();
    expect(stored?.helpful_votes).toBe(1);
  });

  it("counts exactly one of twenty simultaneous votes by one key", async () => {
    const { ids, db } = await reviewsOf(1);
    const key = newKey();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => failure(setHelpfulVote(db, key, ids[0]!, true))),
    );
    expect(outcomes.filter((outcome) => outcome === "accepted")).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === "already-voted")).toHaveLength(19);
    const [row] = await db.selectFrom("company_reviews").select("helpful_votes").execute();
    expect(row?.helpful_votes).toBe(1);
  });

  it("refuses a vote on a removed review", async () => {
    const { ids, db } = await reviewsOf(1);
    await decide(db, ids[0]!, { action: "remove", reason: "spam", statement: "Spam." }, "Moderator T");
    expect(await failure(setHelpfulVote(db, newKey(), ids[0]!, true))).toBe("review-not-found");
  });

  it("lists the most helpful first across pages, newest first among equals, each review once", async () => {
    const { ids, db, companyId } = await reviewsOf(13);
    // Review i gets i % 4 votes, from distinct keys.
    for (const [index, id] of ids.entries()) {
      for (let vote = 0; vote < index % 4; vote++) await setHelpfulVote(db, newKey(), id, true);
    }
    const pages = await allPages((cursor) => companyReviews(db, companyId, cursor, { sort: "helpful" }));
    expect(pages.map((page) => page.length)).toEqual([10, 3]);
    const cards = pages.flat().filter((item) => isReviewCard(item as never)) as Array<{
      id: string;
      month: string;
      helpfulVotes: number;
    }>;
    expect(new Set(cards.map((card) => card.id)).size).toBe(13);
    const keys = cards.map((card) => [card.helpfulVotes, card.month] as const);
    expect(keys).toEqual(keys.toSorted((a, b) => (a[0] !== b[0] ? b[0] - a[0] : b[1].localeCompare(a[1]))));
    expect(cards.map((card) => card.helpfulVotes)).toEqual(ids.map((_, index) => index % 4).toSorted((a, b) => b - a));
  });

  it("keeps the counts and the receipts adding up, through a withdrawal, and the check finds a count that drifted", async () => {
    const { db, url, engine } = database();
    const companyId = published(await addCompany(db, someone, newCompanyInput(), companyReview()));
    const submission = await recordCompanyReview(db, someone, companyId, companyReview({ culture: "1" }));
    const reviews = await db.selectFrom("company_reviews").select("id").execute();
    for (const { id } of reviews) {
      await setHelpfulVote(db, newKey(), id, true);
      await setHelpfulVote(db, newKey(), id, true);
    }
    expect((await checkAggregates({ engine, url })).mismatches).toEqual([]);

    await withdrawReview(db, submission.reviewKey);
    expect(await db.selectFrom("vote_receipts").select("receipt").execute()).toHaveLength(4);
    const [totals] = await db.selectFrom("vote_totals").select("orphaned").execute();
    expect(Number(totals?.orphaned)).toBe(2);
    expect((await checkAggregates({ engine, url })).mismatches).toEqual([]);

    // One review's count drifts up by one.
    await db.updateTable("company_reviews").set({ helpful_votes: 3 }).where("company_id", "=", companyId).execute();
    expect((await checkAggregates({ engine, url })).mismatches).toEqual([
      { table: "vote_receipts", id: 0, columns: ["4 receipts, 5 votes counted, 0 negative counts"] },
    ]);
  });
});
