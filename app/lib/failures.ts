import { contributionMessages, failureMessages } from "./messages.ts";

export type FailureKind = keyof typeof failureMessages;

/** Why it failed, in the reader's words: the database briefly away, the network, or anything else. */
export type FailureReason = "unavailable" | "network" | "other";

/**
 * Why a request of the page's own code failed: no answer at all ("Failed to fetch", `status` still 0) is the
 * network's fault, a 503 the database briefly away, any other error answer ours.
 */
export function fetchFailureReason(status: number, error: unknown): FailureReason {
  if (status === 0 && error instanceof TypeError) return "network";
  return status === 503 ? "unavailable" : "other";
}

const reasons: Record<FailureReason, string> = {
  unavailable: contributionMessages.unavailable,
  network: contributionMessages.network,
  other: contributionMessages.somethingWrong,
};

/** "Error loading companies: Something went wrong, please try again"; the spec's search failure takes no message. */
export function failureText(kind: FailureKind, reason: FailureReason): string {
  if (kind === "search") return failureMessages.search;
  return `${failureMessages[kind]}: ${reasons[reason]}`;
}

/** The reason said apart, for the failure whose own words take none ("Error searching companies"). */
export function failureDetail(kind: FailureKind, reason: FailureReason): string | undefined {
  return kind === "search" ? reasons[reason] : undefined;
}
