import { data } from "react-router";
import { isDatabaseUnavailable } from "#app/db/unavailable.server.ts";
import { logger } from "#app/lib/logger.server.ts";
import { type FailureKind, type FailureReason, failureDetail, failureText } from "#app/lib/failures.ts";

/**
 * What the root error boundary is given when a page's data could not be read: the sentence to show, made here so
 * that the pages' first load carries no code to make it.
 */
export type LoadFailure = { failureText: string; failureDetail?: string | undefined };

/** An error of ours or of the database, as opposed to a thrown answer (a redirect, a 404) that passes as it is. */
function isFault(error: unknown): error is Error {
  return error instanceof Error;
}

/**
 * The reason the reader is told, after logging the error: the database being away is a warning (answered 503 with
 * Retry-After by entry.server.tsx), anything else an error (500). The error's own text stays in the log.
 */
export function failureReasonOf(error: Error, what: string): FailureReason {
  if (isDatabaseUnavailable(error)) {
    logger.warn({ err: error }, `${what} while the database is unavailable`);
    return "unavailable";
  }
  logger.error({ err: error }, `${what} failed`);
  return "other";
}

/**
 * Runs a loader's (or middleware's) reads and, if they fail, answers with what could not be loaded (the spec's
 * "Error loading companies: {message}" and its kin, shown by the root error boundary) instead of a bare error page.
 */
export async function loadingOr<T>(failure: FailureKind, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isFault(error)) throw error;
    const reason = failureReasonOf(error, `loading (${failure})`);
    const answer: LoadFailure = {
      failureText: failureText(failure, reason),
      failureDetail: failureDetail(failure, reason),
    };
    throw data(answer, { status: reason === "unavailable" ? 503 : 500 });
  }
}
