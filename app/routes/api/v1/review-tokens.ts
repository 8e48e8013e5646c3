import { database } from "#app/db/database.server.ts";
import { parseIdParam } from "#app/domain/api-input.server.ts";
import { authorOf } from "#app/domain/contributions.server.ts";
import { issueReviewToken, reviewTokenRequestSchema } from "#app/domain/review-tokens.server.ts";
import { readBody } from "#app/http/api-request.server.ts";
import { apiAccountKey, apiWrite } from "#app/http/api.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { consume } from "#app/lib/rate-limit.server.ts";

/**
 * POST /api/v1/managers/{managerId}/review-tokens: signed in, a blinded one-review token for this manager; answers
 * its partially blind signature. Once per account per manager (409 afterwards, or after a review by this account).
 */
export const action = apiWrite(
  async ({ params, request, context, author }) => {
    const managerId = parseIdParam("managerId", params.managerId);
    await consume("reviewTokenIssue", context.get(clientContext).ipKey);
    const body = await readBody(request, reviewTokenRequestSchema);
    if (!body.ok) throw body.response;
    const issued = await issueReviewToken(
      database().db,
      authorOf({ id: author.userId }, await apiAccountKey(request, author)),
      managerId,
      body.data,
    );
    return {
      status: 200,
      body: { period: issued.period, key_id: issued.keyId, blind_signature: issued.blindSignature },
    };
  },
  { allow: "POST" },
);

export const loader = action;
