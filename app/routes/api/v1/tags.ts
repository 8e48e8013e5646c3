import { apiRead, readOnlyAction } from "#app/http/api.server.ts";
import { companyTags, managerTags } from "#app/lib/tags.ts";

/** GET /api/v1/tags: the fixed tag lists of company and manager reviews. */
export const loader = apiRead(async () => ({ company: companyTags, manager: managerTags }), 3600);
export const action = readOnlyAction;
