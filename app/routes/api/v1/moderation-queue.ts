import { database } from "#app/db/database.server.ts";
import { moderationQueue } from "#app/domain/moderation.server.ts";
import { openAlerts } from "#app/domain/signals.server.ts";
import { apiModeratorRead, readOnlyAction } from "#app/http/api.server.ts";

/**
 * GET /api/v1/moderation/queue: open reports grouped per review, oldest first, and the open manipulation alerts (the
 * moderator role is required).
 */
export const loader = apiModeratorRead(async () => ({
  items: await moderationQueue(database().db),
  alerts: await openAlerts(database().db),
}));

export const action = readOnlyAction;
