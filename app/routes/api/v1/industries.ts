import { apiRead, readOnlyAction } from "#app/http/api.server.ts";
import { industrySections } from "#app/lib/industries.ts";

/** GET /api/v1/industries: the fixed list of industries (ISIC Rev. 4 sections) a new company is given one of. */
export const loader = apiRead(async () => industrySections, 3600);
export const action = readOnlyAction;
