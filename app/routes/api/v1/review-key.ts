import { database } from "#app/db/database.server.ts";
import { appealRemoval, reviewKeyRequestSchema, withdrawReview } from "#app/domain/moderation.server.ts";
import { readBody } from "#app/http/api-request.server.ts";
import { apiOpenWrite, methodNotAllowed } from "#app/http/api.server.ts";

export function loader() {
  return methodNotAllowed("POST");
}

/**
 * POST /api/v1/review-key: with a review's one-time key, appeal its removal (201 with the appeal's number) or
 * withdraw it (200). No account: the key is the proof.
 */
export const action = apiOpenWrite(
  async ({ request }) => {
    const body = await readBody(request, reviewKeyRequestSchema);
    if (!body.ok) throw body.response;
    if (body.data.action === "withdraw") {
      await withdrawReview(database().db, body.data.key);
      return { status: 200, body: { withdrawn: true } };
    }
    return { status: 201, body: { id: await appealRemoval(database().db, body.data.key, body.data.statement) } };
  },
  { limit: "reviewKey" },
);
