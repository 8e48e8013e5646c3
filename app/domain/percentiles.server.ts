import { type Kysely, type RawBuilder, sql, type Transaction } from "kysely";
import type { Database, PeerScope, SubjectKind } from "#app/db/schema.ts";
import { isPostgres } from "#app/db/dialect.ts";
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

/** Deletes a group's rows of `subject_percentiles`, or of `peer_averages`. */
const deletePercentiles = (db: Trx | Kysely<Database>, { kind, scope, value }: PeerGroup) =>
  db
    .deleteFrom("subject_percentiles")
    .where("subject", "=", kind)
    .where("scope", "=", scope)
    .where("scope_value", "=", value);
const deleteAverages = (db: Trx | Kysely<Database>, { kind, scope, value }: PeerGroup) =>
  db
    .deleteFrom("peer_averages")
    .where("subject", "=", kind)
    .where("scope", "=", scope)
    .where("scope_value", "=", value);

/**
 * How a group is ranked. `whole`: one transaction, one window-function statement per criterion over all the
 * members; readers see the group change at once, but on SQLite each statement holds the event loop and the write
 * lock for as long as it takes. `slices`: a slice of members read, or a slice of rows written, per statement, the
 * ranks computed in between in memory, the event loop let go after every step (decision 0017).
 */
export type RankingMode = "whole" | "slices";

export type RankingOptions = {
  /** PostgreSQL ranks whole groups (its driver does not hold the event loop), SQLite in slices. */
  mode?: RankingMode;
  /** Subjects read, or percentile rows written, per statement in `slices` mode. */
  sliceRows?: number;
};

/** The next turn of the event loop: on SQLite every statement runs on it, so a sliced job lets requests in between. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Paces work done in memory over a whole group (sums, sorts, orders: each linear or n log n in its size): `due`
 * counts units of work and, every 1,024 of them, answers whether `stepMs` have passed since the event loop last
 * turned; the caller then awaits `turn`. So no step of the job outlasts a statement of `sliceRows` rows by much,
 * however large the group.
 */
class Pace {
  private since = performance.now();
  private work = 0;
  private readonly stepMs: number;
  constructor(stepMs: number) {
    this.stepMs = stepMs;
  }
  due(units = 1): boolean {
    this.work += units;
    if (this.work < 1024) return false;
    this.work = 0;
    return performance.now() - this.since >= this.stepMs;
  }
  async turn(): Promise<void> {
    await nextTurn();
    this.since = performance.now();
  }
}

/** `values` sorted ascending: runs sorted natively, then merged pairwise, at the pace of `pace`. */
async function sortedAtPace(values: Float64Array, pace: Pace): Promise<Float64Array> {
  const size = values.length;
  const run = 4096;
  let from = values.slice();
  for (let start = 0; start < size; start += run) {
    from.subarray(start, start + run).sort();
    if (pace.due(run)) await pace.turn();
  }
  let to = new Float64Array(size);
  for (let width = run; width < size; width *= 2) {
    for (let low = 0; low < size; low += 2 * width) {
      const middle = Math.min(low + width, size);
      const high = Math.min(low + 2 * width, size);
      let left = low;
      let right = middle;
      for (let next = low; next < high; next++) {
        to[next] = right >= high || (left < middle && from[left]! <= from[right]!) ? from[left++]! : from[right++]!;
        if (pace.due()) await pace.turn();
      }
    }
    [from, to] = [to, from];
  }
  return from;
}

/**
 * Ranks one group afresh: per criterion each member's percentile, the share of the other members whose average is
 * strictly lower (ties share a rank), and the group's mean of averages; rows of subjects no longer in the group go.
 * A group with fewer than `groupMinSubjects` members keeps only its count. Answers how many subjects it ranked.
 */
export async function rankGroup(
  db: Kysely<Database>,
  group: PeerGroup,
  nowMs: number,
  options: RankingOptions = {},
): Promise<number> {
  const mode = options.mode ?? (isPostgres(db) ? "whole" : "slices");
  if (mode === "whole") return db.transaction().execute((trx) => rankGroupWhole(trx, group, nowMs));
  return rankGroupInSlices(db, group, nowMs, options.sliceRows ?? peerLimits.sliceRows);
}

/** `rankGroup` in one transaction, one statement per criterion over all the members. */
async function rankGroupWhole(trx: Trx, group: PeerGroup, nowMs: number): Promise<number> {
  const subject = subjectOf(group.kind);
  const table = sql.table(subject.table);
  const members = membersOf(group);
  const { kind, scope, value } = group;
  await deletePercentiles(trx, group).execute();
  await deleteAverages(trx, group).execute();
  const counted = await sql<{ n: number }>`select count(*) as n from ${table} where ${members}`.execute(trx);
  const size = Number(counted.rows[0]?.n ?? 0);
  const criteria = ["overall", ...subject.criteria];
  if (size < peerLimits.groupMinSubjects) {
    await trx
      .insertInto("peer_averages")
      .values(countOnly(group, size, nowMs))
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

/** The one `peer_averages` row of a group too small to compare with: its count. */
function countOnly({ kind, scope, value }: PeerGroup, size: number, nowMs: number) {
  return {
    subject: kind,
    scope,
    scope_value: value,
    criterion: "overall",
    average: null,
    subjects: size,
    computed_ms: nowMs,
  };
}

/** A group's ranked members as read: ids, review counts and per criterion of the subject its sum, by member. */
type Members = { ids: number[]; counts: number[]; sums: number[][] };

/**
 * The group's ranked members, `sliceRows` at a time, each slice read by seeking an index that starts with the
 * group's column, the event loop let go between slices. A country's members come in the order of
 * `*_most_reviewed` (country, review_count, id): the rest of the current review count after the last id, then the
 * next counts (SQLite seeks on the first column of a row value only, so `(review_count, id) > (?, ?)` would scan
 * the whole count again for every slice). An industry section's come in the order of `companies_by_section`
 * (industry_section, id). The slices are separate reads: a subject published meanwhile is read with its sums of that
 * moment.
 */
async function readMembers(db: Kysely<Database>, group: PeerGroup, sliceRows: number): Promise<Members> {
  const subject = subjectOf(group.kind);
  const columns = sql.join([
    sql.ref("id"),
    sql.ref("review_count"),
    ...subject.criteria.map((key) => sql.ref(`sum_${key}`)),
  ]);
  const read = (where: RawBuilder<unknown>, limit: number) =>
    sql<Record<string, number>>`select ${columns} from ${sql.table(subject.table)} where ${where} limit ${limit}`
      .execute(db)
      .then((result) => result.rows);
  const members: Members = { ids: [], counts: [], sums: subject.criteria.map(() => []) };
  let after = { count: rankedMinReviews(group.kind), id: 0 };
  for (;;) {
    let rows;
    if (group.scope === "country") {
      rows = await read(
        sql`country = ${group.value} and review_count = ${after.count} and id > ${after.id} order by id`,
        sliceRows,
      );
      if (rows.length < sliceRows) {
        const next = sql`country = ${group.value} and review_count > ${after.count} order by review_count, id`;
        rows = [...rows, ...(await read(next, sliceRows - rows.length))];
      }
    } else {
      rows = await read(sql`${membersOf(group)} and id > ${after.id} order by id`, sliceRows);
    }
    for (const row of rows) {
      members.ids.push(Number(row.id));
      members.counts.push(Number(row.review_count));
      subject.criteria.forEach((key, index) => members.sums[index]!.push(Number(row[`sum_${key}`])));
    }
    const last = rows.at(-1);
    if (!last || rows.length < sliceRows) return members;
    after = { count: Number(last.review_count), id: Number(last.id) };
    await nextTurn();
  }
}

/** How many of `sorted` (ascending) are strictly below `value`. */
function countBelow(sorted: Float64Array, value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * `rankGroup` in slices. The members are read a slice at a time; per criterion their averages, computed in doubles
 * as SQLite does (a ratio of small integers: equal ratios give equal doubles, different ones different doubles), are
 * sorted once, and each member's percentile is the number of averages strictly below its own, found by binary
 * search. The rows are written `sliceRows` at a time, every criterion of one subject in the same statement (rows that
 * did not change are left as they are), then the group's rows of subjects no longer in it are deleted a slice at a
 * time, and last, in one short transaction, the group's averages and count with the time of this ranking.
 */
async function rankGroupInSlices(
  db: Kysely<Database>,
  group: PeerGroup,
  nowMs: number,
  sliceRows: number,
): Promise<number> {
  const subject = subjectOf(group.kind);
  const { kind, scope, value } = group;
  const members = await readMembers(db, group, sliceRows);
  const size = members.ids.length;
  const ranked = size >= peerLimits.groupMinSubjects;
  const criteria = ["overall", ...subject.criteria];
  const pace = new Pace(peerLimits.stepMs);
  // Per criterion (overall first), each member's average.
  const averages = criteria.map(() => new Float64Array(size));
  for (let member = 0; member < size; member++) {
    const count = members.counts[member]!;
    let total = 0;
    members.sums.forEach((sums, index) => {
      total += sums[member]!;
      averages[index + 1]![member] = sums[member]! / count;
    });
    averages[0]![member] = total / (count * subject.criteria.length);
    if (pace.due(criteria.length)) await pace.turn();
  }
  // The members in order of id (each id times 2^21 plus its position: exact in a double for ids below 2^31 and
  // groups of up to 2 million), so the writes touch neighbouring pages and the sweep can look ids up.
  const shift = 2 ** 21;
  if (size > shift) throw new Error(`A group of ${size} subjects is more than the peer ranking sorts.`);
  const keys = new Float64Array(size);
  for (let position = 0; position < size; position++) {
    keys[position] = members.ids[position]! * shift + position;
    if (pace.due()) await pace.turn();
  }
  const sortedKeys = await sortedAtPace(keys, pace);
  const byId = new Uint32Array(size);
  const ids = new Float64Array(size);
  for (let index = 0; index < size; index++) {
    byId[index] = sortedKeys[index]! % shift;
    ids[index] = Math.floor(sortedKeys[index]! / shift);
    if (pace.due()) await pace.turn();
  }
  const means: number[] = [];
  if (ranked) {
    const sorted: Float64Array[] = [];
    for (const list of averages) {
      sorted.push(await sortedAtPace(list, pace));
      let sum = 0;
      for (const average of list) sum += average;
      means.push(sum / size);
      if (pace.due(size)) await pace.turn();
    }
    // Every criterion of a subject in the same statement: a page never mixes two rankings for one subject.
    const perStatement = Math.max(1, Math.floor(sliceRows / criteria.length));
    for (let from = 0; from < size; from += perStatement) {
      const rows = [];
      for (const member of byId.subarray(from, from + perStatement)) {
        for (const [index, criterion] of criteria.entries()) {
          const below = countBelow(sorted[index]!, averages[index]![member]!);
          // Floored: 72.9% reads "better than 72%".
          const percentile = Math.floor((below * 100) / (size - 1));
          rows.push({
            subject: kind,
            subject_id: members.ids[member]!,
            scope,
            scope_value: value,
            criterion,
            percentile,
          });
        }
      }
      await db
        .insertInto("subject_percentiles")
        .values(rows)
        .onConflict((conflict) =>
          conflict
            .columns(["subject", "subject_id", "scope", "criterion"])
            .doUpdateSet((eb) => ({
              scope_value: eb.ref("excluded.scope_value"),
              percentile: eb.ref("excluded.percentile"),
            }))
            .where((eb) =>
              eb.or([
                eb("subject_percentiles.scope_value", "<>", eb.ref("excluded.scope_value")),
                eb("subject_percentiles.percentile", "<>", eb.ref("excluded.percentile")),
              ]),
            ),
        )
        .execute();
      await pace.turn();
    }
  }
  await removeFormerMembers(db, group, ranked ? ids : new Float64Array(), sliceRows);
  await db.transaction().execute(async (trx) => {
    await deleteAverages(trx, group).execute();
    if (!ranked)
      return trx
        .insertInto("peer_averages")
        .values(countOnly(group, size, nowMs))
        .execute();
    return trx
      .insertInto("peer_averages")
      .values(
        criteria.map((criterion, index) => ({
          subject: kind,
          scope,
          scope_value: value,
          criterion,
          average: means[index]!,
          subjects: size,
          computed_ms: nowMs,
        })),
      )
      .execute();
  });
  await nextTurn();
  return size;
}

/**
 * Deletes the group's percentiles of subjects not in `keep` (ids, ascending): walks the group's `overall` rows in
 * order of subject (`subject_percentiles_group`, migration 0023), `sliceRows` at a time, and deletes every row of
 * those that left.
 */
async function removeFormerMembers(
  db: Kysely<Database>,
  group: PeerGroup,
  keep: Float64Array,
  sliceRows: number,
): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom("subject_percentiles")
      .select("subject_id")
      .where("subject", "=", group.kind)
      .where("scope", "=", group.scope)
      .where("scope_value", "=", group.value)
      .where("criterion", "=", "overall")
      .where("subject_id", ">", after)
      .orderBy("subject_id")
      .limit(sliceRows)
      .execute();
    const gone = rows.map((row) => Number(row.subject_id)).filter((id) => keep[countBelow(keep, id)] !== id);
    if (gone.length > 0) await deletePercentiles(db, group).where("subject_id", "in", gone).execute();
    if (rows.length < sliceRows) return;
    after = Number(rows.at(-1)!.subject_id);
    await nextTurn();
  }
}

/**
 * One run of the job: the groups ranked longest ago (never ranked first) are ranked again, each whole (in slices on
 * SQLite), until `budget` subjects have been ranked (at least one group per run). With `turn`, the run first claims
 * that turn of the schedule, in a transaction of its own, and answers undefined when another process took it; a run
 * that stops midway leaves its unfinished group ranked longest ago, so the next turn takes it first. Cost per run:
 * the groups' members, read through an index on the group's column, once.
 */
export async function rankPeers(
  db: Kysely<Database>,
  options: { budget?: number; turn?: Turn; nowMs?: number } & RankingOptions = {},
): Promise<{ groups: number; subjects: number } | undefined> {
  const budget = options.budget ?? peerLimits.subjectsPerRun;
  const nowMs = options.nowMs ?? Date.now();
  const { turn } = options;
  if (turn && !(await db.transaction().execute((trx) => claimTurn(trx, turn)))) return undefined;
  const ranked = await db
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
    subjects += await rankGroup(db, group, nowMs, options);
    groups += 1;
  }
  return { groups, subjects };
}

/** Ranks every group once, each as `rankPeers` does: for an operator's command and for tests. */
export async function rankAllPeers(
  db: Kysely<Database>,
  options: RankingOptions = {},
): Promise<{ groups: number; subjects: number }> {
  const nowMs = Date.now();
  let groups = 0;
  let subjects = 0;
  for (const group of peerGroups()) {
    subjects += await rankGroup(db, group, nowMs, options);
    groups += 1;
  }
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
