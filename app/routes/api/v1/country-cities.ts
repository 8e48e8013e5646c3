import { database } from "#app/db/database.server.ts";
import { countryParamSchema } from "#app/domain/api-input.server.ts";
import { knownCities } from "#app/domain/companies.server.ts";
import { apiRead, readOnlyAction } from "#app/http/api.server.ts";

/**
 * GET /api/v1/countries/{country}/cities: the cities already known in a country with their state or region, the
 * most listed first, at most 100; the add forms suggest them. Fresh for 10 minutes.
 */
export const loader = apiRead(async ({ params }) => {
  const country = countryParamSchema.parse(params.country);
  return { items: await knownCities(database().db, country) };
}, 600);

export const action = readOnlyAction;
