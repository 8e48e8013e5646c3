import { type Kysely, type RawBuilder, sql, type Transaction } from "kysely";
import type { Database, PeerScope, SubjectKind } from "#app/db/schema.ts";
import { countryList, countryName } from "#app/lib/countries.server.ts";
import { env } from "#app/lib/env.server.ts";
import { industrySectionOf, industrySections } from "#app/lib/industries.ts";
import { peerLimits } from "#app/lib/limits.ts";
import { oneDecimal } from "#app/lib/statistics.ts";
import { claimTurn, type Turn } from "./jobs.server.ts";
import { companySubject, managerSubject, type Subject } from "./subjects.server.ts";

/**
 * Comparisons with peers (decision 0017): each subject's average on each criterion (and overall) ranked among its
 * country's, and a company's also among its industry section's, as "better than N% of companies in Germany". A
 * scheduled job computes them into `subject_percentiles` and `peer_averages`, a few groups per run, never a request.
 */

type Trx = Transaction<Database>;

/** A group of peers: the companies or managers of one country, or the companies of one industry section. */
export type PeerGroup = { kind: SubjectKind; scope: PeerScope; value: string };

/** The job's name in `scheduled_jobs`. */
export const percentileJob = "percentiles";

/** Every group there can be: companies and managers per country, companies per industry section. */
export function peerGroups(): PeerGroup[] {
  return [
    ...countryList.map((country) => ({ kind: "company" as const, scope: "country" as const, value: country.code })),
    ...industrySections.map((section) => ({
      kind: "company" as const,
      scope: "industry" as const,
      value: section.code,
    })),
    ...countryList.map((country) => ({ kind: "manager" as const, scope: "country" as const, value: country.code })),
  ];
}

const subjectOf = (kind: SubjectKind): Subject => (kind === "company" ? companySubject : managerSubject);

/** Fewest reviews for a subject to be ranked: never below the small-team minimum for managers. */
export function rankedMinReviews(kind: SubjectKind): number {
  return kind === "manager"
    ? Math.max(peerLimits.rankedMinReviews, env().MANAGER_MIN_REVIEWS)
    : peerLimits.rankedMinReviews;
}

/** A subject's average on `criterion` ("overall": the mean of all its criteria), from its stored sums. */
function averageOf(subject: Subject, criterion: string): RawBuilder<number> {
  if (criterion !== "overall") return sql<number>`(1.0 * ${sql.ref(`sum_${criterion}`)}) / review_count`;
  const total = sql.join(
    subject.criteria.map((key) => sql.ref(`sum_${key}`)),
    sql` + `,
  );
  return sql<number>`(1.0 * (${total})) / (review_count * ${sql.lit(subject.criteria.length)})`;
}

/** The members of a group that are ranked, as a where clause on the subject table. */
function membersOf(group: PeerGroup): RawBuilder<boolean> {
  const column = group.scope === "country" ? sql.ref("country") : sql.ref("industry_section");
  return sql<boolean>`${column} = ${group.value} and review_count >= ${rankedMinReviews(group.kind)}`;
}

/**
 * Ranks one group afresh: its old rows go, then per criterion each member's percentile, the share of the other
 * members whose average is strictly lower (ties share a rank), and the group's mean of averages. A group with fewer
 * than `groupMinSubjects` members keeps only its count. Answers how many subjects it ranked.
 */
export async function rankGroup(trx: Trx | Kysely<Database>, group: PeerGroup, nowMs: number): Promise<number> {
  const subject = subjectOf(group.kind);
  const table = sql.table(subject.table);
  const members = membersOf(group);
  const { kind, scope, value } = group;
  await trx
    .deleteFrom("subject_percentiles")
    .where("subject", "=", kind)
    .where("scope", "=", scope)
    .where("scope_value", "=", value)
    .execute();
  await trx
    .deleteFrom("peer_averages")
    .where("subject", "=", kind)
    .where("scope", "=", scope)
    .where("scope_value", "=", value)
    .execute();
  const counted = await sql<{ n: number }>`select count(*) as n from ${table} where ${members}`.execute(trx);
  const size = Number(counted.rows[0]?.n ?? 0);
  const criteria = ["overall", ...subject.criteria];
  if (size < peerLimits.groupMinSubjects) {
    await trx
      .insertInto("peer_averages")
      .values({
        subject: kind,
        scope,
        scope_value: value,
        criterion: "overall",
        average: null,
        subjects: size,
        computed_ms: nowMs,
      })
      .execute();
    return size;
  }
  for (const criterion of criteria) {
    const average = averageOf(subject, criterion);
    // Integer division of non-negative numbers floors on both engines: 72.9% reads "better than 72%".
    await sql`insert into subject_percentiles (subject, subject_id, scope, scope_value, criterion, percentile)
      select ${kind}, id, ${scope}, ${value}, ${criterion},
        (rank() over (order by ${average}) - 1) * 100 / (count(*) over () - 1)
      from ${table} where ${members}
      on conflict (subject, subject_id, scope, criterion)
      do update set scope_value = excluded.scope_value, percentile = excluded.percentile`.execute(trx);
    await sql`insert into peer_averages (subject, scope, scope_value, criterion, average, subjects, computed_ms)
      select ${kind}, ${scope}, ${value}, ${criterion}, avg(${average}), count(*), cast(${nowMs} as bigint)
      from ${table} where ${members}`.execute(trx);
  }
  return size;
}

/**
 * One run of the job: the groups ranked longest ago (never ranked first) are ranked again, in one transaction, until
 * `budget` subjects have been ranked (at least one group per run, each group whole). With `turn`, the run first
 * claims that turn of the schedule and answers undefined when another process took it. Cost per run: the groups'
 * members, read through an index on the group's column, once per criterion.
 */
export async function rankPeers(
  db: Kysely<Database>,
  options: { budget?: number; turn?: Turn; nowMs?: number } = {},
): Promise<{ groups: number; subjects: number } | undefined> {
  const budget = options.budget ?? peerLimits.subjectsPerRun;
  const nowMs = options.nowMs ?? Date.now();
  return db.transaction().execute(async (trx) => {
    if (options.turn && !(await claimTurn(trx, options.turn))) return undefined;
    const ranked = await trx
      .selectFrom("peer_averages")
      .select(["subject", "scope", "scope_value", "computed_ms"])
      .where("criterion", "=", "overall")
      .execute();
    const last = new Map(
      ranked.map((row) => [`${row.subject}/${row.scope}/${row.scope_value}`, Number(row.computed_ms)]),
    );
    const due = peerGroups()
      .map((group) => ({ group, at: last.get(`${group.kind}/${group.scope}/${group.value}`) ?? -1 }))
      .sort((a, b) => a.at - b.at);
    let groups = 0;
    let subjects = 0;
    for (const { group } of due) {
      if (groups > 0 && subjects >= budget) break;
      subjects += await rankGroup(trx, group, nowMs);
      groups += 1;
    }
    return { groups, subjects };
  });
}

/** Ranks every group once: for an operator's command and for tests. */
export async function rankAllPeers(db: Kysely<Database>): Promise<{ groups: number; subjects: number }> {
  const nowMs = Date.now();
  let groups = 0;
  let subjects = 0;
  await db.transaction().execute(async (trx) => {
    for (const group of peerGroups()) {
      subjects += await rankGroup(trx, group, nowMs);
      groups += 1;
    }
  });
  return { groups, subjects };
}

/** How a subject compares with one group of peers: the group's mean of averages and the subject's percentile. */
export type PeerComparison<C extends string = string> = {
  scope: PeerScope;
  code: string;
  name: string;
  subjects: number;
  overall: { average: number | null; percentile: number | null };
  criteria: Record<C, { average: number | null; percentile: number | null }>;
};

/**
 * A subject's comparisons: with its country's peers, and a company's with its industry section's, each only when
 * the group has at least `groupMinSubjects` ranked members. A percentile is null while the subject is not ranked
 * (too few reviews, or not yet ranked in its group). Reads at most two groups' and one subject's rows by key.
 */
export async function subjectPeers<C extends string>(
  db: Kysely<Database>,
  subject: Subject<C>,
  subjectId: number,
  where: { country: string; industrySection?: string | null },
): Promise<Array<PeerComparison<C>>> {
  const groups: Array<{ scope: PeerScope; value: string }> = [{ scope: "country", value: where.country }];
  if (subject.kind === "company" && where.industrySection) {
    groups.push({ scope: "industry", value: where.industrySection });
  }
  const [averages, percentiles] = await Promise.all([
    db
      .selectFrom("peer_averages")
      .select(["scope", "scope_value", "criterion", "average", "subjects"])
      .where("subject", "=", subject.kind)
      .where((eb) =>
        eb.or(groups.map((group) => eb.and([eb("scope", "=", group.scope), eb("scope_value", "=", group.value)]))),
      )
      .execute(),
    db
      .selectFrom("subject_percentiles")
      .select(["scope", "scope_value", "criterion", "percentile"])
      .where("subject", "=", subject.kind)
      .where("subject_id", "=", subjectId)
      .execute(),
  ]);
  const comparisons: Array<PeerComparison<C>> = [];
  for (const group of groups) {
    const rows = averages.filter((row) => row.scope === group.scope && row.scope_value === group.value);
    const size = Number(rows.find((row) => row.criterion === "overall")?.subjects ?? 0);
    if (size < peerLimits.groupMinSubjects) continue;
    const entry = (criterion: string) => {
      const average = rows.find((row) => row.criterion === criterion)?.average;
      const percentile = percentiles.find(
        (row) => row.scope === group.scope && row.scope_value === group.value && row.criterion === criterion,
      )?.percentile;
      return {
        average: average === null || average === undefined ? null : oneDecimal(Number(average)),
        percentile: percentile === undefined ? null : Number(percentile),
      };
    };
    comparisons.push({
      scope: group.scope,
      code: group.value,
      name:
        group.scope === "country" ? countryName(group.value) : (industrySectionOf(group.value)?.title ?? group.value),
      subjects: size,
      overall: entry("overall"),
      criteria: Object.fromEntries(subject.criteria.map((key) => [key, entry(key)])) as PeerComparison<C>["criteria"],
    });
  }
  return comparisons;
}
