/**
 * Why a review may be reported and removed: each reason with the words a reader sees when reporting, and the short
 * label the public moderation log and a removed review's marker show. The codes are stored; migration 0007 carries
 * its own copy of the list.
 */
export const reportReasons = {
  "not-first-hand": {
    label: "not first-hand experience",
    explanation: "The author did not work with this manager or at this company, or writes from hearsay.",
  },
  "private-person": {
    label: "names a private person",
    explanation: "The review names or identifies someone other than the manager reviewed, such as a colleague.",
  },
  harassment: {
    label: "harassment or hate",
    explanation: "Insults, threats, or attacks on someone for who they are.",
  },
  "crime-as-fact": {
    label: "crime alleged as fact",
    explanation: "The review accuses someone of a crime as a fact rather than describing what the author saw.",
  },
  confidential: {
    label: "confidential information",
    explanation: "Trade secrets, unreleased plans, salaries of named people or other information shared in confidence.",
  },
  fake: {
    label: "fake or incentivised",
    explanation: "Written for pay or reward, by the company itself, or by someone pretending to be an employee.",
  },
  spam: { label: "spam", explanation: "Advertising, nonsense, or text unrelated to the manager or company." },
  duplicate: { label: "duplicate", explanation: "The same review posted more than once." },
  "legal-order": {
    label: "legal order",
    explanation: "A court or authority has ordered the review removed, or it is otherwise unlawful where you are.",
  },
} as const;

export type ReportReason = keyof typeof reportReasons;
export const reportReasonCodes = Object.keys(reportReasons) as ReportReason[];

export function isReportReason(value: unknown): value is ReportReason {
  return typeof value === "string" && Object.hasOwn(reportReasons, value);
}

export const moderationActions = ["keep", "remove", "restore"] as const;
export type ModerationAction = (typeof moderationActions)[number];

export const moderationRoles = ["moderator", "admin"] as const;
export type ModerationRole = (typeof moderationRoles)[number];

export const moderationLengths = { explanation: 2000, statement: 2000 } as const;

export const moderationMessages = {
  reportSent: "Thank you. Your report is in the moderators' queue; every decision is published in the moderation log.",
  reasonRequired: "Choose why this review breaks the guidelines.",
  reviewNotFound: "This review does not exist or was withdrawn.",
  statementRequired: "Write a statement of reasons: it is published with the decision.",
  removeNeedsReason: "Choose the reason for the removal.",
  alreadyRemoved: "This review is removed already.",
  notRemoved: "Only a removed review can be restored.",
  decided: "Decision published.",
  forbidden: "Only moderators may do this.",
  emailInvalid: "Enter a valid e-mail address, or leave it empty.",
  keyUnknown: "This key opens no review. Check that you copied all of it.",
  appealStatementRequired: "Say why the review should be restored.",
  appealNotRemoved: "This review is not removed: there is nothing to appeal. You can still withdraw it.",
  appealSent: "Your appeal is in the moderators' queue. The decision will appear in the moderation log.",
  appealWaiting:
    "Your appeal of this removal is already in the moderators' queue. The decision will appear in the moderation log.",
  withdrawn: "Your review is withdrawn: it is deleted and no longer counts in the ratings.",
} as const;

/** What a manipulation signal is called where moderators and the public see it. */
export const signalLabels = {
  "volume-spike": "a sudden surge of reviews",
  "rating-shift": "a sharp change in ratings",
  "near-duplicates": "near-identical texts",
} as const;
export type SignalCode = keyof typeof signalLabels;
export const signalCodes = Object.keys(signalLabels) as SignalCode[];

export const signalMessages = {
  unusualActivityTitle: "Unusual activity",
  unusualActivity:
    "Our automatic checks noticed an unusual pattern in the recent reviews here (a sudden surge, a sharp change in ratings or near-identical texts). New reviews wait for a moderator before they appear. This does not mean that any review shown here is fake.",
  alertNotFound: "There is no such alert.",
  alreadyReleased: "This alert is released already.",
  released: "Alert released: the waiting reviews go out with the next batch.",
} as const;

/** The marker a removed review leaves in its place: "Removed in November 2026 — names a private person — decision 12". */
export function removalMarker(monthText: string, reason: ReportReason, decision: number): string {
  return `Removed in ${monthText} — ${reportReasons[reason].label} — decision ${decision}`;
}
