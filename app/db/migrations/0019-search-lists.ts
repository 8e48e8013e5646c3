import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * The lists a search shows before a term is typed, "Most reviewed" and "Best rated" in a country
 * (docs/decisions/0032-search-that-starts-useful.md), read from indexes on kept aggregates, never by scanning.
 *
 * - `rating_rank` on companies and managers: the mean overall score drawn towards the middle of the scale as if each
 *   subject also had 5 reviews rating every criterion 3, (sum of all criteria + 3 × 5 × criteria) / (criteria ×
 *   (reviews + 5)); 0 without reviews. One 5-star review ranks a subject at 3.3, below one with twenty reviews of
 *   4.5 (4.2). Kept with the sums at every publication, removal and restore.
 * - `<table>_most_reviewed` (country, review_count, id) and `<table>_best_rated` (country, rating_rank, id): each list
 *   is the end of one index range.
 *
 * Frozen: it carries its own copy of the criteria and fills the rank from the sums as they stand when it runs.
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
  { table: "companies", criteria: companyCriteria },
  { table: "managers", criteria: managerCriteria },
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  for (const { table, criteria } of subjects) {
    await db.schema
      .alterTable(table)
      .addColumn("rating_rank", postgres ? "double precision" : "real", (col) => col.notNull().defaultTo(0))
      .execute();
    const sums = sql.join(
      criteria.map((key) => sql.ref(`sum_${key}`)),
      sql` + `,
    );
    const n = criteria.length;
    await sql`update ${sql.table(table)}
      set rating_rank = (${sums} + ${sql.lit(15 * n)}) * 1.0 / (${sql.lit(n)} * (review_count + 5))
      where review_count > 0`.execute(db);
    await db.schema
      .createIndex(`${table}_most_reviewed`)
      .on(table)
      .columns(["country", "review_count", "id"])
      .execute();
    await db.schema.createIndex(`${table}_best_rated`).on(table).columns(["country", "rating_rank", "id"]).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const { table } of subjects) {
    await db.schema.dropIndex(`${table}_best_rated`).execute();
    await db.schema.dropIndex(`${table}_most_reviewed`).execute();
    await db.schema.alterTable(table).dropColumn("rating_rank").execute();
  }
}
