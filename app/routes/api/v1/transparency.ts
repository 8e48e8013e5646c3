import { database } from "#app/db/database.server.ts";
import { transparencyReport } from "#app/domain/moderation.server.ts";
import { apiRead, readOnlyAction } from "#app/http/api.server.ts";

/** GET /api/v1/transparency: reports and decisions per month, as /transparency shows them. */
export const loader = apiRead(() => transparencyReport(database().db));

export const action = readOnlyAction;
