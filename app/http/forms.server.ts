import { data } from "react-router";
import { isBodyTooLarge } from "#app/http/api-request.server.ts";
import type { z } from "zod";
import type { FieldProblem } from "#app/lib/form-refusal.ts";
import {
  beginPasswordAttempt,
  consume,
  type PasswordAttempt,
  type RateLimitName,
  RateLimitedError,
} from "#app/lib/rate-limit.server.ts";

/** The 400 for a page action sent a body that is no form. */
const notAForm = "This address takes a form (application/x-www-form-urlencoded or multipart/form-data).";

/** What a form action answers on bad input: a message for the form and one per field, as in the spec's message box. */
export type FormFailure = {
  formError?: string;
  fieldErrors?: Record<string, FieldProblem>;
  /** What was submitted, to fill the form again. */
  values?: Record<string, unknown>;
};

/**
 * The form a page's action was sent. A body that is no form (another content type, a broken multipart body) is
 * answered 400, as bad input, instead of failing the action with a 500; a body cut off at the size limit was
 * answered 413 by the server already (server/body-limit.ts) and stays that error.
 */
export async function readForm(request: Request): Promise<FormData> {
  try {
    return await request.formData();
  } catch (error) {
    if (isBodyTooLarge(error)) throw error;
    throw data(notAForm, { status: 400 });
  }
}

export function formFailure(failure: FormFailure, status = 400, headers?: HeadersInit) {
  return data(failure, { status, headers });
}

/** The first message of each field of a failed zod parse. */
export function fieldErrorsOf(error: z.ZodError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? "form");
    errors[field] ??= issue.message;
  }
  return errors;
}

/**
 * For a route's `headers` export: the page answering a refused action carries its Retry-After. React Router forwards
 * only the cookies of an action's headers unless the route says which others to send.
 */
export function retryAfterOf(actionHeaders: Headers): Headers {
  const headers = new Headers();
  const retryAfter = actionHeaders.get("Retry-After");
  if (retryAfter) headers.set("Retry-After", retryAfter);
  return headers;
}

/** Counts an attempt; once the limit is spent, answers 429 with Retry-After instead of running the action. */
export async function rateLimitOrNull(name: RateLimitName, key: string) {
  return limitedOrNull(() => consume(name, key));
}

/**
 * Runs `count` (a rate-limit check that throws RateLimitedError once spent): null when it passes, else the 429
 * answer with Retry-After.
 */
export async function limitedOrNull(count: () => Promise<unknown>) {
  try {
    await count();
    return null;
  } catch (error) {
    return refusalOf(error);
  }
}

function refusalOf(error: unknown) {
  if (!(error instanceof RateLimitedError)) throw error;
  return formFailure({ formError: error.message }, 429, { "Retry-After": String(error.retryAfterSeconds) });
}

/**
 * Counts a password (or code) check before it runs (beginPasswordAttempt): either the attempt, to be told of a
 * success, or the 429 answer once a limit is spent.
 */
export async function passwordAttemptOr429(
  ipKey: string,
  accountKey: string | null,
): Promise<{ attempt: PasswordAttempt; refused: null } | { attempt: null; refused: ReturnType<typeof refusalOf> }> {
  try {
    return { attempt: await beginPasswordAttempt(ipKey, accountKey), refused: null };
  } catch (error) {
    return { attempt: null, refused: refusalOf(error) };
  }
}

/** Reads a form field as a string (absent and file fields read as ""). */
export function field(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
}
