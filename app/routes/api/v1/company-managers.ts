import { parseIdParam, pageQuerySchema, queryOf } from "#app/domain/api-input.server.ts";
import { findCompany } from "#app/domain/companies.server.ts";
import { companyManagers } from "#app/domain/managers.server.ts";
import { ApiProblem, apiRead, readOnlyAction } from "#app/http/api.server.ts";
import { messages } from "#app/lib/messages.ts";
import { readerFor } from "#app/http/read-database.server.ts";

/** GET /api/v1/companies/{id}/managers[?after=…]: the company's managers by name. */
export const loader = apiRead(async ({ params, request }) => {
  const id = parseIdParam("companyId", params.companyId);
  const { after } = pageQuerySchema.parse(queryOf(request));
  const db = readerFor(request);
  if (!(await findCompany(db, id))) throw new ApiProblem(404, messages.noCompanyFound);
  return companyManagers(db, id, after ?? null);
});

export const action = readOnlyAction;
