import { sql } from "kysely";
import { expect, it } from "vitest";
import { companyCriteria, managerCriteria } from "#app/lib/ratings.ts";
import { describeEachEngine } from "#tests/support/test-database.ts";
import {
  insertCompany,
  insertCompanyReview,
  insertManager,
  insertManagerReview,
} from "#tests/support/test-fixtures.ts";
import { findCompany } from "./companies.server.ts";
import { findManager } from "./managers.server.ts";
import { peerGroups, type RankingOptions, rankAllPeers, rankGroup, rankPeers } from "./percentiles.server.ts";

const companyAt = (value: number) => Object.fromEntries(companyCriteria.map((key) => [key, value]));
const managerAt = (value: number) => Object.fromEntries(managerCriteria.map((key) => [key, value]));

describeEachEngine("ranking among peers", (database) => {
  /** A company of `country` and industry section `section` with three reviews whose every criterion is `value`. */
  async function rated(name: string, value: number, fields: { country?: string; section?: string | null } = {}) {
    const id = await insertCompany(db(), {
      name,
      country: fields.country ?? "DE",
      industry_section: fields.section === undefined ? "J" : fields.section,
    });
    for (let i = 0; i < 3; i++)
      await insertCompanyReview(db(), id, { ...companyAt(value), culture: value === 1 ? 5 : value });
    return id;
  }
  const db = () => database().db;

  it("ranks each company among its country's and its industry's, per criterion, ties sharing a rank", async () => {
    const ids = [
      await rated("One", 1),
      await rated("Two", 2),
      await rated("Three A", 3),
      await rated("Three B", 3),
      await rated("Four", 4, { section: "C" }),
      await rated("Five", 5),
    ];
    // Too few reviews to be ranked, and a company of another country.
    const unranked = await insertCompany(db(), { name: "New", industry_section: "J" });
    await insertCompanyReview(db(), unranked, companyAt(5));
    await rated("Paris", 5, { country: "FR" });

    expect(await rankAllPeers(db())).toEqual({ groups: peerGroups().length, subjects: 6 + 1 + 6 + 1 });

    const three = await findCompany(db(), ids[2]!);
    const germany = three?.peers.find((peer) => peer.scope === "country");
    // Of the 5 other ranked companies in Germany, 2 are lower (One, Two): 40%; Three B ties and is not lower.
    expect(germany).toMatchObject({
      code: "DE",
      name: "Germany",
      subjects: 6,
      overall: { average: 3.1, percentile: 40 },
    });
    // Culture: One rates it 5, so only Two is lower.
    expect(germany?.criteria.culture).toEqual({ average: 3.7, percentile: 20 });
    // Industry J: One, Two, Three A, Three B, Five (Paris too): Four is in C. Of 5 others, One and Two are lower.
    const industry = three?.peers.find((peer) => peer.scope === "industry");
    expect(industry).toMatchObject({ code: "J", name: "Information and communication", subjects: 6 });
    expect(industry?.overall.percentile).toBe(40);

    expect((await findCompany(db(), ids[5]!))?.peers[0]?.overall.percentile).toBe(100);
    expect((await findCompany(db(), ids[0]!))?.peers[0]?.overall.percentile).toBe(0);
    // Section C has one ranked company: too few to compare; the country still compares.
    expect((await findCompany(db(), ids[4]!))?.peers.map((peer) => peer.scope)).toEqual(["country"]);
    // Not ranked itself, the new company still sees its groups' averages.
    expect((await findCompany(db(), unranked))?.peers[0]?.overall).toEqual({ average: 3.1, percentile: null });
  });

  it("ranks a manager within the country only, and only groups with at least five ranked managers", async () => {
    const companyId = await insertCompany(db(), { name: "Managers Corp" });
    const ids = [];
    for (const value of [1, 2, 3, 4, 5]) {
      const id = await insertManager(db(), { first_name: "M", last_name: `Value${value}` }, [companyId]);
      for (let i = 0; i < 3; i++) await insertManagerReview(db(), id, managerAt(value));
      ids.push(id);
    }
    await rankAllPeers(db());
    const top = await findManager(db(), ids[4]!);
    expect(top?.peers).toHaveLength(1);
    expect(top?.peers[0]).toMatchObject({
      scope: "country",
      code: "DE",
      subjects: 5,
      overall: { average: 3, percentile: 100 },
    });
    expect(top?.peers[0]?.criteria.vision).toEqual({ average: 3, percentile: 100 });

    // One fewer ranked manager: the group is too small to compare with, and its old figures go.
    await db().deleteFrom("managers").where("id", "=", ids[0]!).execute();
    await rankAllPeers(db());
    expect((await findManager(db(), ids[4]!))?.peers).toEqual([]);
    expect(
      await db().selectFrom("subject_percentiles").select("subject_id").where("subject", "=", "manager").execute(),
    ).toEqual([]);
  });

  it("a run ranks the groups ranked longest ago until its budget is spent, and a taken turn ranks nothing", async () => {
    for (let i = 0; i < 5; i++) await rated(`German ${i}`, 1 + i);
    for (let i = 0; i < 5; i++) await rated(`French ${i}`, 1 + i, { country: "FR", section: null });
    const groupCount = peerGroups().length;

    // A budget of one subject: each run stops after the first group with members, which it ranks whole (empty groups
    // on the way cost a count each). Three groups have members: Germany, France and section J.
    let groups = 0;
    for (let run = 1; run <= 3; run++) {
      const result = await rankPeers(db(), { budget: 1, nowMs: run });
      expect(result?.subjects).toBe(5);
      groups += result!.groups;
    }
    expect(groups).toBeLessThan(groupCount);
    // A budget that covers everything reaches every group in one run.
    expect(await rankPeers(db(), { budget: 1_000_000, nowMs: 10 })).toEqual({ groups: groupCount, subjects: 15 });
    const computed = () =>
      db()
        .selectFrom("peer_averages")
        .select(["scope_value", "computed_ms"])
        .where("subject", "=", "company")
        .where("scope", "=", "country")
        .where("criterion", "=", "overall")
        .where("scope_value", "in", ["DE", "FR"])
        .orderBy("scope_value")
        .execute();
    expect((await computed()).map((row) => Number(row.computed_ms))).toEqual([10, 10]);

    // The group ranked longest ago goes first.
    await db().updateTable("peer_averages").set({ computed_ms: 0 }).where("scope_value", "=", "DE").execute();
    expect(await rankPeers(db(), { budget: 1, nowMs: 20 })).toEqual({ groups: 1, subjects: 5 });
    expect((await computed()).map((row) => Number(row.computed_ms))).toEqual([20, 10]);

    await db()
      .insertInto("scheduled_jobs")
      .values({ name: "percentiles-test", next_run_ms: Date.now() + 60_000 })
      .execute();
    expect(await rankPeers(db(), { turn: { job: "percentiles-test", nextInMs: 1000 } })).toBeUndefined();
    expect((await computed()).map((row) => Number(row.computed_ms))).toEqual([20, 10]);
  });

  /**
   * 40 German companies of sections J and C with 3 to 6 reviews (so a country is read in slices of review count and
   * id) and sums drawn from a fixed sequence that repeats averages (ties), 5 French ones, and one below the minimum.
   */
  async function manyCompanies(): Promise<number[]> {
    const ids = [];
    let seed = 7;
    const next = () => (seed = (seed * 48_271) % 2_147_483_647);
    for (let i = 0; i < 45; i++) {
      const reviews = 3 + (i % 4);
      const sums = Object.fromEntries(companyCriteria.map((key) => [`sum_${key}`, reviews * (1 + (next() % 5))]));
      ids.push(
        await insertCompany(db(), {
          name: `Company ${i}`,
          country: i < 40 ? "DE" : "FR",
          industry_section: i % 3 === 0 ? "C" : "J",
          review_count: reviews,
          ...sums,
        }),
      );
    }
    await insertCompany(db(), { name: "Too new", review_count: 2, sum_culture: 10 });
    return ids;
  }

  /** Every stored percentile and group figure, in one order (averages to 9 places: sums of doubles may differ). */
  async function stored() {
    const percentiles = await db()
      .selectFrom("subject_percentiles")
      .selectAll()
      .orderBy("subject")
      .orderBy("subject_id")
      .orderBy("scope")
      .orderBy("criterion")
      .execute();
    const averages = await db()
      .selectFrom("peer_averages")
      .select(["subject", "scope", "scope_value", "criterion", "average", "subjects"])
      .orderBy("subject")
      .orderBy("scope")
      .orderBy("scope_value")
      .orderBy("criterion")
      .execute();
    return {
      percentiles,
      averages: averages.map((row) => ({
        ...row,
        average: row.average === null ? null : Number(Number(row.average).toFixed(9)),
      })),
    };
  }

  /** The groups those companies are in: Germany, France, sections J and C. */
  const rankTheirGroups = async (options: RankingOptions) => {
    for (const group of [
      { scope: "country", value: "DE" },
      { scope: "country", value: "FR" },
      { scope: "industry", value: "J" },
      { scope: "industry", value: "C" },
    ] as const) {
      await rankGroup(db(), { kind: "company", ...group }, 1, options);
    }
  };

  const emptied = async () => {
    await sql`delete from subject_percentiles`.execute(db());
    await sql`delete from peer_averages`.execute(db());
  };

  it("ranking in slices smaller than a group gives the percentiles of ranking it whole, and drops former members", async () => {
    const ids = await manyCompanies();
    await rankTheirGroups({ mode: "whole" });
    const whole = await stored();
    expect(whole.percentiles.length).toBe((40 + 5 + 45) * (companyCriteria.length + 1));
    await emptied();
    // 7 rows a statement: 6 reads of Germany's 40 members, one subject's 14 rows written at a time.
    await rankTheirGroups({ mode: "slices", sliceRows: 7 });
    expect(await stored()).toEqual(whole);

    // Over those rows: a company moves to France, one is deleted, one falls below the minimum, one rises.
    await db().updateTable("companies").set({ country: "FR" }).where("id", "=", ids[3]!).execute();
    await db().deleteFrom("companies").where("id", "=", ids[10]!).execute();
    await db().updateTable("companies").set({ review_count: 2 }).where("id", "=", ids[20]!).execute();
    await db().updateTable("companies").set({ sum_culture: 30 }).where("id", "=", ids[30]!).execute();
    await rankTheirGroups({ mode: "slices", sliceRows: 7 });
    const sliced = await stored();
    await emptied();
    await rankTheirGroups({ mode: "whole" });
    expect(sliced).toEqual(await stored());
    expect(sliced.percentiles.filter((row) => row.subject_id === ids[10] || row.subject_id === ids[20])).toEqual([]);
    expect(
      sliced.percentiles
        .filter((row) => row.subject_id === ids[3] && row.scope === "country")
        .map((row) => row.scope_value),
    ).toEqual(Array(companyCriteria.length + 1).fill("FR"));

    // A group that shrinks below the minimum loses every row, in slices too.
    await db().updateTable("companies").set({ review_count: 0 }).where("country", "=", "FR").execute();
    await rankGroup(db(), { kind: "company", scope: "country", value: "FR" }, 1, { mode: "slices", sliceRows: 2 });
    const french = await db()
      .selectFrom("subject_percentiles")
      .select("subject_id")
      .where("scope", "=", "country")
      .where("scope_value", "=", "FR")
      .execute();
    expect(french).toEqual([]);
  });

  it("in slices, the event loop turns between the steps of ranking one group", async () => {
    await manyCompanies();
    let turns = 0;
    let counting = true;
    const count = () => {
      turns += 1;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const before = turns;
    await rankGroup(db(), { kind: "company", scope: "country", value: "DE" }, 1, { mode: "slices", sliceRows: 7 });
    counting = false;
    // 6 reads, 14 sorts, 40 writes and a sweep: the loop turned at least once after each write.
    expect(turns - before).toBeGreaterThanOrEqual(40);
  });

  it("a group of thousands ranked in slices (its sort merged in runs) matches the whole ranking", async () => {
    // 5,000 companies of one country, review counts 3 to 40, sums that tie often: more than one sorted run (4,096).
    const rows = [];
    for (let i = 0; i < 5_000; i++) {
      const reviews = 3 + ((i * 7) % 38);
      const sums = Object.fromEntries(
        companyCriteria.map((key, index) => [`sum_${key}`, reviews + ((i * (index + 3)) % (4 * reviews + 1))]),
      );
      rows.push({
        name: `Bulk ${i}`,
        folded_name: `bulk ${i}`,
        name_skeleton: `bulk${i}`,
        country: "NL",
        state: "Utrecht",
        city: "Utrecht",
        website: "https://bulk.example",
        glassdoor_url: "https://reviews.example/bulk",
        website_key: `bulk.example#${i}`,
        industry: "Software",
        industry_section: null,
        recent_layoffs: null,
        created_on: "2025-06-01",
        review_count: reviews,
        ...sums,
      });
    }
    for (let from = 0; from < rows.length; from += 500) {
      await db()
        .insertInto("companies")
        .values(rows.slice(from, from + 500))
        .execute();
    }
    const netherlands = { kind: "company", scope: "country", value: "NL" } as const;
    expect(await rankGroup(db(), netherlands, 1, { mode: "whole" })).toBe(5_000);
    const whole = await stored();
    await emptied();
    expect(await rankGroup(db(), netherlands, 1, { mode: "slices", sliceRows: 300 })).toBe(5_000);
    expect(await stored()).toEqual(whole);
  });
});
