import { listQuerySchema, queryOf } from "#app/domain/api-input.server.ts";
import { companyLists } from "#app/domain/companies.server.ts";
import { apiRead, readOnlyAction } from "#app/http/api.server.ts";
import { readerFor } from "#app/http/read-database.server.ts";

/** GET /api/v1/companies/top?country=DE: a country's most reviewed and best rated companies (the search page's lists). */
export const loader = apiRead(async ({ request }) => {
  const { country } = listQuerySchema.parse(queryOf(request));
  return companyLists(readerFor(request), country);
});

export const action = readOnlyAction;
