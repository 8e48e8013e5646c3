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
 * Width of a bar in the company overview (spec: the square root of the value times 10, capped at 100%).
 * The value is the average as a percentage of the top of the scale, so 5 fills the bar and 1 shows 45%.
 */
export function overviewBarPercent(average: number): number {
  if (!(average > 0)) return 0;
  return Math.min(100, Math.sqrt((average / 5) * 100) * 10);
}

/** Nested bars on review cards use the value relative to 5. */
export function nestedBarPercent(value: number): number {
  return Math.max(0, Math.min(100, (value / 5) * 100));
}
