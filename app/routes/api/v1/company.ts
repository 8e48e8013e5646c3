import { parseIdParam } from "#app/domain/api-input.server.ts";
import { findCompany } from "#app/domain/companies.server.ts";
import { ApiProblem, apiRead, readOnlyAction } from "#app/http/api.server.ts";
import { messages } from "#app/lib/messages.ts";
import { readerFor } from "#app/http/read-database.server.ts";

/** GET /api/v1/companies/{id}: a company with its averaged ratings. */
export const loader = apiRead(async ({ params, request }) => {
  const company = await findCompany(readerFor(request), parseIdParam("companyId", params.companyId));
  if (!company) throw new ApiProblem(404, messages.noCompanyFound);
  return company;
});

export const action = readOnlyAction;
