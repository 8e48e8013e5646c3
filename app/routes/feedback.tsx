import { Form, useNavigation } from "react-router";
import type { Route } from "./+types/feedback.ts";
import { Field, FormMessage, TextAreaField } from "#app/components/form.tsx";
import { feedbackMessages, feedbackSchema, sendFeedback } from "#app/domain/feedback.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { field, fieldErrorsOf, formFailure, rateLimitOrNull, readForm, retryAfterOf } from "#app/http/forms.server.ts";
import { logger } from "#app/lib/logger.server.ts";
import { messages } from "#app/lib/messages.ts";
import { feedbackLengths } from "#app/lib/limits.ts";

/** A refused submission's page carries the Retry-After of the rate limit that refused it. */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  return retryAfterOf(actionHeaders);
}

/** A field people cannot see or reach; bots that fill every field give themselves away. */
const honeypot = "website";

export async function action({ context, request }: Route.ActionArgs) {
  const form = await readForm(request);
  const values = {
    email: field(form, "email"),
    subject: field(form, "subject"),
    message: field(form, "message"),
    comment: field(form, "comment"),
  };
  if (field(form, honeypot)) return { sent: feedbackMessages.sent };
  const limited = await rateLimitOrNull("feedback", context.get(clientContext).ipKey);
  if (limited) return limited;
  const parsed = feedbackSchema.safeParse(values);
  if (!parsed.success) return formFailure({ fieldErrors: fieldErrorsOf(parsed.error), values });
  try {
    await sendFeedback(parsed.data);
  } catch (error) {
    logger.error({ err: error }, "feedback mail failed");
    return formFailure({ formError: feedbackMessages.failed, values }, 502);
  }
  return { sent: feedbackMessages.sent };
}

export default function FeedbackPage({ actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const sent = actionData && "sent" in actionData ? actionData.sent : undefined;
  const failure = actionData && !("sent" in actionData) ? actionData : undefined;
  const value = (key: string) => {
    const entry = failure?.values?.[key];
    return typeof entry === "string" ? entry : undefined;
  };
  return (
    <section className="page narrow">
      <title>{`Contact us · ${messages.siteName}`}</title>
      <h1>Contact us</h1>
      <p>Questions, corrections or a review that breaks the guidelines: write to the people who run this site.</p>
      <FormMessage error={failure?.formError} success={sent} />
      <Form method="post" className="stack" key={sent ? "sent" : "form"}>
        <Field
          label="Email (optional, for a reply)"
          name="email"
          type="email"
          autoComplete="email"
          defaultValue={value("email")}
          error={failure?.fieldErrors?.email}
        />
        <Field
          label="Subject"
          name="subject"
          required
          maxLength={feedbackLengths.subject}
          defaultValue={value("subject")}
          error={failure?.fieldErrors?.subject}
        />
        <TextAreaField
          label="Message"
          name="message"
          rows={6}
          required
          maxLength={feedbackLengths.message}
          defaultValue={value("message")}
          error={failure?.fieldErrors?.message}
        />
        <TextAreaField
          label="Comment (optional)"
          name="comment"
          rows={3}
          maxLength={feedbackLengths.comment}
          defaultValue={value("comment")}
        />
        <div className="honeypot" aria-hidden="true">
          <label htmlFor={honeypot}>Leave this empty</label>
          <input id={honeypot} name={honeypot} type="text" tabIndex={-1} autoComplete="off" />
        </div>
        <p className="submit-notice">{messages.ipLogged}</p>
        <button type="submit" className="button" disabled={navigation.state === "submitting"}>
          Send
        </button>
      </Form>
    </section>
  );
}
