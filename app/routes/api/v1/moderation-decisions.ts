import { z } from "zod";
import { database } from "#app/db/database.server.ts";
import { idParamSchema, queryOf } from "#app/domain/api-input.server.ts";
import { decide, decisionBodySchema, moderationLog } from "#app/domain/moderation.server.ts";
import { readBody } from "#app/http/api-request.server.ts";
import { apiModerator, apiRead, apiWrite } from "#app/http/api.server.ts";

// A decision number in plain digits: "0x5" or "5e0" are refused, though Number() reads them.
const logQuerySchema = z.object({ before: idParamSchema.optional() }).strict();

/** GET /api/v1/moderation/decisions[?before=N]: the public moderation log, newest first. */
export const loader = apiRead(async ({ request }) => {
  const { before } = logQuerySchema.parse(queryOf(request));
  return moderationLog(database().db, before);
});

/** POST /api/v1/moderation/decisions: a moderator's decision on a review (the role is required). */
export const action = apiWrite(async (args) => {
  const moderator = await apiModerator(args);
  const body = await readBody(args.request, decisionBodySchema);
  if (!body.ok) throw body.response;
  const { reviewId, ...input } = body.data;
  const decision = await decide(database().db, reviewId, input, moderator.pseudonym);
  return { status: 201, body: decision };
});
