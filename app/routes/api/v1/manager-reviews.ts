import { database } from "#app/db/database.server.ts";
import { managerReviewBodySchema, parseIdParam, queryOf, reviewPageQuerySchema } from "#app/domain/api-input.server.ts";
import { authorOf, recordManagerReview } from "#app/domain/contributions.server.ts";
import { findManager, managerReviewListSchema, managerReviews } from "#app/domain/managers.server.ts";
import { readBody } from "#app/http/api-request.server.ts";
import { apiAccountKey, ApiProblem, apiRead, apiWrite, submissionAnswer } from "#app/http/api.server.ts";
import { messages } from "#app/lib/messages.ts";
import { publicationSettings } from "#app/domain/publication.server.ts";
import { readerFor } from "#app/http/read-database.server.ts";

function managerId(params: Record<string, string | undefined>): number {
  return parseIdParam("managerId", params.managerId);
}

/** GET /api/v1/managers/{id}/reviews[?sort=…&rating=…&tag=…&q=…&before=…]: newest first unless sorted, 10 a page. */
export const loader = apiRead(async ({ params, request }) => {
  const id = managerId(params);
  const query = queryOf(request);
  const { before } = reviewPageQuerySchema.parse(query);
  const list = managerReviewListSchema.parse(query);
  const db = readerFor(request);
  if (!(await findManager(db, id))) throw new ApiProblem(404, messages.noManagerProfileFound);
  return managerReviews(db, id, before ?? null, list);
});

/** POST /api/v1/managers/{id}/reviews: one review per user per manager (409 for a second). */
export const action = apiWrite(
  async ({ params, request, author }) => {
    const id = managerId(params);
    const body = await readBody(request, managerReviewBodySchema);
    if (!body.ok) throw body.response;
    const { verification_token: token, ...review } = body.data;
    const submission = await recordManagerReview(
      database().db,
      authorOf({ id: author.userId }, await apiAccountKey(request, author)),
      id,
      review,
      publicationSettings(),
      token || undefined,
    );
    return submissionAnswer(submission, () => ({ ok: true }), "manager");
  },
  { contribution: "managerReview" },
);
