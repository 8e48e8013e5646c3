import { industrySections } from "#app/lib/industries.ts";
import type { Faker } from "@faker-js/faker";
import type { Insertable, Kysely } from "kysely";
import { fold } from "#app/lib/fold.ts";
import { newReviewId } from "#app/lib/ids.server.ts";
import { nameSkeleton } from "#app/lib/names.server.ts";
import { websiteKey } from "#app/lib/urls.ts";
import {
  averageScore,
  companyCriteria,
  companyYesNo,
  managerCriteria,
  managerYesNo,
  ratingRank,
} from "#app/lib/ratings.ts";
import { companyTags, managerTags } from "#app/lib/tags.ts";
import { syncIdSequence } from "./dialect.ts";
import type {
  CompaniesTable,
  Database,
  ManagersTable,
  NewCompanyReview,
  NewManagerReview,
  MonthsTable,
  RatingCountsTable,
  SubjectKind,
  TagCountsTable,
} from "./schema.ts";

/**
 * Realistic demo companies, managers and reviews at any scale (10 to 1,000,000 companies and more). Every row
 * is marked is_demo and its links point at reserved `.example` domains, so nothing here can be mistaken for,
 * or lead to, a real company or person. Aggregates are computed as the rows are made, so they are exact.
 */

export type DemoOptions = {
  companies: number;
  seed?: number;
  /** Called after each batch with the number of companies written so far. */
  onProgress?: (companiesDone: number) => void;
};

export type DemoSummary = { companies: number; managers: number; companyReviews: number; managerReviews: number };

// Where demo employers are: weighted so the busiest countries have the most companies.
const countryWeights: Array<[string, number]> = [
  ["US", 40],
  ["GB", 8],
  ["DE", 8],
  ["IN", 7],
  ["CA", 5],
  ["FR", 5],
  ["AU", 3],
  ["NL", 3],
  ["ES", 3],
  ["BR", 3],
  ["SE", 2],
  ["PL", 2],
  ["IE", 2],
  ["JP", 2],
  ["MX", 2],
  ["CH", 1],
  ["IT", 1],
  ["SG", 1],
  ["NG", 1],
  ["ZA", 1],
];
/** The industries of demo companies: the ISIC sections most employers of an office job belong to. */
const industries = industrySections.filter((section) => "CDFGHIJKLMNOPQRS".includes(section.code));
const managerTitles = [
  "Engineering Manager",
  "Director of Engineering",
  "Head of Product",
  "Sales Manager",
  "Operations Manager",
  "Store Manager",
  "Team Lead",
  "VP of Marketing",
  "Nursing Supervisor",
  "Finance Manager",
  "Head of Design",
  "Customer Support Lead",
  "Warehouse Supervisor",
  "Project Manager",
  "Chief Technology Officer",
  "HR Business Partner",
];
const departments = ["Engineering", "Sales", "Operations", "Marketing", "Finance", "Support", "Design", "People"];
/** Real places of each demo country (region, city), so a demo company's address reads as one that exists. */
export const placesByCountry: Record<string, ReadonlyArray<readonly [string, string]>> = {
  US: [
    ["California", "San Francisco"],
    ["New York", "New York"],
    ["Texas", "Austin"],
    ["Illinois", "Chicago"],
    ["Washington", "Seattle"],
    ["Massachusetts", "Boston"],
    ["Georgia", "Atlanta"],
    ["Colorado", "Denver"],
  ],
  GB: [
    ["England", "London"],
    ["England", "Manchester"],
    ["Scotland", "Edinburgh"],
    ["Wales", "Cardiff"],
  ],
  DE: [
    ["Berlin", "Berlin"],
    ["Bavaria", "Munich"],
    ["Hamburg", "Hamburg"],
    ["Hesse", "Frankfurt"],
  ],
  IN: [
    ["Karnataka", "Bengaluru"],
    ["Maharashtra", "Mumbai"],
    ["Telangana", "Hyderabad"],
    ["Tamil Nadu", "Chennai"],
  ],
  CA: [
    ["Ontario", "Toronto"],
    ["British Columbia", "Vancouver"],
    ["Quebec", "Montreal"],
    ["Alberta", "Calgary"],
  ],
  FR: [
    ["Île-de-France", "Paris"],
    ["Auvergne-Rhône-Alpes", "Lyon"],
    ["Occitanie", "Toulouse"],
    ["Hauts-de-France", "Lille"],
  ],
  AU: [
    ["New South Wales", "Sydney"],
    ["Victoria", "Melbourne"],
    ["Queensland", "Brisbane"],
  ],
  NL: [
    ["North Holland", "Amsterdam"],
    ["South Holland", "Rotterdam"],
    ["Utrecht", "Utrecht"],
    ["North Brabant", "Eindhoven"],
  ],
  ES: [
    ["Community of Madrid", "Madrid"],
    ["Catalonia", "Barcelona"],
    ["Valencian Community", "Valencia"],
  ],
  BR: [
    ["São Paulo", "São Paulo"],
    ["Rio de Janeiro", "Rio de Janeiro"],
    ["Minas Gerais", "Belo Horizonte"],
  ],
  SE: [
    ["Stockholm County", "Stockholm"],
    ["Västra Götaland", "Gothenburg"],
    ["Skåne", "Malmö"],
  ],
  PL: [
    ["Masovia", "Warsaw"],
    ["Lesser Poland", "Kraków"],
    ["Lower Silesia", "Wrocław"],
  ],
  IE: [
    ["Leinster", "Dublin"],
    ["Munster", "Cork"],
    ["Connacht", "Galway"],
  ],
  JP: [
    ["Tokyo", "Tokyo"],
    ["Osaka", "Osaka"],
    ["Fukuoka", "Fukuoka"],
  ],
  MX: [
    ["Mexico City", "Mexico City"],
    ["Jalisco", "Guadalajara"],
    ["Nuevo León", "Monterrey"],
  ],
  CH: [
    ["Zurich", "Zurich"],
    ["Geneva", "Geneva"],
    ["Basel-Stadt", "Basel"],
  ],
  IT: [
    ["Lombardy", "Milan"],
    ["Lazio", "Rome"],
    ["Piedmont", "Turin"],
  ],
  SG: [["Central Region", "Singapore"]],
  NG: [
    ["Lagos", "Lagos"],
    ["Federal Capital Territory", "Abuja"],
  ],
  ZA: [
    ["Gauteng", "Johannesburg"],
    ["Western Cape", "Cape Town"],
  ],
};

const praise = [
  "Leadership explains the why behind decisions and listens when we push back.",
  "Colleagues are generous with their time and the onboarding was thorough.",
  "Pay is fair for the region and reviews happen on schedule.",
  "I learned more here in a year than in my previous three jobs.",
  "Flexible hours made it possible to balance work with family.",
  "Promotions are based on clear criteria that everyone can read.",
  "The team celebrates wins together and shares credit openly.",
  "Tooling is modern and we get time to fix what slows us down.",
];
const concerns = [
  "Priorities change every few weeks, which makes planning hard.",
  "Meetings eat most of the day and decisions still take too long.",
  "Workload spikes before every release and overtime is expected.",
  "Salary bands are not shared and raises feel arbitrary.",
  "There is little room to grow without switching teams.",
  "Feedback flows down but rarely up.",
  "Turnover is high and knowledge leaves with every departure.",
  "The office equipment is outdated and requests take months.",
];
const closers = [
  "Overall a place I would mention to friends, with caveats.",
  "Worth it early in a career; less so later on.",
  "Know what you are signing up for and it can work well.",
  "I left, but I still keep in touch with the people.",
];

function slug(text: string): string {
  return (
    fold(text)
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 40) || "company"
  );
}

function weightedCountry(faker: Faker): string {
  return faker.helpers.weightedArrayElement(countryWeights.map(([value, weight]) => ({ value, weight })));
}

/** Most companies have a handful of reviews; a few have thousands (about 10 on average). */
function reviewCountFor(faker: Faker): number {
  const roll = faker.number.float({ min: 0, max: 1 });
  if (roll < 0.0005) return faker.number.int({ min: 1000, max: 5000 });
  if (roll < 0.01) return faker.number.int({ min: 50, max: 300 });
  return Math.floor(-Math.log(1 - faker.number.float({ min: 0, max: 0.999 })) * 6.5);
}

function ratingAround(faker: Faker, mood: number): number {
  return Math.max(1, Math.min(5, Math.round(mood + faker.number.float({ min: -1.4, max: 1.4 }))));
}

function reviewText(faker: Faker, mood: number): string {
  const good = faker.helpers.arrayElements(praise, { min: mood >= 3 ? 1 : 0, max: mood >= 4 ? 3 : 1 });
  const bad = faker.helpers.arrayElements(concerns, { min: mood <= 3 ? 1 : 0, max: mood <= 2 ? 3 : 1 });
  const sentences = [...good, ...bad];
  if (sentences.length === 0) sentences.push(praise[0]!);
  return [...faker.helpers.shuffle(sentences), faker.helpers.arrayElement(closers)].join(" ");
}

function pastDay(faker: Faker): string {
  return faker.date.past({ years: 3 }).toISOString().slice(0, 10);
}

function companyReview(faker: Faker, companyId: number): NewCompanyReview {
  const mood = faker.number.float({ min: 1.2, max: 4.8 });
  const review: Record<string, unknown> = { id: newReviewId(), company_id: companyId };
  for (const criterion of companyCriteria) review[criterion] = ratingAround(faker, mood);
  review.rating_total = companyCriteria.reduce((sum, criterion) => sum + Number(review[criterion]), 0);
  for (const question of companyYesNo) {
    review[question] =
      question === "has_oncall" ? Number(faker.datatype.boolean(0.3)) : Number(faker.datatype.boolean(mood / 5));
  }
  review.review_text = reviewText(faker, mood);
  review.tags = JSON.stringify(faker.helpers.arrayElements(companyTags, { min: 1, max: 5 }));
  review.created_on = pastDay(faker);
  return review as NewCompanyReview;
}

function managerReview(faker: Faker, managerId: number): NewManagerReview {
  const mood = faker.number.float({ min: 1.2, max: 4.8 });
  const review: Record<string, unknown> = { id: newReviewId(), manager_id: managerId };
  for (const criterion of managerCriteria) review[criterion] = ratingAround(faker, mood);
  review.rating_total = managerCriteria.reduce((sum, criterion) => sum + Number(review[criterion]), 0);
  for (const question of managerYesNo) review[question] = Number(faker.datatype.boolean(mood / 5));
  review.review_text = reviewText(faker, mood);
  review.tags = JSON.stringify(faker.helpers.arrayElements(managerTags, { min: 1, max: 5 }));
  review.created_on = pastDay(faker);
  return review as NewManagerReview;
}

/**
 * Adds each review's values to its subject's stored sums and counts, and its ratings, tags and month to the subject's
 * distributions and monthly buckets in `batch`, as a publication does.
 */
function addToAggregates(
  batch: DemoBatch,
  subject: { kind: SubjectKind; id: number },
  target: Record<string, unknown>,
  reviews: Array<Record<string, unknown>>,
  criteria: readonly string[],
  yesNo: readonly string[],
): void {
  // Every row gets every column, so a multi-row insert never falls back to NULL for a missing key.
  target.review_count = reviews.length;
  target.sum_total_squares = 0;
  let ratingSum = 0;
  for (const criterion of criteria) target[`sum_${criterion}`] = 0;
  for (const question of yesNo) target[`${question}_yes`] = 0;
  const ratings = new Map<string, number>();
  const tags = new Map<string, number>();
  const months = new Map<string, Record<string, number>>();
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  for (const review of reviews) {
    const values = criteria.map((criterion) => Number(review[criterion]));
    const total = values.reduce((sum, value) => sum + value, 0);
    target.sum_total_squares = Number(target.sum_total_squares) + total * total;
    ratingSum += total;
    count(ratings, `overall\u0000${averageScore(values)}`);
    criteria.forEach((criterion, index) => {
      target[`sum_${criterion}`] = Number(target[`sum_${criterion}`]) + values[index]!;
      count(ratings, `${criterion}\u0000${values[index]}`);
    });
    for (const question of yesNo)
      target[`${question}_yes`] = Number(target[`${question}_yes`]) + Number(review[question]);
    for (const tag of JSON.parse(String(review.tags)) as string[]) count(tags, tag);
    const month = String(review.created_on).slice(0, 7);
    const bucket = months.get(month) ?? {
      review_count: 0,
      ...Object.fromEntries(criteria.map((key) => [`sum_${key}`, 0])),
    };
    bucket.review_count! += 1;
    criteria.forEach((criterion, index) => (bucket[`sum_${criterion}`]! += values[index]!));
    months.set(month, bucket);
  }
  target.rating_rank = ratingRank(ratingSum, reviews.length, criteria.length);
  const monthRows = subject.kind === "company" ? batch.companyMonths : batch.managerMonths;
  for (const [month, bucket] of months) monthRows.push({ subject_id: subject.id, month, ...bucket } as MonthsTable);
  for (const [key, value] of ratings) {
    const [criterion, rating] = key.split("\u0000");
    batch.ratingCounts.push({
      subject: subject.kind,
      subject_id: subject.id,
      criterion: criterion!,
      value: Number(rating),
      count: value,
    });
  }
  for (const [tag, value] of tags) {
    batch.tagCounts.push({ subject: subject.kind, subject_id: subject.id, tag, count: value });
  }
}

/** Inserts rows in chunks that stay under SQLite's bound-parameter limit. */
async function insertChunked<T extends keyof Database>(
  db: Kysely<Database>,
  table: T,
  rows: Array<Insertable<Database[T]>>,
): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0] as object).length;
  const chunk = Math.max(1, Math.floor(30_000 / columns));
  for (let start = 0; start < rows.length; start += chunk) {
    await db
      .insertInto(table)
      .values(rows.slice(start, start + chunk) as never)
      .execute();
  }
}

export type DemoBatch = {
  companies: Array<Insertable<CompaniesTable>>;
  companyReviews: NewCompanyReview[];
  managers: Array<Insertable<ManagersTable>>;
  links: Array<{ manager_id: number; company_id: number }>;
  managerReviews: NewManagerReview[];
  ratingCounts: Array<Insertable<RatingCountsTable>>;
  companyMonths: MonthsTable[];
  managerMonths: MonthsTable[];
  tagCounts: Array<Insertable<TagCountsTable>>;
};

/** A seeded faker, so the same seed always makes the same companies. */
export async function demoFaker(seed = 20261121): Promise<Faker> {
  const { Faker: FakerClass, en, base } = await import("@faker-js/faker");
  const faker = new FakerClass({ locale: [en, base] });
  faker.seed(seed);
  return faker;
}

/**
 * Makes `size` companies numbered from `ids.company` (and their managers from `ids.manager`) with their reviews and
 * exact aggregates; advances `ids` past what it used. Writes nothing: the caller inserts the rows.
 */
export function makeDemoBatch(faker: Faker, size: number, ids: { company: number; manager: number }): DemoBatch {
  const batch: DemoBatch = {
    companies: [],
    companyReviews: [],
    managers: [],
    links: [],
    managerReviews: [],
    ratingCounts: [],
    companyMonths: [],
    managerMonths: [],
    tagCounts: [],
  };
  for (let i = 0; i < size; i++) {
    const id = ids.company++;
    const name = faker.company.name();
    const country = weightedCountry(faker);
    const place = faker.helpers.arrayElement(placesByCountry[country] ?? [["", ""]]);
    const reviews = Array.from({ length: reviewCountFor(faker) }, () => companyReview(faker, id));
    const company: Record<string, unknown> = {
      id,
      name,
      folded_name: fold(name),
      name_skeleton: nameSkeleton(name),
      country,
      state: place[0],
      city: place[1],
      // The id keeps two demo companies of the same generated name distinct (name and website identify one).
      website: `https://${slug(name)}-${id}.example/`,
      website_key: websiteKey(`https://${slug(name)}-${id}.example/`),
      glassdoor_url: `https://reviews.example/${slug(name)}-${id}`,
      ...(({ code, title }) => ({ industry: title, industry_section: code }))(faker.helpers.arrayElement(industries)),
      recent_layoffs: faker.datatype.boolean(0.15) ? pastDay(faker) : null,
      is_demo: 1,
      created_on: pastDay(faker),
      latest_has_oncall: 0,
    };
    addToAggregates(batch, { kind: "company", id }, company, reviews as never, companyCriteria, ["again", "recommend"]);
    const newest = reviews.reduce<NewCompanyReview | undefined>(
      (latest, review) => (!latest || review.created_on > latest.created_on ? review : latest),
      undefined,
    );
    company.latest_has_oncall = newest?.has_oncall ?? 0;
    batch.companies.push(company as Insertable<CompaniesTable>);
    batch.companyReviews.push(...reviews);

    const managerCount = faker.number.int({ min: 0, max: 3 });
    for (let m = 0; m < managerCount; m++) {
      const managerId = ids.manager++;
      const firstName = faker.person.firstName();
      const lastName = faker.person.lastName();
      const mReviews = Array.from({ length: Math.round(reviewCountFor(faker) / 2) }, () =>
        managerReview(faker, managerId),
      );
      const manager: Record<string, unknown> = {
        id: managerId,
        first_name: firstName,
        last_name: lastName,
        folded_name: fold(`${firstName} ${lastName}`),
        name_skeleton: nameSkeleton(`${firstName} ${lastName}`),
        country,
        state: company.state,
        city: company.city,
        title: faker.helpers.arrayElement(managerTitles),
        department: faker.datatype.boolean(0.5) ? faker.helpers.arrayElement(departments) : null,
        linkedin_url: `https://linkedin.example/in/${slug(`${firstName}-${lastName}`)}-${managerId}`,
        is_demo: 1,
        created_on: pastDay(faker),
      };
      addToAggregates(
        batch,
        { kind: "manager", id: managerId },
        manager,
        mReviews as never,
        managerCriteria,
        managerYesNo,
      );
      batch.managers.push(manager as Insertable<ManagersTable>);
      batch.links.push({ manager_id: managerId, company_id: id });
      batch.managerReviews.push(...mReviews);
    }
  }
  return batch;
}

/** The ids the next demo rows take: one past the highest in the database. */
export async function nextDemoIds(db: Kysely<Database>): Promise<{ company: number; manager: number }> {
  const lastCompany = await db
    .selectFrom("companies")
    .select((eb) => eb.fn.max("id").as("id"))
    .executeTakeFirst();
  const lastManager = await db
    .selectFrom("managers")
    .select((eb) => eb.fn.max("id").as("id"))
    .executeTakeFirst();
  return { company: Number(lastCompany?.id ?? 0) + 1, manager: Number(lastManager?.id ?? 0) + 1 };
}

export async function generateDemoData(db: Kysely<Database>, options: DemoOptions): Promise<DemoSummary> {
  const faker = await demoFaker(options.seed);
  const ids = await nextDemoIds(db);
  const summary: DemoSummary = { companies: 0, managers: 0, companyReviews: 0, managerReviews: 0 };
  const batchSize = 500;

  for (let done = 0; done < options.companies; done += batchSize) {
    const batch = makeDemoBatch(faker, Math.min(batchSize, options.companies - done), ids);
    await db.transaction().execute(async (trx) => {
      await insertChunked(trx, "companies", batch.companies);
      await insertChunked(trx, "company_reviews", batch.companyReviews);
      await insertChunked(trx, "managers", batch.managers);
      await insertChunked(trx, "manager_companies", batch.links);
      await insertChunked(trx, "manager_reviews", batch.managerReviews);
      await insertChunked(trx, "rating_counts", batch.ratingCounts);
      await insertChunked(trx, "company_months", batch.companyMonths);
      await insertChunked(trx, "manager_months", batch.managerMonths);
      await insertChunked(trx, "tag_counts", batch.tagCounts);
    });
    summary.companies += batch.companies.length;
    summary.managers += batch.managers.length;
    summary.companyReviews += batch.companyReviews.length;
    summary.managerReviews += batch.managerReviews.length;
    options.onProgress?.(done + batch.companies.length);
  }

  await syncIdSequence(db, "companies");
  await syncIdSequence(db, "managers");
  return summary;
}

/** True when the database holds no company yet (the first start of a new install). */
export async function isEmpty(db: Kysely<Database>): Promise<boolean> {
  const row = await db.selectFrom("companies").select("id").limit(1).executeTakeFirst();
  return row === undefined;
}
