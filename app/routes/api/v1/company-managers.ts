import { database } from "#app/db/database.server.ts";
import { parseIdParam, pageQuerySchema, queryOf } from "#app/domain/api-input.server.ts";
import { findCompany } from "#app/domain/companies.server.ts";
import { companyManagers } from "#app/domain/managers.server.ts";
import { ApiProblem, apiRead, readOnlyAction } from "#app/http/api.server.ts";
import { messages } from "#app/lib/messages.ts";

/** GET /api/v1/companies/{id}/managers[?after=…]: the company's managers by name. */
export const loader = apiRead(async ({ params, request }) => {
  const id = parseIdParam("companyId", params.companyId);
  const { after } = pageQuerySchema.parse(queryOf(request));
  if (!(await findCompany(database().db, id))) throw new ApiProblem(404, messages.noCompanyFound);
  return companyManagers(database().db, id, after ?? null);
});

export const action = readOnlyAction;
