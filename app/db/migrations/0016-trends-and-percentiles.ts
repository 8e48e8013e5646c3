import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * Trends and comparisons (docs/decisions/0017-trends-and-comparisons-from-stored-figures.md). Frozen: it spells out
 * its own columns and carries its own copy of the criteria.
 *
 * - `company_months`, `manager_months`: per subject and month of publication ('YYYY-MM', the month a review's date
 *   shows), how many reviews that stand were published then and the sum of each criterion over them. Kept like the
 *   subject's own sums, by the transaction that publishes, removes, restores or withdraws a review; filled here from
 *   the reviews that stand.
 * - `peer_averages`: per kind of subject, group (a country, or for companies an industry section) and criterion
 *   (`overall` too), the mean of the ranked subjects' averages, how many were ranked and when the group was last
 *   computed. Written by the percentile job only.
 * - `subject_percentiles`: per subject, group scope and criterion, the share (0-100) of the group's other ranked
 *   subjects whose average is lower. Written by the percentile job only.
 * - `companies_by_section`: the companies of one industry section, as the job reads them.
 */
const companyCriteria = [
  "reputation",
  "opportunities",
  "facilities",
  "engagement",
  "social",
  "location",
  "culture",
  "leadership",
  "balance",
  "growth",
  "stability",
  "innovation",
  "transparency",
];
const managerCriteria = [
  "empathy",
  "reputation",
  "coaching",
  "decision_making",
  "trust",
  "conflict_resolution",
  "adaptability",
  "advocacy",
  "knowledge",
  "transparency",
  "time_management",
  "vision",
];

const subjects = [
  { months: "company_months", reviews: "company_reviews", key: "company_id", criteria: companyCriteria },
  { months: "manager_months", reviews: "manager_reviews", key: "manager_id", criteria: managerCriteria },
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  for (const { months, reviews, key, criteria } of subjects) {
    let table = db.schema
      .createTable(months)
      .addColumn("subject_id", "integer", (col) => col.notNull())
      .addColumn("month", "text", (col) => col.notNull())
      .addColumn("review_count", "integer", (col) => col.notNull());
    for (const criterion of criteria) {
      table = table.addColumn(`sum_${criterion}`, "integer", (col) => col.notNull());
    }
    await table.addPrimaryKeyConstraint(`${months}_pk`, ["subject_id", "month"]).execute();

    const sums = sql.join(criteria.map((criterion) => sql`coalesce(sum(r.${sql.ref(criterion)}), 0)`));
    const columns = sql.join(criteria.map((criterion) => sql.ref(`sum_${criterion}`)));
    await sql`insert into ${sql.table(months)} (subject_id, month, review_count, ${columns})
      select r.${sql.ref(key)}, substr(r.created_on, 1, 7), count(*), ${sums} from ${sql.table(reviews)} r
      where r.id not in (select review_id from removed_reviews)
      group by r.${sql.ref(key)}, substr(r.created_on, 1, 7)`.execute(db);
  }

  const subjectCheck = sql`subject in ('company', 'manager')`;
  const scopeCheck = sql`scope in ('country', 'industry')`;
  await db.schema
    .createTable("peer_averages")
    .addColumn("subject", "text", (col) => col.notNull().check(subjectCheck))
    .addColumn("scope", "text", (col) => col.notNull().check(scopeCheck))
    .addColumn("scope_value", "text", (col) => col.notNull())
    .addColumn("criterion", "text", (col) => col.notNull())
    .addColumn("average", postgres ? "double precision" : "real")
    .addColumn("subjects", "integer", (col) => col.notNull())
    .addColumn("computed_ms", "bigint", (col) => col.notNull())
    .addPrimaryKeyConstraint("peer_averages_pk", ["subject", "scope", "scope_value", "criterion"])
    .execute();
  await db.schema
    .createTable("subject_percentiles")
    .addColumn("subject", "text", (col) => col.notNull().check(subjectCheck))
    .addColumn("subject_id", "integer", (col) => col.notNull())
    .addColumn("scope", "text", (col) => col.notNull().check(scopeCheck))
    .addColumn("scope_value", "text", (col) => col.notNull())
    .addColumn("criterion", "text", (col) => col.notNull())
    .addColumn("percentile", "integer", (col) => col.notNull().check(sql`percentile between 0 and 100`))
    .addPrimaryKeyConstraint("subject_percentiles_pk", ["subject", "subject_id", "scope", "criterion"])
    .execute();
  await db.schema
    .createIndex("subject_percentiles_group")
    .on("subject_percentiles")
    .columns(["subject", "scope", "scope_value"])
    .execute();
  await db.schema.createIndex("companies_by_section").on("companies").columns(["industry_section", "id"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("companies_by_section").execute();
  await db.schema.dropTable("subject_percentiles").execute();
  await db.schema.dropTable("peer_averages").execute();
  for (const { months } of subjects) await db.schema.dropTable(months).execute();
}
