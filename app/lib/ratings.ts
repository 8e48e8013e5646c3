/**
 * The rating vocabulary of the product: criteria, yes/no questions, scale labels and faces.
 * Shared by the server (schemas, aggregates) and the browser (forms, bars).
 */

export const scaleLabels = ["Awful", "Ok", "Good", "Great", "Awesome"] as const;

/** Faces for a rating of 0 (no rating yet) to 5. */
export const ratingFaces = ["😶", "😠", "🙁", "😐", "🙂", "😄"] as const;
export const ratingFaceNames = ["No rating", "Awful", "Ok", "Good", "Great", "Awesome"] as const;

export const companyCriteria = [
  "reputation",
  "opportunities",
  "facilities",
  "engagement",
  "social",
  "location",
  "culture",
  "leadership",
  "balance",
  "growth",
  "stability",
  "innovation",
  "transparency",
] as const;
export type CompanyCriterion = (typeof companyCriteria)[number];

export const companyYesNo = ["again", "recommend", "has_oncall"] as const;
export type CompanyYesNo = (typeof companyYesNo)[number];
/** The company questions counted as shares of yes ("% would recommend"); on-call duty is a fact, not a verdict. */
export const companyCountedYesNo = ["again", "recommend"] as const satisfies readonly CompanyYesNo[];

export const managerCriteria = [
  "empathy",
  "reputation",
  "coaching",
  "decision_making",
  "trust",
  "conflict_resolution",
  "adaptability",
  "advocacy",
  "knowledge",
  "transparency",
  "time_management",
  "vision",
] as const;
export type ManagerCriterion = (typeof managerCriteria)[number];

export const managerYesNo = ["recommended", "invested", "communication", "gives_credit", "again"] as const;
export type ManagerYesNo = (typeof managerYesNo)[number];

export const criterionLabels: Record<CompanyCriterion | ManagerCriterion, string> = {
  reputation: "Reputation",
  opportunities: "Opportunities",
  facilities: "Facilities",
  engagement: "Engagement",
  social: "Social",
  location: "Location",
  culture: "Culture",
  leadership: "Leadership",
  balance: "Work-life balance",
  growth: "Growth",
  stability: "Stability",
  innovation: "Innovation",
  transparency: "Transparency",
  empathy: "Empathy",
  coaching: "Coaching",
  decision_making: "Decision making",
  trust: "Trust",
  conflict_resolution: "Conflict resolution",
  adaptability: "Adaptability",
  advocacy: "Advocacy",
  knowledge: "Knowledge",
  time_management: "Time management",
  vision: "Vision",
};

/** The yes/no questions of a company review. */
export const companyYesNoQuestions: Record<CompanyYesNo, string> = {
  again: "Would you work here again?",
  recommend: "Would you recommend this company to a friend?",
  has_oncall: "Does the job include on-call duty?",
};

/** The yes/no questions of a manager review: each about the manager, `again` too. */
export const managerYesNoQuestions: Record<ManagerYesNo, string> = {
  recommended: "Would you recommend this manager?",
  invested: "Is this manager invested in your growth?",
  communication: "Does this manager communicate clearly?",
  gives_credit: "Does this manager give credit where it is due?",
  again: "Would you work for this manager again?",
};

/** What a share of yes answers says on a company page: "67% would recommend". */
export const companyShareLabels: Record<(typeof companyCountedYesNo)[number], string> = {
  recommend: "would recommend",
  again: "would work here again",
};

/** What a share of yes answers says on a manager page: approval of each yes/no question. */
export const managerShareLabels: Record<ManagerYesNo, string> = {
  recommended: "would recommend this manager",
  invested: "say this manager is invested in their growth",
  communication: "say this manager communicates clearly",
  gives_credit: "say this manager gives credit where it is due",
  again: "would work for this manager again",
};

/** Short labels for yes/no flags on review cards. */
export const yesNoFlags: Record<ManagerYesNo, string> = {
  recommended: "Recommended",
  invested: "Invested in growth",
  communication: "Communicates clearly",
  gives_credit: "Gives credit",
  again: "Would work for again",
};

/** The three groups of bars shown for a company (spec: "three groups of bars of averaged criteria"). */
export const companyCriteriaGroups: ReadonlyArray<{ title: string; criteria: readonly CompanyCriterion[] }> = [
  { title: "Career", criteria: ["reputation", "opportunities", "growth", "stability", "innovation"] },
  { title: "Workplace", criteria: ["facilities", "location", "balance", "social", "engagement"] },
  { title: "Leadership and culture", criteria: ["culture", "leadership", "transparency"] },
];

export const managerCriteriaGroups: ReadonlyArray<{ title: string; criteria: readonly ManagerCriterion[] }> = [
  { title: "People", criteria: ["empathy", "trust", "advocacy", "conflict_resolution"] },
  { title: "Leadership", criteria: ["vision", "decision_making", "transparency", "reputation"] },
  { title: "Craft", criteria: ["coaching", "knowledge", "adaptability", "time_management"] },
];

/** The mean of the rating fields, floored to a whole number (0 when there is nothing to average). */
export function averageScore(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return Math.max(0, Math.min(5, Math.floor(mean)));
}

/**
 * The order of "Best rated" lists (`rating_rank`): the mean of all ratings drawn towards the middle of the scale as if
 * `rankPrior.reviews` more reviews had rated every criterion `rankPrior.score`, so a subject with one 5-star review
 * ranks below one with many good ones; 0 without reviews. `ratingSum` is the sum of every criterion of every review.
 * The SQL of app/domain/aggregates.server.ts computes the same double-precision division.
 */
export const rankPrior = { score: 3, reviews: 5 } as const;

export function ratingRank(ratingSum: number, reviewCount: number, criteriaCount: number): number {
  if (reviewCount <= 0) return 0;
  return (
    (ratingSum + rankPrior.score * rankPrior.reviews * criteriaCount) /
    (criteriaCount * (reviewCount + rankPrior.reviews))
  );
}

/**
 * Width of a rating bar: the value relative to the top of the scale, linear, so 5 fills the bar, 3 fills 60% and
 * 1 fills 20% wherever a rating is drawn (the spec's square root made 3.0 fill 77%: decision 0021).
 */
export function barPercent(value: number): number {
  if (!(value > 0)) return 0;
  return Math.min(100, (value / 5) * 100);
}
