import { z } from "zod";
import { companyCriteria, companyYesNo, managerCriteria, managerYesNo } from "#app/lib/ratings.ts";

/**
 * What the public read API answers, as zod schemas: the OpenAPI document is generated from them and the contract
 * tests hold every response to them. Nothing here identifies an author: no user ids, no e-mail, months not days.
 */

function record<K extends string, V extends z.ZodType>(keys: readonly K[], value: V) {
  return z.object(Object.fromEntries(keys.map((key) => [key, value])) as Record<K, V>).strict();
}

const month = z
  .string()
  .regex(/^\d{4}-\d{2}$/)
  .describe("Year and month the review was posted (YYYY-MM).");
const nextCursor = z
  .string()
  .nullable()
  .describe("Pass as `after` (or `before` for reviews) for the next page; null on the last page.");

export const countrySchema = z.object({ code: z.string().length(2), name: z.string() }).strict();

export const industriesSchema = z.array(z.object({ code: z.string().length(1), title: z.string() }).strict());

export const knownCitiesSchema = z
  .object({ items: z.array(z.object({ city: z.string(), state: z.string() }).strict()) })
  .strict();

export const tagsSchema = z.object({ company: z.array(z.string()), manager: z.array(z.string()) }).strict();

export const companySearchResultSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    city: z.string(),
    reviewCount: z.number().int(),
    isDemo: z.boolean(),
  })
  .strict();

export const companyRefSchema = z.object({ id: z.number().int(), name: z.string() }).strict();

export const managerCardSchema = z
  .object({
    id: z.number().int(),
    firstName: z.string(),
    lastName: z.string(),
    title: z.string(),
    city: z.string(),
    reviewCount: z.number().int(),
    companies: z.array(companyRefSchema),
    isDemo: z.boolean(),
  })
  .strict();

export const companyProfileSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    website: z.string(),
    glassdoorUrl: z.string(),
    industry: z.string(),
    /** The ISIC section's letter; null for an industry typed before the fixed list that names none. */
    industrySection: z.string().length(1).nullable(),
    city: z.string(),
    state: z.string(),
    country: z.string().length(2),
    countryName: z.string(),
    recentLayoffs: z.string().nullable(),
    hasOncall: z.boolean(),
    reviewCount: z.number().int(),
    averages: record(companyCriteria, z.number().nullable()),
    score: z.number().int().min(0).max(5),
    isDemo: z.boolean(),
  })
  .strict();

export const managerProfileSchema = z
  .object({
    id: z.number().int(),
    firstName: z.string(),
    lastName: z.string(),
    title: z.string(),
    department: z.string().nullable(),
    city: z.string(),
    state: z.string(),
    country: z.string().length(2),
    countryName: z.string(),
    linkedinUrl: z.string(),
    companies: z.array(companyRefSchema),
    reviewCount: z.number().int(),
    averages: record(managerCriteria, z.number().nullable()),
    yesCounts: record(managerYesNo, z.number().int()),
    score: z.number().int().min(0).max(5),
    isDemo: z.boolean(),
  })
  .strict();

export const companyReviewCardSchema = z
  .object({
    id: z.string(),
    month,
    ratings: record(companyCriteria, z.number().int().min(1).max(5)),
    answers: record(companyYesNo, z.boolean()),
    tags: z.array(z.string()),
    text: z.string(),
    score: z.number().int().min(0).max(5),
  })
  .strict();

export const managerReviewCardSchema = z
  .object({
    id: z.string(),
    month,
    ratings: record(managerCriteria, z.number().int().min(1).max(5)),
    answers: record(managerYesNo, z.boolean()),
    tags: z.array(z.string()),
    text: z.string(),
    score: z.number().int().min(0).max(5),
  })
  .strict();

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), next: nextCursor }).strict();
}

export const companySuggestionsSchema = z
  .object({
    min_length: z.number().int().describe("Nothing is suggested for fewer characters"),
    limit: z.number().int(),
    items: z.array(
      z
        .object({
          id: z.number().int(),
          name: z.string(),
          city: z.string(),
          country: z.string().length(2),
          country_name: z.string(),
        })
        .strict(),
    ),
  })
  .strict();

/** GET /api/v1/auth/user: the bearer's own account, for clients to check their token (never another's). */
export const tokenAccountSchema = z
  .object({ email: z.string(), email_verified: z.boolean(), two_factor_enabled: z.boolean() })
  .strict();

export const createdSchema = z.object({ id: z.number().int() }).strict();
export const createdReviewSchema = z.object({ ok: z.literal(true) }).strict();
/** 202: the submission waits for the next publication; `note` says when it will appear, and why. */
export const queuedSchema = z.object({ status: z.literal("queued"), note: z.string() }).strict();

export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
    code: z.string().optional(),
  })
  .describe("RFC 9457 problem details");

export const tokenPairSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal("bearer"),
    expires_in: z.number().int(),
    expires_at: z.number().int(),
    refresh_token: z.string(),
  })
  .strict();
