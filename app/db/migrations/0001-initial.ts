import { type CreateTableBuilder, type Kysely, sql } from "kysely";
import { isPostgres, jsonArrayLength } from "../dialect.ts";

// A migration is frozen: it spells out the columns and limits of its day, never the application's live lists (a
// criterion added to app/lib/ratings.ts must come with a migration of its own, not change what this one creates).
const maxReviewText = 5000;
const minReviewText = 6;
const maxTagsPerReview = 5;

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
const companyYesNo = ["again", "recommend", "has_oncall"];
const companyYesCounts = ["again", "recommend"];
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
const managerYesNo = ["recommended", "invested", "communication", "gives_credit", "again"];

function withId<T extends string>(db: Kysely<any>, table: CreateTableBuilder<T, never>) {
  return table.addColumn("id", "integer", (col) =>
    isPostgres(db) ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey(),
  );
}

function rating(table: CreateTableBuilder<any, any>, name: string) {
  return table.addColumn(name, "integer", (col) => col.notNull().check(sql`${sql.ref(name)} between 1 and 5`));
}

function yesNo(table: CreateTableBuilder<any, any>, name: string) {
  return table.addColumn(name, "integer", (col) => col.notNull().check(sql`${sql.ref(name)} in (0, 1)`));
}

function counter(table: CreateTableBuilder<any, any>, name: string) {
  return table.addColumn(name, "integer", (col) =>
    col
      .notNull()
      .defaultTo(0)
      .check(sql`${sql.ref(name)} >= 0`),
  );
}

function isoDate(name: string) {
  return sql`${sql.ref(name)} like '____-__-__'`;
}

/**
 * On SQLite, a table without an integer primary key still numbers its rows in insertion order (the rowid). Review
 * and receipt rows must not record the order they were written in (decision 0004), so they are WITHOUT ROWID and
 * stored in the order of their random keys.
 */
function withoutRowId(db: Kysely<any>, table: CreateTableBuilder<any, any>) {
  return isPostgres(db) ? table : table.modifyEnd(sql`without rowid`);
}

function reviewBody(db: Kysely<any>, table: CreateTableBuilder<any, any>) {
  return table
    .addColumn("review_text", "text", (col) =>
      col.notNull().check(sql`length(review_text) between ${sql.lit(minReviewText)} and ${sql.lit(maxReviewText)}`),
    )
    .addColumn("tags", "text", (col) =>
      col.notNull().check(sql`${jsonArrayLength(db, "tags")} between 1 and ${sql.lit(maxTagsPerReview)}`),
    )
    .addColumn("created_on", "text", (col) => col.notNull().check(isoDate("created_on")));
}

export async function up(db: Kysely<any>): Promise<void> {
  let companies = withId(db, db.schema.createTable("companies"))
    .addColumn("name", "text", (col) => col.notNull().check(sql`length(name) between 1 and 200`))
    .addColumn("folded_name", "text", (col) => col.notNull())
    .addColumn("country", "text", (col) => col.notNull().check(sql`length(country) = 2`))
    .addColumn("state", "text", (col) => col.notNull())
    .addColumn("city", "text", (col) => col.notNull())
    .addColumn("website", "text", (col) => col.notNull())
    .addColumn("glassdoor_url", "text", (col) => col.notNull())
    // Host and path of the website, folded: with folded_name, what makes two companies the same.
    .addColumn("website_key", "text", (col) => col.notNull())
    .addColumn("industry", "text", (col) => col.notNull())
    .addColumn("recent_layoffs", "text", (col) => col.check(isoDate("recent_layoffs")))
    .addColumn("is_demo", "integer", (col) =>
      col
        .notNull()
        .defaultTo(0)
        .check(sql`is_demo in (0, 1)`),
    )
    .addColumn("created_on", "text", (col) => col.notNull().check(isoDate("created_on")));
  companies = counter(companies, "review_count");
  for (const criterion of companyCriteria) companies = counter(companies, `sum_${criterion}`);
  for (const question of companyYesCounts) companies = counter(companies, `${question}_yes`);
  companies = companies.addColumn("latest_has_oncall", "integer", (col) =>
    col
      .notNull()
      .defaultTo(0)
      .check(sql`latest_has_oncall in (0, 1)`),
  );
  await companies.execute();

  let companyReviews = db.schema
    .createTable("company_reviews")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("company_id", "integer", (col) => col.notNull().references("companies.id").onDelete("cascade"));
  for (const criterion of companyCriteria) companyReviews = rating(companyReviews, criterion);
  for (const question of companyYesNo) companyReviews = yesNo(companyReviews, question);
  await withoutRowId(db, reviewBody(db, companyReviews)).execute();

  let managers = withId(db, db.schema.createTable("managers"))
    .addColumn("first_name", "text", (col) => col.notNull().check(sql`length(first_name) between 1 and 100`))
    .addColumn("last_name", "text", (col) => col.notNull().check(sql`length(last_name) between 1 and 100`))
    .addColumn("folded_name", "text", (col) => col.notNull())
    .addColumn("country", "text", (col) => col.notNull().check(sql`length(country) = 2`))
    .addColumn("state", "text", (col) => col.notNull())
    .addColumn("city", "text", (col) => col.notNull())
    .addColumn("title", "text", (col) => col.notNull())
    .addColumn("department", "text")
    .addColumn("linkedin_url", "text", (col) => col.notNull())
    .addColumn("is_demo", "integer", (col) =>
      col
        .notNull()
        .defaultTo(0)
        .check(sql`is_demo in (0, 1)`),
    )
    .addColumn("created_on", "text", (col) => col.notNull().check(isoDate("created_on")));
  managers = counter(managers, "review_count");
  for (const criterion of managerCriteria) managers = counter(managers, `sum_${criterion}`);
  for (const question of managerYesNo) managers = counter(managers, `${question}_yes`);
  await managers.execute();

  await db.schema
    .createTable("manager_companies")
    .addColumn("manager_id", "integer", (col) => col.notNull().references("managers.id").onDelete("cascade"))
    .addColumn("company_id", "integer", (col) => col.notNull().references("companies.id").onDelete("cascade"))
    .addPrimaryKeyConstraint("manager_companies_pk", ["manager_id", "company_id"])
    .execute();

  let managerReviews = db.schema
    .createTable("manager_reviews")
    .addColumn("id", "text", (col) => col.primaryKey())
    .addColumn("manager_id", "integer", (col) => col.notNull().references("managers.id").onDelete("cascade"));
  for (const criterion of managerCriteria) managerReviews = rating(managerReviews, criterion);
  for (const question of managerYesNo) managerReviews = yesNo(managerReviews, question);
  await withoutRowId(db, reviewBody(db, managerReviews)).execute();

  await withoutRowId(
    db,
    db.schema.createTable("review_receipts").addColumn("receipt", "text", (col) => col.primaryKey()),
  ).execute();
  await db.schema
    .createIndex("companies_identity")
    .on("companies")
    .columns(["folded_name", "website_key"])
    .unique()
    .execute();

  // Search: country equality, then a substring match on the folded name, ordered by name.
  await db.schema
    .createIndex("companies_country_name")
    .on("companies")
    .columns(["country", "folded_name", "id"])
    .execute();
  await db.schema
    .createIndex("managers_country_name")
    .on("managers")
    .columns(["country", "folded_name", "id"])
    .execute();
  await db.schema
    .createIndex("manager_companies_company")
    .on("manager_companies")
    .columns(["company_id", "manager_id"])
    .execute();
  // Reviews newest first, keyset-paginated.
  await db.schema
    .createIndex("company_reviews_newest")
    .on("company_reviews")
    .columns(["company_id", "created_on desc", "id desc"])
    .execute();
  await db.schema
    .createIndex("manager_reviews_newest")
    .on("manager_reviews")
    .columns(["manager_id", "created_on desc", "id desc"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    "review_receipts",
    "manager_reviews",
    "manager_companies",
    "managers",
    "company_reviews",
    "companies",
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
