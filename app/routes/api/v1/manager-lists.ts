import { listQuerySchema, queryOf } from "#app/domain/api-input.server.ts";
import { managerLists } from "#app/domain/managers.server.ts";
import { apiRead, readOnlyAction } from "#app/http/api.server.ts";
import { readerFor } from "#app/http/read-database.server.ts";

/** GET /api/v1/managers/top?country=DE: a country's most reviewed and best rated managers (the search page's lists). */
export const loader = apiRead(async ({ request }) => {
  const { country } = listQuerySchema.parse(queryOf(request));
  return managerLists(readerFor(request), country);
});

export const action = readOnlyAction;
