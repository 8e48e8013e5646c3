import { Form, Link, useNavigation } from "react-router";
import type { Route } from "./+types/review-key.ts";
import { Field, FormMessage, TextAreaField } from "#app/components/form.tsx";
import { database } from "#app/db/database.server.ts";
import {
  appealRemoval,
  ModerationError,
  reviewKeyRequestSchema,
  withdrawReview,
} from "#app/domain/moderation.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { field, fieldErrorsOf, formFailure, rateLimitOrNull, readForm, retryAfterOf } from "#app/http/forms.server.ts";
import { messages } from "#app/lib/messages.ts";
import { moderationLengths, moderationMessages } from "#app/lib/moderation.ts";
import { paths } from "#app/lib/paths.ts";

/** A refused request's page carries the Retry-After of the rate limit that refused it. */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  return retryAfterOf(actionHeaders);
}

export async function action({ context, request }: Route.ActionArgs) {
  const form = await readForm(request);
  // The key is never sent back to the page: a refused form asks for it again.
  const values = { action: field(form, "action"), statement: field(form, "statement") };
  const limited = await rateLimitOrNull("reviewKey", context.get(clientContext).ipKey);
  if (limited) return limited;
  const parsed = reviewKeyRequestSchema.safeParse({ ...values, key: field(form, "key") });
  if (!parsed.success) return formFailure({ fieldErrors: fieldErrorsOf(parsed.error), values });
  try {
    if (parsed.data.action === "withdraw") {
      await withdrawReview(database().db, parsed.data.key);
      return { done: moderationMessages.withdrawn };
    }
    await appealRemoval(database().db, parsed.data.key, parsed.data.statement);
    return { done: moderationMessages.appealSent };
  } catch (error) {
    if (error instanceof ModerationError) return formFailure({ formError: error.message, values }, error.status);
    throw error;
  }
}

export default function ReviewKeyPage({ actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const done = actionData && "done" in actionData ? actionData.done : undefined;
  const failure = actionData && !("done" in actionData) ? actionData : undefined;
  const chosen = failure?.values?.action;
  return (
    <section className="page narrow">
      <title>{`Your review key · ${messages.siteName}`}</title>
      <h1>Your review key</h1>
      <p>
        When you submitted a review, you were shown its key once. With it, and without signing in, you can appeal if
        moderators removed the review (the decision is in the <Link to={paths.moderationLog()}>moderation log</Link>),
        or withdraw the review for good.
      </p>
      <FormMessage error={failure?.formError} success={done} />
      <Form method="post" className="stack" key={done ?? "form"}>
        <Field
          label="Review key"
          name="key"
          required
          autoComplete="off"
          spellCheck={false}
          maxLength={64}
          error={failure?.fieldErrors?.key}
        />
        <fieldset className="choices">
          <legend>What do you want to do?</legend>
          <div className="choice">
            <input
              type="radio"
              id="action-appeal"
              name="action"
              value="appeal"
              required
              defaultChecked={chosen === "appeal"}
            />
            <label htmlFor="action-appeal">Appeal the removal of my review</label>
          </div>
          <div className="choice">
            <input
              type="radio"
              id="action-withdraw"
              name="action"
              value="withdraw"
              defaultChecked={chosen === "withdraw"}
            />
            <label htmlFor="action-withdraw">Withdraw my review for good</label>
          </div>
          {failure?.fieldErrors?.action ? <p className="field-error">{failure.fieldErrors.action}</p> : null}
        </fieldset>
        <TextAreaField
          label="Why should the review be restored? (for an appeal)"
          name="statement"
          rows={4}
          maxLength={moderationLengths.statement}
          defaultValue={typeof failure?.values?.statement === "string" ? failure.values.statement : undefined}
          error={failure?.fieldErrors?.statement}
        />
        <button type="submit" className="button" disabled={navigation.state === "submitting"}>
          Send
        </button>
      </Form>
    </section>
  );
}
