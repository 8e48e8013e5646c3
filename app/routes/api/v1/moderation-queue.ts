import { database } from "#app/db/database.server.ts";
import { moderationQueue } from "#app/domain/moderation.server.ts";
import { apiModeratorRead, readOnlyAction } from "#app/http/api.server.ts";

/** GET /api/v1/moderation/queue: open reports grouped per review, oldest first (the moderator role is required). */
export const loader = apiModeratorRead(async () => ({ items: await moderationQueue(database().db) }));

export const action = readOnlyAction;
