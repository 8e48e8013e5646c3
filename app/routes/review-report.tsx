import { data, Form, Link, useNavigation } from "react-router";
import type { Route } from "./+types/review-report.ts";
import { Field, FormMessage, TextAreaField } from "#app/components/form.tsx";
import { database } from "#app/db/database.server.ts";
import { findReview, ModerationError, reportReview, reportSchema, subjectPath } from "#app/domain/moderation.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { field, fieldErrorsOf, formFailure, rateLimitOrNull, readForm, retryAfterOf } from "#app/http/forms.server.ts";
import { messages } from "#app/lib/messages.ts";
import { moderationLengths, moderationMessages, reportReasonCodes, reportReasons } from "#app/lib/moderation.ts";
import { paths } from "#app/lib/paths.ts";

/** A refused report's page carries the Retry-After of the rate limit that refused it. */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  return retryAfterOf(actionHeaders);
}

export async function loader({ params }: Route.LoaderArgs) {
  const review = await findReview(database().db, params.reviewId);
  if (!review || review.removedBy !== null) return data({ back: null }, { status: 404 });
  return { back: subjectPath(review.kind, review.subjectId) };
}

export async function action({ context, params, request }: Route.ActionArgs) {
  const form = await readForm(request);
  const values = {
    reason: field(form, "reason"),
    explanation: field(form, "explanation"),
    contactEmail: field(form, "contactEmail"),
  };
  const limited = await rateLimitOrNull("report", context.get(clientContext).ipKey);
  if (limited) return limited;
  const parsed = reportSchema.safeParse(values);
  if (!parsed.success) return formFailure({ fieldErrors: fieldErrorsOf(parsed.error), values });
  try {
    const id = await reportReview(database().db, params.reviewId, parsed.data);
    return { sent: moderationMessages.reportSent, report: id };
  } catch (error) {
    if (error instanceof ModerationError) return formFailure({ formError: error.message, values }, error.status);
    throw error;
  }
}

export default function ReviewReportPage({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const sent = actionData && "sent" in actionData ? actionData.sent : undefined;
  const failure = actionData && !("sent" in actionData) ? actionData : undefined;
  const value = (key: string) => {
    const entry = failure?.values?.[key];
    return typeof entry === "string" ? entry : undefined;
  };
  if (!loaderData.back) {
    return (
      <section className="page narrow">
        <title>{`${moderationMessages.reviewNotFound} · ${messages.siteName}`}</title>
        <h1>Report a review</h1>
        <p role="alert">{moderationMessages.reviewNotFound}</p>
        <p>
          <Link to={paths.home()}>Back to the search</Link>
        </p>
      </section>
    );
  }
  const reasonError = failure?.fieldErrors?.reason;
  return (
    <section className="page narrow">
      <title>{`Report a review · ${messages.siteName}`}</title>
      <h1>Report a review</h1>
      <p>
        Tell the moderators why this review breaks the <Link to={paths.guidelines()}>posting guidelines</Link>. You need
        no account. Every decision is published in the <Link to={paths.moderationLog()}>moderation log</Link>.
      </p>
      <FormMessage error={failure?.formError} success={sent} />
      {sent ? (
        <p>
          <Link to={loaderData.back}>Back to the reviews</Link>
        </p>
      ) : (
        <Form method="post" className="stack">
          <fieldset
            className={reasonError ? "choices invalid" : "choices"}
            aria-describedby={reasonError ? "reason-error" : undefined}
          >
            <legend>Why should this review be removed?</legend>
            {reportReasonCodes.map((code) => (
              <div key={code} className="choice">
                <input
                  type="radio"
                  id={`reason-${code}`}
                  name="reason"
                  value={code}
                  required
                  defaultChecked={value("reason") === code}
                  aria-describedby={`reason-${code}-explanation`}
                />
                <label htmlFor={`reason-${code}`}>{capitalised(reportReasons[code].label)}</label>
                <p id={`reason-${code}-explanation`} className="hint">
                  {reportReasons[code].explanation}
                </p>
              </div>
            ))}
            {reasonError ? (
              <p id="reason-error" className="field-error">
                {reasonError}
              </p>
            ) : null}
          </fieldset>
          <TextAreaField
            label="Explanation (optional)"
            name="explanation"
            rows={4}
            maxLength={moderationLengths.explanation}
            defaultValue={value("explanation")}
            error={failure?.fieldErrors?.explanation}
          />
          <Field
            label="Your e-mail address (optional, for the decision)"
            name="contactEmail"
            type="email"
            autoComplete="email"
            hint="Used once to tell you the decision, then erased."
            defaultValue={value("contactEmail")}
            error={failure?.fieldErrors?.contactEmail}
          />
          <button type="submit" className="button" disabled={navigation.state === "submitting"}>
            Send report
          </button>
        </Form>
      )}
    </section>
  );
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
