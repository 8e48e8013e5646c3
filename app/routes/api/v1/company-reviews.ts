import { database } from "#app/db/database.server.ts";
import { companyReviewBodySchema, parseIdParam, queryOf, reviewPageQuerySchema } from "#app/domain/api-input.server.ts";
import { companyReviewListSchema, companyReviews, findCompany } from "#app/domain/companies.server.ts";
import { authorOf, recordCompanyReview } from "#app/domain/contributions.server.ts";
import { readBody } from "#app/http/api-request.server.ts";
import { apiAccountKey, ApiProblem, apiRead, apiWrite, submissionAnswer } from "#app/http/api.server.ts";
import { messages } from "#app/lib/messages.ts";
import { publicationSettings } from "#app/domain/publication.server.ts";
import { readerFor } from "#app/http/read-database.server.ts";

function companyId(params: Record<string, string | undefined>): number {
  return parseIdParam("companyId", params.companyId);
}

/** GET /api/v1/companies/{id}/reviews[?sort=…&rating=…&tag=…&q=…&before=…]: newest first unless sorted, 10 a page. */
export const loader = apiRead(async ({ params, request }) => {
  const id = companyId(params);
  const query = queryOf(request);
  const { before } = reviewPageQuerySchema.parse(query);
  const list = companyReviewListSchema.parse(query);
  const db = readerFor(request);
  if (!(await findCompany(db, id))) throw new ApiProblem(404, messages.noCompanyFound);
  return companyReviews(db, id, before ?? null, list);
});

/** POST /api/v1/companies/{id}/reviews: a review of the company. */
export const action = apiWrite(
  async ({ params, request, author }) => {
    const id = companyId(params);
    const body = await readBody(request, companyReviewBodySchema);
    if (!body.ok) throw body.response;
    const { verification_token: token, ...review } = body.data;
    const submission = await recordCompanyReview(
      database().db,
      authorOf({ id: author.userId }, await apiAccountKey(request, author)),
      id,
      review,
      publicationSettings(),
      token || undefined,
    );
    return submissionAnswer(submission, () => ({ ok: true }), "review");
  },
  { contribution: "companyReview" },
);
