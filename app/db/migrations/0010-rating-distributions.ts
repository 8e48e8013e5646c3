import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * Distributions of ratings and tags, kept as aggregates like the sums (docs/data-model.md). Frozen: it spells out its
 * own columns and carries its own copy of the criteria, and fills the new aggregates from the reviews that stand
 * (not removed) at the time it runs.
 *
 * - `sum_total_squares` on companies and managers: the sum over reviews of the square of each review's rating total
 *   (the sum of its criteria), so the spread of the reviews' overall scores, and an interval around their mean,
 *   come from stored numbers. Up to 65² per review: a bigint on PostgreSQL.
 * - `rating_counts`: how many reviews of a subject gave a criterion a value of 1 to 5; criterion `overall` counts the
 *   reviews' overall scores (the floored mean of their criteria, as a review card shows it).
 * - `tag_counts`: how many reviews of a subject carry a tag.
 * - `rating_total` on every review row: the sum of its criteria, set at publication, so a subject's reviews can be
 *   listed highest or lowest first, or by overall score, through an index (`<review table>_by_total`).
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
  { kind: "company", table: "companies", reviews: "company_reviews", key: "company_id", criteria: companyCriteria },
  { kind: "manager", table: "managers", reviews: "manager_reviews", key: "manager_id", criteria: managerCriteria },
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  for (const { table } of subjects) {
    await db.schema
      .alterTable(table)
      .addColumn("sum_total_squares", postgres ? "bigint" : "integer", (col) => col.notNull().defaultTo(0))
      .execute();
  }
  await db.schema
    .createTable("rating_counts")
    .addColumn("subject", "text", (col) => col.notNull().check(sql`subject in ('company', 'manager')`))
    .addColumn("subject_id", "integer", (col) => col.notNull())
    .addColumn("criterion", "text", (col) => col.notNull())
    .addColumn("value", "integer", (col) => col.notNull().check(sql`value between 1 and 5`))
    .addColumn("count", "integer", (col) => col.notNull())
    .addPrimaryKeyConstraint("rating_counts_pk", ["subject", "subject_id", "criterion", "value"])
    .execute();
  await db.schema
    .createTable("tag_counts")
    .addColumn("subject", "text", (col) => col.notNull().check(sql`subject in ('company', 'manager')`))
    .addColumn("subject_id", "integer", (col) => col.notNull())
    .addColumn("tag", "text", (col) => col.notNull())
    .addColumn("count", "integer", (col) => col.notNull())
    .addPrimaryKeyConstraint("tag_counts_pk", ["subject", "subject_id", "tag"])
    .execute();

  for (const { reviews, key, criteria } of subjects) {
    const rowTotal = sql.join(
      criteria.map((criterion) => sql.ref(criterion)),
      sql` + `,
    );
    await db.schema
      .alterTable(reviews)
      .addColumn("rating_total", "integer", (col) => col.notNull().defaultTo(0))
      .execute();
    await sql`update ${sql.table(reviews)} set rating_total = ${rowTotal}`.execute(db);
    await db.schema
      .createIndex(`${reviews}_by_total`)
      .on(reviews)
      .columns([key, "rating_total", "created_on", "id"])
      .execute();
  }

  for (const { kind, table, reviews, key, criteria } of subjects) {
    const total = sql.join(
      criteria.map((criterion) => sql.ref(`r.${criterion}`)),
      sql` + `,
    );
    const standing = sql`r.id not in (select review_id from removed_reviews)`;
    await sql`update ${sql.table(table)} set sum_total_squares = (
        select coalesce(sum((${total}) * (${total})), 0) from ${sql.table(reviews)} r
        where r.${sql.ref(key)} = ${sql.table(table)}.id and ${standing})`.execute(db);
    for (const criterion of criteria) {
      await sql`insert into rating_counts (subject, subject_id, criterion, value, count)
        select ${kind}, r.${sql.ref(key)}, ${criterion}, r.${sql.ref(criterion)}, count(*) from ${sql.table(reviews)} r
        where ${standing} group by r.${sql.ref(key)}, r.${sql.ref(criterion)}`.execute(db);
    }
    // Integer division of positive numbers floors on both engines.
    const overall = sql`(${total}) / ${sql.lit(criteria.length)}`;
    await sql`insert into rating_counts (subject, subject_id, criterion, value, count)
      select ${kind}, r.${sql.ref(key)}, 'overall', ${overall}, count(*) from ${sql.table(reviews)} r
      where ${standing} group by r.${sql.ref(key)}, ${overall}`.execute(db);
    const tags = postgres
      ? sql`cross join lateral json_array_elements_text(r.tags::json) as t(value)`
      : sql`cross join json_each(r.tags) as t`;
    await sql`insert into tag_counts (subject, subject_id, tag, count)
      select ${kind}, r.${sql.ref(key)}, t.value, count(*) from ${sql.table(reviews)} r ${tags}
      where ${standing} group by r.${sql.ref(key)}, t.value`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const { reviews } of subjects) {
    await db.schema.dropIndex(`${reviews}_by_total`).execute();
    await db.schema.alterTable(reviews).dropColumn("rating_total").execute();
  }
  await db.schema.dropTable("tag_counts").execute();
  await db.schema.dropTable("rating_counts").execute();
  for (const { table } of subjects) await db.schema.alterTable(table).dropColumn("sum_total_squares").execute();
}
