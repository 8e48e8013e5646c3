import { database } from "#app/db/database.server.ts";
import { newManagerBodySchema, queryOf, searchQuerySchema } from "#app/domain/api-input.server.ts";
import { hasNullValues } from "#app/domain/contribution-input.server.ts";
import { addManager, authorOf } from "#app/domain/contributions.server.ts";
import { searchManagers } from "#app/domain/managers.server.ts";
import { readRawBody } from "#app/http/api-request.server.ts";
import { apiAccountKey, ApiProblem, apiRead, apiWrite, submissionAnswer } from "#app/http/api.server.ts";
import { contributionMessages } from "#app/lib/messages.ts";
import { publicationSettings } from "#app/domain/publication.server.ts";
import { readerFor } from "#app/http/read-database.server.ts";

/** GET /api/v1/managers?country=US&q=jane[&after=…]: first name, last name or both. */
export const loader = apiRead(async ({ request }) => {
  const query = searchQuerySchema.parse(queryOf(request));
  return searchManagers(readerFor(request), { country: query.country, term: query.q, after: query.after ?? null });
});

/** POST /api/v1/managers: a manager at an existing (company_id) or new (company) company, with the first review. */
export const action = apiWrite(
  async ({ request, author }) => {
    const raw = await readRawBody(request);
    if (!raw.ok) throw raw.response;
    const company = (raw.data as { company?: unknown } | null)?.company;
    if (company !== undefined && hasNullValues(company)) throw new ApiProblem(400, contributionMessages.payloadNulls);
    const body = newManagerBodySchema.parse(raw.data);
    const submission = await addManager(
      database().db,
      authorOf({ id: author.userId }, await apiAccountKey(request, author)),
      {
        company: body.company_id !== undefined ? { id: body.company_id } : { company: body.company! },
        manager: body.manager,
        review: body.review,
      },
      publicationSettings(),
      body.verification_token || undefined,
    );
    return submissionAnswer(submission, (id) => ({ id }), "new-manager");
  },
  { contribution: "manager" },
);
