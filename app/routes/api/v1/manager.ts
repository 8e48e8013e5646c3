import { parseIdParam } from "#app/domain/api-input.server.ts";
import { findManager } from "#app/domain/managers.server.ts";
import { ApiProblem, apiRead, readOnlyAction } from "#app/http/api.server.ts";
import { messages } from "#app/lib/messages.ts";
import { readerFor } from "#app/http/read-database.server.ts";

/** GET /api/v1/managers/{id}: a manager with their companies and averaged ratings. */
export const loader = apiRead(async ({ params, request }) => {
  const manager = await findManager(readerFor(request), parseIdParam("managerId", params.managerId));
  if (!manager) throw new ApiProblem(404, messages.noManagerProfileFound);
  return manager;
});

export const action = readOnlyAction;
