import { redirect } from "react-router";
import type { z } from "zod";
import { ContributionError, type Submission } from "#app/domain/contributions.server.ts";
import { VerificationError } from "#app/domain/verification.server.ts";
import { fieldErrorsOf, formFailure, rateLimitOrNull } from "#app/http/forms.server.ts";
import { contributionMessages, type PublicationNoteKind } from "#app/lib/messages.ts";
import { failureText } from "#app/lib/failures.ts";
import { failureReasonOf } from "#app/http/load-failure.server.ts";
import { unavailableRetryAfterSeconds } from "#app/db/unavailable.server.ts";
import { setBadgeNote, setPublicationNote, setReviewKey, setToast, type ToastKind } from "#app/http/session.server.ts";
import type { RateLimitName } from "#app/lib/rate-limit.server.ts";
import { formRefusal } from "#app/lib/form-refusal.ts";

export { correctFields } from "#app/lib/form-refusal.ts";

/**
 * The rate limit a contribution counts against, per kind of write: one bucket whether it comes by form or by the JSON
 * API, so a second door does not double the allowance.
 */
export const contributionLimits = {
  companyReview: "review",
  managerReview: "review",
  company: "contribution",
  manager: "contribution",
} as const satisfies Record<string, RateLimitName>;

export type ContributionKind = keyof typeof contributionLimits;

/**
 * Parses several parts of one form; on failure, answers 400 with every refused field at once. A part whose inputs
 * carry a prefix in the form (`company_city`) names its refused fields with that prefix too.
 */
export function parseParts<T extends Record<string, z.ZodType>>(
  schemas: T,
  inputs: { [K in keyof T]: unknown },
  values: Record<string, unknown>,
  prefixes: { [K in keyof T]?: string } = {},
): { ok: true; data: { [K in keyof T]: z.infer<T[K]> } } | { ok: false; response: ReturnType<typeof formFailure> } {
  const parsed: Record<string, unknown> = {};
  const refused: { field: string; message: string }[] = [];
  for (const key of Object.keys(schemas)) {
    const result = schemas[key]!.safeParse(inputs[key]);
    if (result.success) {
      parsed[key] = result.data;
      continue;
    }
    const prefix = prefixes[key] ?? "";
    for (const [field, message] of Object.entries(fieldErrorsOf(result.error))) {
      refused.push({ field: `${prefix}${field}`, message });
    }
  }
  // A single problem is said in the message box itself; several point at the highlighted fields.
  if (refused.length > 0) return { ok: false, response: formFailure({ ...formRefusal(refused), values }) };
  return { ok: true, data: parsed as { [K in keyof T]: z.infer<T[K]> } };
}

/**
 * Turns a refused write (already reviewed, company exists, not found) into the form's answer. A write that failed
 * (the database away, a fault of ours) comes back as the form again with what was typed and the spec's words for it:
 * "Error inserting data: {message}", or for a new manager "Something went wrong, please try again". The write ran in
 * one transaction, so nothing of it was stored.
 */
export function contributionRefusal(error: unknown, values: Record<string, unknown>, kind: ContributionKind) {
  if (error instanceof ContributionError) return formFailure({ formError: error.message, values }, error.status);
  if (error instanceof VerificationError) {
    return formFailure({ formError: error.message, fieldErrors: { verification_token: true }, values }, error.status);
  }
  if (!(error instanceof Error)) throw error;
  const reason = failureReasonOf(error, `a contribution (${kind})`);
  const formError =
    kind !== "manager"
      ? failureText("insert", reason)
      : reason === "unavailable"
        ? contributionMessages.unavailable
        : contributionMessages.somethingWrong;
  if (reason !== "unavailable") return formFailure({ formError, values }, 500);
  return formFailure({ formError, values }, 503, { "Retry-After": String(unavailableRetryAfterSeconds) });
}

/**
 * The redirect after a submission, with the spec's toast: to the published subject when it was published at once
 * (PUBLISH_INTERVAL=0), otherwise to `queued` (a page that exists already) with the note of when it will appear.
 */
export function afterSubmission(
  submission: Submission,
  toast: ToastKind,
  targets: { published: (id: number) => string; queued: string; note: PublicationNoteKind },
): never {
  const headers = setReviewKey(setToast(new Headers(), toast), submission.reviewKey);
  if (submission.badge) setBadgeNote(headers, submission.badge);
  if (submission.published) throw redirect(targets.published(submission.id), { headers });
  throw redirect(targets.queued, { headers: setPublicationNote(headers, targets.note) });
}

type Parts = Record<string, z.ZodType>;
type Parsed<T extends Parts> = { [K in keyof T]: z.infer<T[K]> };

/**
 * The action of a contribution form, after the route has found who writes and about what: counts the attempt against
 * the kind's rate limit, runs `check` (a refusal of its own, or nothing), parses the parts (every refused field at
 * once), writes, and redirects with the toast and, when queued, the note of when it will appear. Any refusal comes
 * back as the form's failure with what was typed.
 */
export async function contributionAction<T extends Parts>(options: {
  kind: ContributionKind;
  ipKey: string;
  values: Record<string, unknown>;
  check?: () => ReturnType<typeof formFailure> | undefined;
  parts: T;
  inputs: { [K in keyof T]: unknown };
  prefixes?: { [K in keyof T]?: string };
  write: (parsed: Parsed<T>) => Promise<Submission>;
  toast: ToastKind;
  targets: (parsed: Parsed<T>) => { published: (id: number) => string; queued: string; note: PublicationNoteKind };
}) {
  const { values } = options;
  const limited = await rateLimitOrNull(contributionLimits[options.kind], options.ipKey);
  if (limited) return limited;
  const refused = options.check?.();
  if (refused) return refused;
  const parsed = parseParts(options.parts, options.inputs, values, options.prefixes);
  if (!parsed.ok) return parsed.response;
  let submission: Submission;
  try {
    submission = await options.write(parsed.data);
  } catch (error) {
    return contributionRefusal(error, values, options.kind);
  }
  return afterSubmission(submission, options.toast, options.targets(parsed.data));
}
