import { findCompany } from "#app/domain/companies.server.ts";
import { findManager } from "#app/domain/managers.server.ts";
import type { CompanyProfile, ManagerProfile } from "#app/domain/public-shapes.server.ts";
import { parseId } from "#app/lib/params.ts";
import { readerFor } from "#app/http/read-database.server.ts";

/** The company a page is about, named by `?company=ID` (decision 0001), or undefined for a missing or bad id. */
export async function companyOfQuery(request: Request): Promise<CompanyProfile | undefined> {
  const id = parseId(new URL(request.url).searchParams.get("company"));
  return id === undefined ? undefined : findCompany(readerFor(request), id);
}

/** The manager a page is about, named by `?manager=ID`, or undefined for a missing or bad id. */
export async function managerOfQuery(request: Request): Promise<ManagerProfile | undefined> {
  const id = parseId(new URL(request.url).searchParams.get("manager"));
  return id === undefined ? undefined : findManager(readerFor(request), id);
}
