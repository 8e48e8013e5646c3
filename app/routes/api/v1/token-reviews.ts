import { database } from "#app/db/database.server.ts";
import { serverSecret } from "#app/db/secret.server.ts";
import { parseIdParam, tokenReviewBodySchema } from "#app/domain/api-input.server.ts";
import { publicationSettings } from "#app/domain/publication.server.ts";
import { recordTokenReview } from "#app/domain/review-tokens.server.ts";
import { VerificationError } from "#app/domain/verification.server.ts";
import { readBody } from "#app/http/api-request.server.ts";
import { apiOpenWrite, submissionAnswer } from "#app/http/api.server.ts";

/**
 * POST /api/v1/managers/{managerId}/token-reviews: a review of the manager that spends a one-review token, sent
 * without a session. A request carrying a cookie or an access token is refused: the review must not arrive beside
 * the account that obtained the token.
 */
export const action = apiOpenWrite(
  async ({ params, request }) => {
    if (request.headers.has("cookie") || request.headers.has("authorization")) {
      throw new VerificationError("review-token-session");
    }
    const managerId = parseIdParam("managerId", params.managerId);
    const body = await readBody(request, tokenReviewBodySchema);
    if (!body.ok) throw body.response;
    const { review_token: token, verification_token: verification, ...review } = body.data;
    const submission = await recordTokenReview(
      database().db,
      serverSecret(),
      managerId,
      review,
      token,
      publicationSettings(),
      verification || undefined,
    );
    return submissionAnswer(submission, () => ({ ok: true }), "manager");
  },
  { limit: "review" },
);

export const loader = action;
