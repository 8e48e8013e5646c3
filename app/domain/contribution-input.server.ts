import { z } from "zod";
import { hasControlCharacters } from "#app/lib/control-characters.ts";
import { isCountryCode } from "#app/lib/countries.server.ts";
import { industrySectionOf, industrySections } from "#app/lib/industries.ts";
import { guidelineMessages, guidelineViolation } from "#app/lib/guidelines.ts";
import { hasProfanity } from "#app/lib/profanity.server.ts";
import { contributionMessages as m } from "#app/lib/messages.ts";
import { cleanName } from "#app/lib/names.server.ts";
import { companyCriteria, companyYesNo, managerCriteria, managerYesNo } from "#app/lib/ratings.ts";
import { fieldLengths, maxTagsPerReview, reviewTextLength } from "#app/lib/limits.ts";
import { companyTags, managerTags } from "#app/lib/tags.ts";
import { normalizeLinkedInAddress, normalizeWebAddress } from "#app/lib/urls.ts";

/**
 * What valid input looks like for companies, managers and reviews: one schema each, shared by the HTML forms and
 * the JSON API (forms send strings; the API may send numbers and booleans).
 */

/** A rating: a number, or a form's digit as text; "0x5", "5e0", " 5" or "5.0" are not ratings, though Number() reads 5. */
const rating = z.preprocess(
  (value) => (typeof value === "string" && /^[1-5]$/.test(value) ? Number(value) : value),
  z.number({ error: m.rateEvery }).int(m.rateEvery).min(1, m.rateEvery).max(5, m.rateEvery),
);

/** Spec: Yes is stored as 1, No as 0. An answer is required: a form is complete only when nothing is null. */
const yesNo = z
  .union([z.enum(["Yes", "No"]), z.boolean()], { error: m.answer })
  .transform((value) => (value === "Yes" || value === true ? 1 : 0));

/**
 * The bidirectional embeddings, overrides and isolates (U+202A–E, U+2066–9): no script needs them typed, and an
 * override shows text in another order than it is stored, so what readers see would not be what the guidelines
 * checked. Removed before the text is checked; joiners stay (Persian and emoji need them).
 */
const bidiControls = /[\u202A-\u202E\u2066-\u2069]/gu;

const reviewText = z
  .string({ error: m.textTooShort })
  .overwrite((text) => text.replace(bidiControls, ""))
  .trim()
  .min(reviewTextLength.min, m.textTooShort)
  .max(reviewTextLength.max, m.textTooLong)
  // Line breaks and tabs are text; other control characters (NUL, which PostgreSQL refuses) are not.
  .refine((text) => !hasControlCharacters(text, { multiline: true }), m.controlCharacters)
  .superRefine((text, context) => {
    // An over-long text is refused already; checking it word by word would only cost time.
    if (text.length > reviewTextLength.max) return;
    const violation = guidelineViolation(text) ?? (hasProfanity(text) ? guidelineMessages.profanity : undefined);
    if (violation) context.addIssue({ code: "custom", message: violation });
  });

function tagList<T extends readonly [string, ...string[]]>(tags: T) {
  return z
    .array(z.enum(tags, { error: m.unknownTag }), { error: m.chooseTags })
    .min(1, m.chooseTags)
    .max(maxTagsPerReview, m.chooseTags)
    .refine((chosen) => new Set(chosen).size === chosen.length, m.chooseTags);
}

function shape<K extends string, V extends z.ZodType>(keys: readonly K[], value: V): Record<K, V> {
  return Object.fromEntries(keys.map((key) => [key, value])) as Record<K, V>;
}

const today = () => new Date().toISOString().slice(0, 10);

/** Date.parse rolls 2024-02-30 over to March 1st: a real day survives the round trip unchanged. */
function isCalendarDay(day: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
  const time = Date.parse(`${day}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === day;
}

/** An optional past day (YYYY-MM-DD); empty means "no layoffs to report". */
const layoffsDate = z.preprocess(
  (value) => (value === "" || value === null ? undefined : value),
  z
    .string({ error: m.layoffsDate })
    .refine((day) => isCalendarDay(day) && day >= "1900-01-01" && day <= today(), m.layoffsDate)
    .optional(),
);

export const companyReviewSchema = z.object({
  ...shape(companyCriteria, rating),
  ...shape(companyYesNo, yesNo),
  tags: tagList(companyTags),
  review_text: reviewText,
  recent_layoffs: layoffsDate,
});
export type CompanyReviewInput = z.infer<typeof companyReviewSchema>;

export const managerReviewSchema = z.object({
  ...shape(managerCriteria, rating),
  ...shape(managerYesNo, yesNo),
  tags: tagList(managerTags),
  review_text: reviewText,
});
export type ManagerReviewInput = z.infer<typeof managerReviewSchema>;

/**
 * A one-line name or place. Control characters (NUL among them, which PostgreSQL refuses) are refused; what is kept
 * is the cleaned name (app/lib/names.server.ts): NFKC, without zero-width or bidirectional controls, so a
 * right-to-left override is never stored or shown. A name of invisible characters only is refused.
 */
function line(max: number) {
  return z
    .string({ error: m.required })
    .trim()
    .min(1, m.required)
    .max(max, m.tooLong)
    .refine((value) => !hasControlCharacters(value), m.singleLine)
    .transform(cleanName)
    .pipe(z.string().min(1, m.invisibleOnly).max(max, m.tooLong));
}

function webAddress(normalize: (value: string) => string | undefined, message: string) {
  return z
    .string({ error: message })
    .trim()
    .min(1, m.required)
    .transform((value, context) => {
      const href = normalize(value);
      if (!href) {
        context.addIssue({ code: "custom", message });
        return z.NEVER;
      }
      return href;
    });
}

const country = z
  .string({ error: m.country })
  .trim()
  .toUpperCase()
  .refine((code) => isCountryCode(code), m.country);

/** One of the fixed list's sections, named by its letter ("J") or its title; stored by its title. */
const industry = z
  .enum(
    industrySections.flatMap((section) => [section.code, section.title]),
    { error: m.industry },
  )
  .transform((named) => industrySectionOf(named)!.title)
  .meta({ description: "An ISIC Rev. 4 section, by its letter or its title (GET /api/v1/industries lists them)" });

/** Spec: every company field is required; website and review-site addresses are normalised. */
export const companySchema = z.object({
  name: line(fieldLengths.name),
  country,
  state: line(fieldLengths.state),
  city: line(fieldLengths.city),
  website: webAddress(normalizeWebAddress, m.website),
  glassdoor_url: webAddress(normalizeWebAddress, m.website),
  industry,
});
export type CompanyInput = z.infer<typeof companySchema>;

export const managerSchema = z.object({
  first_name: line(fieldLengths.first_name),
  last_name: line(fieldLengths.last_name),
  title: line(fieldLengths.title),
  city: line(fieldLengths.city),
  state: line(fieldLengths.state),
  linkedin_url: webAddress(normalizeLinkedInAddress, m.linkedin),
  department: z.preprocess(
    (value) => (value === "" || value === null ? undefined : value),
    line(fieldLengths.department).optional(),
  ),
  /** Spec: only managers with direct reports can be added. */
  direct_reports: yesNo.refine((answer) => answer === 1, m.directReports),
});
export type ManagerInput = z.infer<typeof managerSchema>;

/** Spec: a payload with null or undefined values is refused with one message before anything else. */
export function hasNullValues(value: unknown): boolean {
  if (value === null) return true;
  if (typeof value !== "object") return false;
  return Object.values(value as Record<string, unknown>).some((entry) => entry === null);
}

/** Reads a review form: one value per field, tags as a list. */
export function reviewFormValues(form: FormData, keys: readonly string[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const key of keys) {
    const value = form.get(key);
    if (typeof value === "string") values[key] = value;
  }
  values.tags = form.getAll("tags").filter((tag): tag is string => typeof tag === "string");
  return values;
}

export const companyReviewKeys = [...companyCriteria, ...companyYesNo, "review_text", "recent_layoffs"] as const;
export const managerReviewKeys = [...managerCriteria, ...managerYesNo, "review_text"] as const;
export const companyKeys = ["name", "country", "state", "city", "website", "glassdoor_url", "industry"] as const;
export const managerKeys = [
  "first_name",
  "last_name",
  "title",
  "city",
  "state",
  "linkedin_url",
  "department",
  "direct_reports",
] as const;
