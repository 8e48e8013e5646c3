import { database } from "#app/db/database.server.ts";
import { reportReview, reportSchema } from "#app/domain/moderation.server.ts";
import { readBody } from "#app/http/api-request.server.ts";
import { apiOpenWrite, methodNotAllowed } from "#app/http/api.server.ts";

/** GET is not offered: reports are read by moderators only (GET /api/v1/moderation/queue). */
export function loader() {
  return methodNotAllowed("POST");
}

/** POST /api/v1/reviews/{reviewId}/reports: anyone may report a review; 201 with the report's number. */
export const action = apiOpenWrite(
  async ({ params, request }) => {
    const body = await readBody(request, reportSchema);
    if (!body.ok) throw body.response;
    const id = await reportReview(database().db, params.reviewId ?? "", body.data);
    return { status: 201, body: { id } };
  },
  { limit: "report" },
);
