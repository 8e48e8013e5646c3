import { z } from "zod";
import { hasControlCharacters } from "#app/lib/control-characters.ts";
import { isCountryCode } from "#app/lib/countries.server.ts";
import {
  companyReviewSchema as companyReviewFields,
  companySchema as companyFields,
  managerReviewSchema as managerReviewFields,
  managerSchema as managerFields,
} from "./contribution-input.server.ts";
import { maxSearchTermLength, maxSuggestionTermLength } from "#app/lib/limits.ts";
import { idPattern, maxId } from "#app/lib/params.ts";

// API bodies are strict: a field the API does not know (a user id, a review count) is a 400, not silently dropped.
// The HTML forms read only the fields they know, so they share the same rules without this.
export const companyReviewSchema = companyReviewFields.strict();
/** A verification token sent with a review, spent for the "Verified" badge (see /.well-known/candor-keys.json). */
const verificationToken = (domain: string) =>
  z.string().max(1200).optional().describe(`A verification token for ${domain} (see /.well-known/candor-keys.json)`);
const companyWebsiteToken = verificationToken("the company website's domain");
/** A company review sent on its own may carry a verification token. */
export const companyReviewBodySchema = companyReviewFields.extend({ verification_token: companyWebsiteToken }).strict();
export const managerReviewSchema = managerReviewFields.strict();
/** A manager review may carry a verification token of one of the manager's companies' domains. */
const managerVerificationToken = verificationToken("the domain of one of the manager's companies' websites");
export const managerReviewBodySchema = managerReviewFields
  .extend({ verification_token: managerVerificationToken })
  .strict();
/** A manager review sent without an account: its one-review token stands in for the account. */
export const tokenReviewBodySchema = managerReviewFields
  .extend({
    review_token: z
      .string({ error: "required: the one-review token for this manager" })
      .max(1200)
      .describe("The one-review token obtained through POST /api/v1/managers/{managerId}/review-tokens"),
    verification_token: managerVerificationToken,
  })
  .strict();
const companySchema = companyFields.strict();
const managerSchema = managerFields.strict();

/** Query parameters and bodies of the JSON API, built from the same schemas as the HTML forms. */

/** PostgreSQL refuses NUL in text, which would turn a search for one into a 500: refused here as bad input. */
const noNul = [(value: string) => !hasControlCharacters(value), "must not contain control characters"] as const;

export const searchQuerySchema = z.object({
  country: z
    .string({ error: "required: an ISO 3166-1 alpha-2 code such as US" })
    .trim()
    .toUpperCase()
    .refine(isCountryCode, "must be a country code from GET /api/v1/countries"),
  q: z
    .string({ error: "required: part of the name" })
    .trim()
    .min(1, "required: part of the name")
    .max(maxSearchTermLength)
    .refine(...noNul),
  after: z.string().max(1000).optional(),
});

/** A country in a path: an ISO 3166-1 alpha-2 code the site lists. */
export const countryParamSchema = z
  .string({ error: "required: an ISO 3166-1 alpha-2 code such as US" })
  .toUpperCase()
  .refine(isCountryCode, "must be a country code from GET /api/v1/countries");

/** The lists of a country before a term is typed: `country` as in a search. */
export const listQuerySchema = z.object({ country: countryParamSchema });

export const suggestionQuerySchema = z.object({
  q: z
    .string()
    .max(maxSuggestionTermLength, `at most ${maxSuggestionTermLength} characters`)
    .refine(...noNul)
    .optional(),
});

export const pageQuerySchema = z.object({ after: z.string().max(1000).optional() });
export const reviewPageQuerySchema = z.object({ before: z.string().max(1000).optional() });

/** A positive id: a number, or its decimal digits as text (not "0x10", "1e3" or " 1"). */
export const idParamSchema = z
  .union([z.number(), z.string().regex(idPattern, "must be a positive whole number").transform(Number)], {
    error: "must be a positive whole number",
  })
  .pipe(
    z
      .number()
      .int("must be a positive whole number")
      .min(1, "must be a positive whole number")
      .max(maxId, "is too large"),
  );

/** A path id, or a ZodError naming the parameter (answered as 400 with that field). */
// One schema per parameter name, made once: zod compiles a schema on its first use, which costs more than a parse.
const idParamSchemas = new Map<string, z.ZodType<Record<string, number>>>();

export function parseIdParam(name: string, value: string | undefined): number {
  let schema = idParamSchemas.get(name);
  if (!schema) {
    schema = z.object({ [name]: idParamSchema }) as unknown as z.ZodType<Record<string, number>>;
    idParamSchemas.set(name, schema);
  }
  return schema.parse({ [name]: value })[name]!;
}

export const newCompanyBodySchema = z
  .object({ company: companySchema, review: companyReviewSchema, verification_token: companyWebsiteToken })
  .strict();

export const newManagerBodySchema = z
  .object({
    company_id: idParamSchema.optional(),
    company: companySchema.optional(),
    manager: managerSchema,
    review: managerReviewSchema,
    verification_token: companyWebsiteToken,
  })
  .strict()
  .refine((body) => (body.company_id === undefined) !== (body.company === undefined), {
    message: "send either company_id (an existing company) or company (a new one)",
    path: ["company_id"],
  });

/** Reads query parameters into a plain object for a schema (repeated parameters keep their last value). */
export function queryOf(request: Request): Record<string, string> {
  return Object.fromEntries(new URL(request.url).searchParams);
}
