/**
 * Every length and count limit on what people type, in one place: the zod schemas enforce them, the inputs carry
 * them as maxLength, the counters count down from them and the messages state them. Client-safe (no server import).
 */

/** A review's text, in characters after trimming. */
export const reviewTextLength = { min: 6, max: 5000 } as const;

/** Tags per review: at least one, at most this many. */
export const maxTagsPerReview = 5;

/** A web address a person types (website, review-site page, LinkedIn profile), before normalising. */
export const maxWebAddressLength = 500;

/** The longest value of each text field of a company or manager. */
export const fieldLengths = {
  name: 200,
  state: 100,
  city: 100,
  first_name: 100,
  last_name: 100,
  title: 100,
  department: 100,
  website: maxWebAddressLength,
  glassdoor_url: maxWebAddressLength,
  linkedin_url: maxWebAddressLength,
} as const;

/** A search term: the name search of the search page and the API (`q`), and the company finders. */
export const maxSearchTermLength = 100;
/** The company-name suggestions while a name is typed. */
export const maxSuggestionTermLength = 200;

/** The feedback form. */
export const feedbackLengths = { email: 254, subject: 200, message: 5000, comment: 2000 } as const;

/** How many of a subject's most mentioned tags its page and API answer list. */
export const topTagsShown = 8;

/** Verifying a work address: tokens per verification, a code's lifetime and its wrong tries. */
export const verificationLimits = { tokensPerVerification: 3, codeMinutes: 15, codeAttempts: 5 } as const;

/** How many months a trend shows at most: the latest ones with enough reviews. */
export const trendMonthsShown = 24;

/** A month enters a trend with at least this many reviews, and never fewer than the small-team minimum. */
export const trendMinReviews = 5;

/**
 * Comparisons with peers (decision 0017): a subject is ranked among its country's or industry's with at least
 * `rankedMinReviews` reviews; a group is compared only with at least `groupMinSubjects` ranked subjects; one run of
 * the percentile job ranks groups until it has ranked `subjectsPerRun` subjects, every `runMinutes`.
 */
export const peerLimits = {
  rankedMinReviews: 3,
  groupMinSubjects: 5,
  subjectsPerRun: 5_000,
  runMinutes: 10,
  /** Subjects read, or percentile rows written, per statement of the job on SQLite: each a few milliseconds. */
  sliceRows: 500,
  /** Work in memory between two turns of the event loop in the job, at most about this long (milliseconds). */
  stepMs: 10,
} as const;

/** A compare page sets 2 to 4 companies or managers side by side. */
export const compareLimits = { min: 2, max: 4 } as const;
