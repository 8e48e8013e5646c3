import { loadComparison, parseCompareQuery } from "#app/domain/compare.server.ts";
import { ApiProblem, apiRead, readOnlyAction } from "#app/http/api.server.ts";
import { readerFor } from "#app/http/read-database.server.ts";
import { compareMessages } from "#app/lib/messages.ts";

/** GET /api/v1/compare?company=1&company=2 (or manager=…): 2 to 4 profiles side by side, in the order asked. */
export const loader = apiRead(async ({ request }) => {
  const query = parseCompareQuery(new URL(request.url).searchParams);
  if (!query.ok) throw new ApiProblem(query.status, query.message);
  const { comparison, missing } = await loadComparison(readerFor(request), query.selection);
  if (missing !== undefined) throw new ApiProblem(404, compareMessages.notFound(query.selection.kind, missing));
  return comparison;
});

export const action = readOnlyAction;
