import { queryOf, suggestionQuerySchema } from "#app/domain/api-input.server.ts";
import { companySuggestions, suggestionLimit, suggestionMinLength } from "#app/domain/contributions.server.ts";
import { apiRead, readOnlyAction } from "#app/http/api.server.ts";
import { countryName } from "#app/lib/countries.server.ts";
import { readerFor } from "#app/http/read-database.server.ts";

/**
 * GET /api/v1/companies/suggestions?q=…: companies like the name being added (possible duplicates), for the
 * add forms. Fresh for 30 seconds.
 */
export const loader = apiRead(async ({ request }) => {
  const { q } = suggestionQuerySchema.parse(queryOf(request));
  const suggestions = await companySuggestions(readerFor(request), q ?? "");
  return {
    min_length: suggestionMinLength,
    limit: suggestionLimit,
    items: suggestions.map((company) => ({ ...company, country_name: countryName(company.country) })),
  };
}, 30);

export const action = readOnlyAction;
