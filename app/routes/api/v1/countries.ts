import { apiRead, readOnlyAction } from "#app/http/api.server.ts";
import { countryList } from "#app/lib/countries.server.ts";

/** GET /api/v1/countries: the countries of the search, United States first. */
export const loader = apiRead(async () => countryList, 3600);
export const action = readOnlyAction;
