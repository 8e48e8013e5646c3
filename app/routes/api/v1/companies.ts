import { database } from "#app/db/database.server.ts";
import { newCompanyBodySchema, queryOf, searchQuerySchema } from "#app/domain/api-input.server.ts";
import { searchCompanies } from "#app/domain/companies.server.ts";
import { hasNullValues } from "#app/domain/contribution-input.server.ts";
import { addCompany, authorOf } from "#app/domain/contributions.server.ts";
import { readRawBody } from "#app/http/api-request.server.ts";
import { apiAccountKey, ApiProblem, apiRead, apiWrite, submissionAnswer } from "#app/http/api.server.ts";
import { contributionMessages } from "#app/lib/messages.ts";
import { publicationSettings } from "#app/domain/publication.server.ts";
import { readerFor } from "#app/http/read-database.server.ts";

/** GET /api/v1/companies?country=US&q=acme[&after=…]: the same search as the search page. */
export const loader = apiRead(async ({ request }) => {
  const query = searchQuerySchema.parse(queryOf(request));
  return searchCompanies(readerFor(request), { country: query.country, term: query.q, after: query.after ?? null });
});

/** POST /api/v1/companies: a company with its first review. */
export const action = apiWrite(
  async ({ request, author }) => {
    const raw = await readRawBody(request);
    if (!raw.ok) throw raw.response;
    // A company payload with null values is refused as a whole, with this message.
    if (hasNullValues((raw.data as { company?: unknown } | null)?.company ?? null)) {
      throw new ApiProblem(400, contributionMessages.payloadNulls);
    }
    const body = newCompanyBodySchema.parse(raw.data);
    const submission = await addCompany(
      database().db,
      authorOf({ id: author.userId }, await apiAccountKey(request, author)),
      body.company,
      body.review,
      publicationSettings(),
      body.verification_token || undefined,
    );
    return submissionAnswer(submission, (id) => ({ id }), "company");
  },
  { contribution: "company" },
);
