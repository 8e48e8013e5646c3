import { data, Form, Link, useNavigation } from "react-router";
import type { Route } from "./+types/moderation-queue.ts";
import { FormMessage, TextAreaField, fieldClass } from "#app/components/form.tsx";
import { CompanyReview, ManagerReview } from "#app/components/review-card.tsx";
import { database } from "#app/db/database.server.ts";
import { decide, decisionSchema, ModerationError, moderationQueue } from "#app/domain/moderation.server.ts";
import { openAlerts, releaseAlert, releaseSchema } from "#app/domain/signals.server.ts";
import { field, fieldErrorsOf, formFailure, readForm } from "#app/http/forms.server.ts";
import { moderatorOrNull } from "#app/http/session.server.ts";
import { formatDay } from "#app/lib/format.ts";
import { messages } from "#app/lib/messages.ts";
import {
  moderationLengths,
  moderationMessages,
  reportReasonCodes,
  reportReasons,
  signalLabels,
  signalMessages,
} from "#app/lib/moderation.ts";
import { paths } from "#app/lib/paths.ts";

export async function loader({ context, url }: Route.LoaderArgs) {
  const moderator = await moderatorOrNull(context, url);
  if (!moderator) return data({ moderator: null, queue: [], alerts: [] }, { status: 403 });
  return { moderator, queue: await moderationQueue(database().db), alerts: await openAlerts(database().db) };
}

/** A moderator's release of a manipulation alert, from the alerts' forms. */
async function release(form: FormData, pseudonym: string) {
  const alertId = field(form, "alertId");
  const values = { statement: field(form, "statement"), alertId };
  const parsed = releaseSchema.safeParse(values);
  if (!parsed.success) return formFailure({ fieldErrors: fieldErrorsOf(parsed.error), values });
  try {
    await releaseAlert(database().db, Number(alertId), parsed.data.statement, pseudonym);
    return { decided: signalMessages.released };
  } catch (error) {
    if (error instanceof ModerationError) return formFailure({ formError: error.message, values }, error.status);
    throw error;
  }
}

export async function action({ context, request, url }: Route.ActionArgs) {
  const moderator = await moderatorOrNull(context, url);
  if (!moderator) return formFailure({ formError: moderationMessages.forbidden }, 403);
  const form = await readForm(request);
  if (field(form, "intent") === "release") return release(form, moderator.pseudonym);
  const reviewId = field(form, "reviewId");
  const values = {
    action: field(form, "action"),
    reason: field(form, "reason") || null,
    statement: field(form, "statement"),
  };
  const parsed = decisionSchema.safeParse(values);
  if (!parsed.success) {
    return formFailure({ fieldErrors: fieldErrorsOf(parsed.error), values: { ...values, reviewId } });
  }
  try {
    const decision = await decide(database().db, reviewId, parsed.data, moderator.pseudonym);
    return { decided: `${moderationMessages.decided} (decision ${decision.id})` };
  } catch (error) {
    if (error instanceof ModerationError) {
      return formFailure({ formError: error.message, values: { ...values, reviewId } }, error.status);
    }
    throw error;
  }
}

export default function ModerationQueuePage({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const { moderator, queue, alerts } = loaderData;
  const decided = actionData && "decided" in actionData ? actionData.decided : undefined;
  const failure = actionData && !("decided" in actionData) ? actionData : undefined;
  if (!moderator) {
    return (
      <section className="page narrow">
        <title>{`Moderation queue · ${messages.siteName}`}</title>
        <h1>Moderation queue</h1>
        <p role="alert">{moderationMessages.forbidden}</p>
      </section>
    );
  }
  const failedReview = failure?.values?.reviewId;
  const failedAlert = failure?.values?.alertId;
  return (
    <section className="page">
      <title>{`Moderation queue · ${messages.siteName}`}</title>
      <h1>Moderation queue</h1>
      <p>
        Signed in as {moderator.pseudonym}: readers see this name, never your e-mail. Reports are grouped per review,
        the oldest first. Decisions are published in the <Link to={paths.moderationLog()}>moderation log</Link>.
      </p>
      <FormMessage
        error={failedReview === undefined && failedAlert === undefined ? failure?.formError : undefined}
        success={decided}
      />
      <h2>Unusual activity</h2>
      {alerts.length === 0 ? <p>No open alerts.</p> : null}
      <p className="muted">
        A signal flags a company or manager, never a review: its new reviews wait, sealed, until you release the alert.
        To act on a single review, report it.
      </p>
      <ol className="moderation-alerts">
        {alerts.map((alert) => {
          const errors = failedAlert === String(alert.alertId) ? failure : undefined;
          return (
            <li key={alert.alertId} className="card stack">
              <h3>
                <Link to={alert.subjectPath}>{alert.subjectName}</Link>: {signalLabels[alert.signal]}
              </h3>
              <p>
                {alert.detail} <span className="muted">(raised {formatDay(alert.raisedOn)})</span>
              </p>
              <Form method="post" className="stack" aria-label={`Release the alert on ${alert.subjectName}`}>
                <input type="hidden" name="intent" value="release" />
                <input type="hidden" name="alertId" value={alert.alertId} />
                <FormMessage error={errors?.formError} />
                <TextAreaField
                  label="Statement (what you checked)"
                  name="statement"
                  rows={2}
                  required
                  maxLength={moderationLengths.statement}
                  defaultValue={typeof errors?.values?.statement === "string" ? errors.values.statement : undefined}
                  error={errors?.fieldErrors?.statement}
                />
                <button type="submit" className="button" disabled={navigation.state === "submitting"}>
                  Release the alert
                </button>
              </Form>
            </li>
          );
        })}
      </ol>
      <h2>Reported reviews</h2>
      {queue.length === 0 ? <p>No open reports.</p> : null}
      <ol className="moderation-queue">
        {queue.map((item) => {
          const errors = failedReview === item.reviewId ? failure : undefined;
          const prefix = `review-${item.reviewId}`;
          return (
            <li key={item.reviewId} className="card stack">
              <h3>
                Review of <Link to={item.subjectPath}>{item.subjectName}</Link>
                {item.removed ? " (removed)" : ""}
              </h3>
              <p className="muted">First reported {formatDay(item.firstReceived)}</p>
              <ul aria-label="Reports">
                {item.reports.map((report, index) => (
                  <li key={index}>
                    <strong>{reportReasons[report.reason].label}</strong> ({formatDay(report.receivedOn)}):{" "}
                    {reportReasons[report.reason].explanation}
                    {report.explanation ? <q>{report.explanation}</q> : null}
                  </li>
                ))}
              </ul>
              {item.appeals.length > 0 ? (
                <ul aria-label="Appeals of the author">
                  {item.appeals.map((appeal, index) => (
                    <li key={index}>
                      <strong>Appeal</strong> ({formatDay(appeal.receivedOn)}): <q>{appeal.statement}</q>
                    </li>
                  ))}
                </ul>
              ) : null}
              {item.subject === "company" ? (
                <CompanyReview review={item.review} />
              ) : (
                <ManagerReview review={item.review} />
              )}
              <Form method="post" className="stack" aria-label={`Decision on the review of ${item.subjectName}`}>
                <input type="hidden" name="reviewId" value={item.reviewId} />
                <FormMessage error={errors?.formError} />
                <fieldset className="choices">
                  <legend>Decision</legend>
                  {(item.removed ? (["keep", "restore"] as const) : (["keep", "remove"] as const)).map((choice) => (
                    <div key={choice} className="choice">
                      <input
                        type="radio"
                        id={`${prefix}-${choice}`}
                        name="action"
                        value={choice}
                        required
                        defaultChecked={errors?.values?.action === choice}
                      />
                      <label htmlFor={`${prefix}-${choice}`}>
                        {
                          { keep: "Keep the review", remove: "Remove the review", restore: "Restore the review" }[
                            choice
                          ]
                        }
                      </label>
                    </div>
                  ))}
                </fieldset>
                <div className={fieldClass(errors?.fieldErrors?.reason)}>
                  <label htmlFor={`${prefix}-reason`}>Reason (for a removal)</label>
                  <select
                    id={`${prefix}-reason`}
                    name="reason"
                    defaultValue={String(errors?.values?.reason ?? item.reports[0]?.reason ?? "")}
                  >
                    <option value="">—</option>
                    {reportReasonCodes.map((code) => (
                      <option key={code} value={code}>
                        {reportReasons[code].label}
                      </option>
                    ))}
                  </select>
                  {errors?.fieldErrors?.reason ? <p className="field-error">{errors.fieldErrors.reason}</p> : null}
                </div>
                <TextAreaField
                  label="Statement of reasons (published)"
                  name="statement"
                  rows={3}
                  required
                  maxLength={moderationLengths.statement}
                  defaultValue={typeof errors?.values?.statement === "string" ? errors.values.statement : undefined}
                  error={errors?.fieldErrors?.statement}
                />
                <button type="submit" className="button" disabled={navigation.state === "submitting"}>
                  Publish decision
                </button>
              </Form>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
