import { Form, Link, useNavigation } from "react-router";
import type { Route } from "./+types/forgot-password.ts";
import { Field, FormMessage } from "#app/components/form.tsx";
import { accountMessages, emailSchema, requestPasswordReset } from "#app/domain/accounts.server.ts";
import { auth } from "#app/domain/auth.server.ts";
import { clientContext, hashIdentifier } from "#app/http/client.server.ts";
import { field, fieldErrorsOf, formFailure, rateLimitOrNull, readForm, retryAfterOf } from "#app/http/forms.server.ts";
import { answeredContext } from "#app/http/request-context.server.ts";
import { messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { serverSecret } from "#app/db/secret.server.ts";

/** A refused attempt (429) tells the client when to try again. */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  return retryAfterOf(actionHeaders);
}

export async function action({ context, request }: Route.ActionArgs) {
  const form = await readForm(request);
  const parsed = emailSchema.safeParse({ email: field(form, "email") });
  if (!parsed.success) return formFailure({ fieldErrors: fieldErrorsOf(parsed.error) });
  const limited =
    (await rateLimitOrNull("passwordReset", context.get(clientContext).ipKey)) ??
    (await rateLimitOrNull("passwordReset", hashIdentifier(serverSecret(), "email", parsed.data.email)));
  if (limited) return limited;
  requestPasswordReset(auth(), parsed.data.email, context.get(answeredContext));
  return { sent: accountMessages.resetSent };
}

export default function ForgotPasswordPage({ actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const sent = actionData && "sent" in actionData ? actionData.sent : undefined;
  const failure = actionData && !("sent" in actionData) ? actionData : undefined;
  return (
    <section className="page narrow auth-page">
      <title>{`Lost password · ${messages.siteName}`}</title>
      <h1>Lost password</h1>
      <p>Enter the e-mail address of your account. We will send it a link to choose a new password.</p>
      <FormMessage error={failure?.formError} success={sent} />
      <Form method="post" className="stack" noValidate>
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          required
          error={failure?.fieldErrors?.email}
        />
        <div className="actions">
          <button type="submit" className="button" disabled={navigation.state === "submitting"}>
            Send the link
          </button>
          <Link to={paths.signIn()} className="button button-secondary">
            Back to {messages.signIn}
          </Link>
        </div>
      </Form>
    </section>
  );
}
