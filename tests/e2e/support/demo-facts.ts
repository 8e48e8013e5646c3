import { openDatabase } from "#app/db/connection.server.ts";
import { paths } from "#app/lib/paths.ts";

/** Rows of the demo data that the browsing tests need, looked up in the server's own database. */
export type DemoFacts = {
  /** A company with more than one page of reviews (more than 10). */
  busyCompany: { id: number; name: string; country: string; website: string; reviewCount: number };
  /** One of the busy company's reviews, for the pages about a single review (reporting it). */
  busyCompanyReview: { id: string };
  quietCompany: { id: number; name: string };
  companyWithoutManagers: { id: number; name: string };
  /** A reviewed manager, with the company they work at. */
  manager: { id: number; firstName: string; lastName: string; country: string; companyId: number; companyName: string };
  managerWithoutReviews: { id: number };
};

function found<T>(row: T | undefined, what: string): T {
  if (row === undefined) throw new Error(`the demo data has no ${what}`);
  return row;
}

export async function readDemoFacts(databaseUrl: string): Promise<DemoFacts> {
  const { db, close } = openDatabase(databaseUrl, { poolSize: 1 });
  try {
    const busy = await db
      .selectFrom("companies")
      .select(["id", "name", "country", "website", "review_count"])
      .where("review_count", ">", 10)
      .where("review_count", "<=", 20)
      .orderBy("id")
      .executeTakeFirst();
    const quiet = await db
      .selectFrom("companies")
      .select(["id", "name"])
      .where("review_count", "=", 0)
      .orderBy("id")
      .executeTakeFirst();
    const lonely = await db
      .selectFrom("companies")
      .select(["id", "name"])
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom("manager_companies").select("manager_id").whereRef("company_id", "=", "companies.id"))),
      )
      .orderBy("id")
      .executeTakeFirst();
    const manager = await db
      .selectFrom("managers")
      .innerJoin("manager_companies", "manager_companies.manager_id", "managers.id")
      .innerJoin("companies", "companies.id", "manager_companies.company_id")
      .select([
        "managers.id",
        "managers.first_name",
        "managers.last_name",
        "managers.country",
        "companies.id as company_id",
        "companies.name as company_name",
      ])
      .where("managers.review_count", ">", 0)
      .orderBy("managers.id")
      .executeTakeFirst();
    const unreviewed = await db
      .selectFrom("managers")
      .select("id")
      .where("review_count", "=", 0)
      .orderBy("id")
      .executeTakeFirst();

    const { id, name, country, website, review_count } = found(busy, "company with 11 to 20 reviews");
    const review = await db
      .selectFrom("company_reviews")
      .select("id")
      .where("company_id", "=", id)
      .orderBy("id")
      .executeTakeFirst();
    const reviewed = found(manager, "reviewed manager");
    return {
      busyCompany: { id, name, country, website, reviewCount: review_count },
      busyCompanyReview: { id: String(found(review, "review of the busy company").id) },
      quietCompany: found(quiet, "company without reviews"),
      companyWithoutManagers: found(lonely, "company without managers"),
      manager: {
        id: reviewed.id,
        firstName: reviewed.first_name,
        lastName: reviewed.last_name,
        country: reviewed.country,
        companyId: reviewed.company_id,
        companyName: reviewed.company_name,
      },
      managerWithoutReviews: found(unreviewed, "manager without reviews"),
    };
  } finally {
    await close();
  }
}

/** A term that matches no demo company or manager name. */
export const unmatchedTerm = "zqxjv";

/** Every page of the site worth visiting with the demo data, with the HTTP status it must answer. */
export function everyPage(facts: DemoFacts): Array<{ path: string; status: number }> {
  const { busyCompany, manager } = facts;
  const country = busyCompany.country;
  return [
    { path: paths.home(), status: 200 },
    { path: paths.search(), status: 200 },
    // A country chosen, no term yet: its most reviewed and best rated lists.
    { path: paths.search({ country }), status: 200 },
    { path: paths.search({ kind: "manager", country: manager.country }), status: 200 },
    { path: paths.search({ country, q: busyCompany.name }), status: 200 },
    { path: paths.search({ country, q: unmatchedTerm }), status: 200 },
    { path: paths.search({ kind: "manager", country: manager.country, q: manager.firstName }), status: 200 },
    { path: paths.search({ kind: "manager", country, q: unmatchedTerm }), status: 200 },
    { path: paths.company(busyCompany.id), status: 200 },
    { path: paths.company(facts.quietCompany.id), status: 200 },
    { path: paths.company(999_999), status: 404 },
    { path: paths.companyManagers(manager.companyId), status: 200 },
    { path: paths.companyManagers(facts.companyWithoutManagers.id), status: 200 },
    { path: paths.manager(manager.id), status: 200 },
    { path: paths.manager(facts.managerWithoutReviews.id), status: 200 },
    { path: paths.manager(999_999), status: 404 },
    { path: paths.compare("company", [busyCompany.id, facts.quietCompany.id]), status: 200 },
    { path: `${paths.compare("company", [busyCompany.id])}&country=${country}&q=a`, status: 200 },
    { path: paths.compare("manager", [manager.id, facts.managerWithoutReviews.id]), status: 200 },
    { path: paths.landing(), status: 200 },
    { path: paths.guidelines(), status: 200 },
    { path: paths.privacy(), status: 200 },
    { path: paths.reportReview(facts.busyCompanyReview.id), status: 200 },
    { path: paths.moderationLog(), status: 200 },
    { path: paths.transparency(), status: 200 },
    { path: paths.reviewKey(), status: 200 },
    { path: "/no-such-page", status: 404 },
  ];
}
