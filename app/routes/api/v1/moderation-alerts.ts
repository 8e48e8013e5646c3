import { database } from "#app/db/database.server.ts";
import { releaseAlert, releaseBodySchema } from "#app/domain/signals.server.ts";
import { readBody } from "#app/http/api-request.server.ts";
import { apiModerator, apiWrite, methodNotAllowed } from "#app/http/api.server.ts";

export function loader() {
  return methodNotAllowed("POST");
}

/**
 * POST /api/v1/moderation/alerts: a moderator releases a manipulation alert with a statement (the role is required);
 * the subject's waiting reviews go out with the next batch.
 */
export const action = apiWrite(async (args) => {
  const moderator = await apiModerator(args);
  const body = await readBody(args.request, releaseBodySchema);
  if (!body.ok) throw body.response;
  const released = await releaseAlert(database().db, body.data.alertId, body.data.statement, moderator.pseudonym);
  return { status: 201, body: released };
});
