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
import { peerGroups, rankAllPeers, rankPeers } from "./percentiles.server.ts";

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
});
