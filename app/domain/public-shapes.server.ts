import { z } from "zod";
import { type ReportReason, reportReasonCodes, type SignalCode, signalCodes } from "#app/lib/moderation.ts";
import { companyCountedYesNo, companyCriteria, companyYesNo, managerCriteria, managerYesNo } from "#app/lib/ratings.ts";

/**
 * What the public read API answers, as zod schemas: the OpenAPI document is generated from them and the contract
 * tests hold every response to them. Nothing here identifies an author: no user ids, no e-mail, months not days.
 */

/**
 * An object with exactly these keys, each holding `value`. Typed as a plain record: zod's own type for a shape with
 * generic keys does not reduce, and the card types below are generic over their keys.
 */
function record<K extends string, V extends z.ZodType>(keys: readonly K[], value: V) {
  const shape = Object.fromEntries(keys.map((key) => [key, value])) as Record<K, V>;
  return z.object(shape).strict() as unknown as z.ZodType<Record<K, z.output<V>>, Record<K, z.input<V>>>;
}

const month = z
  .string()
  .regex(/^\d{4}-\d{2}$/)
  .describe("Year and month the review was posted (YYYY-MM).");
const nextCursor = z
  .string()
  .nullable()
  .describe("Pass as `after` (or `before` for reviews) for the next page; null on the last page.");

const score = z.number().int().min(0).max(5);

export const countrySchema = z.object({ code: z.string().length(2), name: z.string() }).strict();

export const industriesSchema = z.array(z.object({ code: z.string().length(1), title: z.string() }).strict());

export const knownCitiesSchema = z
  .object({ items: z.array(z.object({ city: z.string(), state: z.string() }).strict()) })
  .strict();

export const tagsSchema = z.object({ company: z.array(z.string()), manager: z.array(z.string()) }).strict();

const cardMean = z
  .number()
  .min(1)
  .max(5)
  .nullable()
  .describe("The mean of all ratings of all reviews, one decimal; null while there are none to show");

export const companySearchResultSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    city: z.string(),
    industry: z.string(),
    reviewCount: z.number().int(),
    mean: cardMean,
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
    mean: cardMean,
    companies: z.array(companyRefSchema),
    isDemo: z.boolean(),
  })
  .strict();

/** Where a subject is, and what its profile shows of its stored aggregates (the same fields for both subjects). */
const placeShape = { city: z.string(), state: z.string(), country: z.string().length(2) };
const histogram = z
  .array(z.number().int().min(0))
  .length(5)
  .describe("How many reviews gave 1, 2, 3, 4 and 5, in that order");
export function subjectSummarySchema<C extends string, Y extends string>(
  criteria: readonly C[],
  counted: readonly Y[],
) {
  return z.object({
    countryName: z.string(),
    reviewCount: z.number().int(),
    averages: record(criteria, z.number().nullable()),
    score,
    mean: z
      .number()
      .nullable()
      .describe("Mean of the reviews' overall scores, one decimal (the score is this mean rounded down)"),
    interval: z
      .object({ low: z.number(), high: z.number() })
      .strict()
      .nullable()
      .describe("95% Student's t interval of the mean, one decimal, within 1-5; null below two reviews"),
    yesPercent: record(counted, z.number().int().min(0).max(100).nullable()).describe(
      "Share of reviews answering yes, as a whole percentage; null without reviews",
    ),
    distribution: z
      .object({ overall: histogram, criteria: record(criteria, histogram) })
      .strict()
      .describe("Reviews per value: of the overall score (each review's, rounded down) and of each criterion"),
    topTags: z
      .array(z.object({ tag: z.string(), count: z.number().int().min(1) }).strict())
      .describe("The most mentioned tags, most first, with how many reviews carry each"),
    trend: trendSchema(criteria),
    peers: z
      .array(peerComparisonSchema(criteria))
      .describe(
        "How the subject compares with its country's peers (and a company's with its industry section's), " +
          "computed by a scheduled job; a group is listed once it has enough ranked subjects",
      ),
    isDemo: z.boolean(),
    unusualActivity: z
      .boolean()
      .describe("A manipulation signal fired and no moderator has looked yet: new reviews wait for one"),
  });
}

const mean = z.number().min(1).max(5);

/** Means per month of publication, from stored monthly figures; months with too few reviews are left out. */
export function trendSchema<C extends string>(criteria: readonly C[]) {
  return z
    .object({
      minimumReviews: z.number().int().min(1).describe("A month is shown only with at least this many reviews"),
      months: z.array(
        z
          .object({
            month: z
              .string()
              .regex(/^\d{4}-\d{2}$/)
              .describe("Year and month of publication (YYYY-MM)"),
            reviewCount: z.number().int().min(1),
            overall: mean.describe("Mean of all criteria of the month's reviews, one decimal"),
            criteria: record(criteria, mean),
          })
          .strict(),
      ),
    })
    .strict()
    .describe("The latest months with enough reviews, oldest first (at most 24)");
}

const peerFigure = z
  .object({
    average: z.number().nullable().describe("Mean of the group's ranked subjects' averages, one decimal"),
    percentile: z
      .number()
      .int()
      .min(0)
      .max(100)
      .nullable()
      .describe("Share of the group's other ranked subjects with a lower average; null when this one is not ranked"),
  })
  .strict();

export function peerComparisonSchema<C extends string>(criteria: readonly C[]) {
  return z
    .object({
      scope: z.enum(["country", "industry"]),
      code: z.string().describe("The country's ISO code or the industry section's letter"),
      name: z.string(),
      subjects: z.number().int().min(1).describe("How many subjects of the group are ranked"),
      overall: peerFigure,
      criteria: record(criteria, peerFigure),
    })
    .strict();
}

export const companyProfileSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    website: z.string(),
    glassdoorUrl: z.string(),
    industry: z.string(),
    /** The ISIC section's letter; null for an industry typed before the fixed list that names none. */
    industrySection: z.string().length(1).nullable(),
    ...placeShape,
    recentLayoffs: z.string().nullable(),
    hasOncall: z.boolean(),
    ...subjectSummarySchema(companyCriteria, companyCountedYesNo).shape,
  })
  .strict();

export const managerProfileSchema = z
  .object({
    id: z.number().int(),
    firstName: z.string(),
    lastName: z.string(),
    title: z.string(),
    department: z.string().nullable(),
    ...placeShape,
    linkedinUrl: z.string(),
    companies: z.array(companyRefSchema),
    yesCounts: record(managerYesNo, z.number().int()),
    ...subjectSummarySchema(managerCriteria, managerYesNo).shape,
  })
  .strict();

export const comparisonSchema = z
  .discriminatedUnion("kind", [
    z.object({ kind: z.literal("company"), items: z.array(companyProfileSchema) }).strict(),
    z.object({ kind: z.literal("manager"), items: z.array(managerProfileSchema) }).strict(),
  ])
  .describe("2 to 4 companies or managers, in the order asked");

/** A review card of either subject: its ratings and answers are keyed by the subject's criteria and questions. */
export function reviewCardSchema<C extends string, Y extends string>(criteria: readonly C[], yesNo: readonly Y[]) {
  return z
    .object({
      id: z.string(),
      month,
      ratings: record(criteria, z.number().int().min(1).max(5)),
      answers: record(yesNo, z.boolean()),
      tags: z.array(z.string()),
      text: z.string(),
      score,
      helpfulVotes: z.number().int().min(0).describe("How many accounts marked this review as helpful."),
      /** The registrable domain of the author's verified work address: "Verified: works at example.com". */
      verifiedDomain: z.string().nullable(),
    })
    .strict();
}

export const companyReviewCardSchema = reviewCardSchema(companyCriteria, companyYesNo);
export const managerReviewCardSchema = reviewCardSchema(managerCriteria, managerYesNo);

/** What a removed review leaves in its place in a list: its month and the decision, never its text or ratings. */
export const removedReviewSchema = z
  .object({
    id: z.string(),
    month,
    removed: z
      .object({
        decision: z.number().int().describe("The decision's number in the public moderation log (/moderation)."),
        month: z
          .string()
          .regex(/^\d{4}-\d{2}$/)
          .describe("Year and month of the decision (YYYY-MM)."),
        reason: z.enum(reportReasonCodes as [ReportReason, ...ReportReason[]]),
        marker: z.string().describe('What the page shows, e.g. "Removed in November 2026 — spam — decision 12".'),
      })
      .strict(),
  })
  .strict()
  .describe("A review removed by a moderator. It keeps its place in the list; its text and ratings are not shown.");

export const companyReviewItemSchema = z.union([companyReviewCardSchema, removedReviewSchema]);
export const managerReviewItemSchema = z.union([managerReviewCardSchema, removedReviewSchema]);

const reportReason = z.enum(reportReasonCodes as [ReportReason, ...ReportReason[]]);
const moderationAction = z.enum(["keep", "remove", "restore"]);

/** One decision of the public moderation log: never the removed text, never a moderator's e-mail. */
export const moderationLogEntrySchema = z
  .object({
    decision: z.number().int(),
    month: z
      .string()
      .regex(/^\d{4}-\d{2}$/)
      .describe("Year and month of the decision (YYYY-MM)."),
    action: moderationAction,
    reason: reportReason.nullable(),
    statement: z.string().describe("The statement of reasons"),
    moderator: z.string().describe("The moderator's pseudonym, or Operator for the site's operator"),
    subjectName: z.string(),
    subjectPath: z.string().describe("The page of the company or manager the review is about"),
  })
  .strict();

export const moderationLogSchema = z
  .object({
    items: z.array(moderationLogEntrySchema),
    next: z.number().int().nullable().describe("Pass as `before` for older decisions; null on the last page."),
  })
  .strict();

const queueItemShape = {
  reviewId: z.string(),
  subjectId: z.number().int(),
  subjectName: z.string(),
  subjectPath: z.string(),
  firstReceived: z.string().describe("Day of the oldest open report (YYYY-MM-DD)"),
  removed: z.boolean(),
  reports: z.array(z.object({ reason: reportReason, explanation: z.string(), receivedOn: z.string() }).strict()),
  appeals: z
    .array(z.object({ statement: z.string(), receivedOn: z.string() }).strict())
    .describe("The author's appeals against the removal, made with the review key"),
};

/** A reported review in the moderators' queue, with its open reports. Reporters' addresses are never included. */
export const moderationQueueItemSchema = z.union([
  z.object({ ...queueItemShape, subject: z.literal("company"), review: companyReviewCardSchema }).strict(),
  z.object({ ...queueItemShape, subject: z.literal("manager"), review: managerReviewCardSchema }).strict(),
]);

/** An open alert: a manipulation signal that fired for a subject (never a review), with the figures behind it. */
export const alertItemSchema = z
  .object({
    alertId: z.number().int(),
    subject: z.enum(["company", "manager"]),
    subjectId: z.number().int(),
    subjectName: z.string(),
    subjectPath: z.string(),
    signal: z.enum(signalCodes as [SignalCode, ...SignalCode[]]),
    detail: z.string().describe("Counts and probabilities that made the signal fire"),
    raisedOn: z.string().describe("Day the alert was raised (YYYY-MM-DD)"),
  })
  .strict();

export const moderationQueueSchema = z
  .object({ items: z.array(moderationQueueItemSchema), alerts: z.array(alertItemSchema) })
  .strict();
export const releaseResultSchema = z.object({ id: z.number().int() }).strict();
export const decisionResultSchema = z.object({ id: z.number().int(), action: moderationAction }).strict();

/** Monthly moderation figures for /transparency, newest month first. */
export const transparencySchema = z
  .object({
    months: z.array(
      z
        .object({
          month: z.string().regex(/^\d{4}-\d{2}$/),
          reportsReceived: z.number().int(),
          decisions: z.object({ keep: z.number().int(), remove: z.number().int(), restore: z.number().int() }).strict(),
          removalsByReason: z.partialRecord(reportReason, z.number().int()),
          medianDaysToDecision: z.number().nullable().describe("From a report to the decision that closed it"),
          alertsRaised: z.number().int().describe("Manipulation signals that fired, for any company or manager"),
        })
        .strict(),
    ),
  })
  .strict();

/** What a search shows before a term is typed: a country's most reviewed and best rated subjects. */
export function searchListsSchema<T extends z.ZodType>(item: T) {
  return z
    .object({
      mostReviewed: z.array(item).describe("The most reviewed first"),
      bestRated: z
        .array(item)
        .describe(
          "The highest mean first, each mean drawn towards 3 as if by 5 more reviews, so a single 5-star review does not top the list",
        ),
    })
    .strict();
}

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), next: nextCursor }).strict();
}

/*
 * The types the domain answers with are read off the shapes above, so the code and the API document cannot drift.
 */
export type CompanySearchResult = z.infer<typeof companySearchResultSchema>;
export type CompanyRef = z.infer<typeof companyRefSchema>;
export type ManagerCard = z.infer<typeof managerCardSchema>;
export type CompanyProfile = z.infer<typeof companyProfileSchema>;
export type ManagerProfile = z.infer<typeof managerProfileSchema>;
export type SubjectSummary<C extends string = string, Y extends string = string> = z.infer<
  ReturnType<typeof subjectSummarySchema<C, Y>>
>;
export type ReviewCard<C extends string = string, Y extends string = string> = z.infer<
  ReturnType<typeof reviewCardSchema<C, Y>>
>;
export type RemovedReview = z.infer<typeof removedReviewSchema>;
export type ReviewItem<C extends string = string, Y extends string = string> = ReviewCard<C, Y> | RemovedReview;
export type CompanyReviewCard = z.infer<typeof companyReviewCardSchema>;
export type ManagerReviewCard = z.infer<typeof managerReviewCardSchema>;
export type ModerationLogEntry = z.infer<typeof moderationLogEntrySchema>;
export type ModerationLog = z.infer<typeof moderationLogSchema>;
export type QueueItem = z.infer<typeof moderationQueueItemSchema>;
export type DecisionResult = z.infer<typeof decisionResultSchema>;
export type TransparencyReport = z.infer<typeof transparencySchema>;
export type AlertItem = z.infer<typeof alertItemSchema>;
export type CompanyReviewItem = CompanyReviewCard | RemovedReview;
export type ManagerReviewItem = ManagerReviewCard | RemovedReview;
export type SearchLists<T> = { mostReviewed: T[]; bestRated: T[] };
export type Page<T> = z.infer<ReturnType<typeof pageSchema<z.ZodType<T>>>>;

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

/**
 * The review's one-time key, in every answer to a submission: shown to its author this once, stored only as a hash.
 * With it the author can appeal a removal or withdraw the review (POST /api/v1/review-key), without an account.
 */
const reviewKey = z.string().describe("The review's one-time key: keep it; it is never shown again.");

export const reportCreatedSchema = z.object({ id: z.number().int() }).strict();
export const withdrawnSchema = z.object({ withdrawn: z.literal(true) }).strict();
/** What became of a verification token sent with a review: the badge comes, or why not (then the token is unspent). */
export const verificationOutcomeSchema = z
  .object({ badge: z.enum(["shown", "withheld"]), domain: z.string(), note: z.string() })
  .strict();
export const createdSchema = z
  .object({ id: z.number().int(), review_key: reviewKey, verification: verificationOutcomeSchema.optional() })
  .strict();
export const createdReviewSchema = z
  .object({ ok: z.literal(true), review_key: reviewKey, verification: verificationOutcomeSchema.optional() })
  .strict();
/** 202: the submission waits for the next publication; `note` says when it will appear, and why. */
export const queuedSchema = z
  .object({
    status: z.literal("queued"),
    note: z.string(),
    review_key: reviewKey,
    verification: verificationOutcomeSchema.optional(),
  })
  .strict();

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
    vote_key: z
      .string()
      .optional()
      .describe(
        "The account's key (password grant only): send it as Candor-Account-Key with every review, one-review token and helpful vote. Reviews wait sealed with what it makes, so a copy of the server does not name their authors. The server keeps it only wrapped under the password; keep it as safely as the password.",
      ),
  })
  .strict();

/** POST /api/v1/helpful-votes: the review's count after the vote, and whether the account's vote now stands. */
export const helpfulVoteResultSchema = z
  .object({ review_id: z.string(), helpful_votes: z.number().int().min(0), voted: z.boolean() })
  .strict();

const publicKeyJwkSchema = z.object({ kty: z.literal("RSA"), n: z.string(), e: z.string() }).strict();

/** POST /api/v1/verification/codes: the code's challenge and the key to blind tokens for. */
export const verificationChallengeSchema = z
  .object({
    challenge: z.string(),
    domain: z.string(),
    quarter: z.string(),
    key_id: z.string(),
    public_key: publicKeyJwkSchema,
    tokens: z.number().int().min(1),
    note: z.string(),
  })
  .strict();

/** POST /api/v1/verification/tokens: the blind signatures, in the order of the blinded tokens. */
export const verificationSignaturesSchema = z
  .object({ domain: z.string(), quarter: z.string(), key_id: z.string(), blind_signatures: z.array(z.string()) })
  .strict();

/** GET /api/v1/review-tokens/key: this quarter's one-review key. */
export const reviewTokenKeySchema = z
  .object({ period: z.string(), key_id: z.string(), public_key: publicKeyJwkSchema })
  .strict();

/** POST /api/v1/managers/{managerId}/review-tokens: the partially blind signature of the blinded token. */
export const reviewTokenSignatureSchema = z
  .object({ period: z.string(), key_id: z.string(), blind_signature: z.string() })
  .strict();

/** GET /.well-known/candor-keys.json. */
export const verificationKeysSchema = z
  .object({
    algorithm: z.literal("RSABSSA-SHA384-PSS-Deterministic"),
    keys: z.array(
      z
        .object({ domain: z.string(), quarter: z.string(), key_id: z.string(), public_key: publicKeyJwkSchema })
        .strict(),
    ),
  })
  .strict();
