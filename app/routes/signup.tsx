import { Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/signup.ts";
import { Field, FormMessage } from "#app/components/form.tsx";
import { signUp, signUpSchema } from "#app/domain/accounts.server.ts";
import { minPasswordLength } from "#app/domain/password-policy.server.ts";
import { auth } from "#app/domain/auth.server.ts";
import { accountKey, clientContext } from "#app/http/client.server.ts";
import { field, fieldErrorsOf, formFailure, limitedOrNull, readForm, retryAfterOf } from "#app/http/forms.server.ts";
import { markedFields } from "#app/lib/form-refusal.ts";
import { messages } from "#app/lib/messages.ts";
import { paths, safeRedirectTarget } from "#app/lib/paths.ts";
import { consumeSignUp, rememberNetwork } from "#app/lib/rate-limit.server.ts";
import { serverSecret } from "#app/db/secret.server.ts";
import { requireAnonymous, setToast } from "#app/http/session.server.ts";
import { withVoteKey } from "#app/http/vote-key.server.ts";

export function loader({ context, request }: Route.LoaderArgs) {
  requireAnonymous(context);
  return {
    redirectTo: safeRedirectTarget(new URL(request.url).searchParams.get("redirectTo"), ""),
    minPasswordLength,
  };
}

/** A refused attempt (429) tells the client when to try again. */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  return retryAfterOf(actionHeaders);
}

export async function action({ context, request }: Route.ActionArgs) {
  requireAnonymous(context);
  const form = await readForm(request);
  const ipKey = context.get(clientContext).ipKey;
  const limited = await limitedOrNull(() => consumeSignUp(ipKey));
  if (limited) return limited;
  const parsed = signUpSchema.safeParse({ email: field(form, "email"), password: field(form, "password") });
  if (!parsed.success) {
    const fieldErrors = fieldErrorsOf(parsed.error);
    return formFailure({ formError: Object.values(fieldErrors).join(" "), fieldErrors: markedFields(fieldErrors) });
  }
  const result = await signUp(auth(), parsed.data, request.headers);
  if (!result.ok) return formFailure({ formError: result.message, fieldErrors: { email: true } }, result.status);
  await withVoteKey(result.headers, parsed.data.email, parsed.data.password);
  // A sign-up counts as a sign-in from its address: guesses from elsewhere cannot lock the new owner out.
  await rememberNetwork(ipKey, accountKey(serverSecret(), parsed.data.email));
  throw redirect(safeRedirectTarget(form.get("redirectTo"), paths.search()), {
    headers: setToast(result.headers, "signed-in"),
  });
}

export default function SignUpPage({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  return (
    <section className="page narrow auth-page">
      <title>{`Create an account · ${messages.siteName}`}</title>
      <h1>Create an account</h1>
      <p>
        An account lets you add companies, managers and reviews. Your reviews are never linked to it: read the{" "}
        <Link to={paths.privacy()}>privacy page</Link>.
      </p>
      <FormMessage error={actionData?.formError} />
      <Form method="post" className="stack" noValidate>
        <input type="hidden" name="redirectTo" value={loaderData.redirectTo} />
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="email"
          required
          error={actionData?.fieldErrors?.email}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          minLength={loaderData.minPasswordLength}
          hint={`At least ${loaderData.minPasswordLength} characters; a long phrase is easiest to remember.`}
          error={actionData?.fieldErrors?.password}
        />
        <div className="actions">
          <button type="submit" className="button" disabled={navigation.state === "submitting"}>
            {messages.signUp}
          </button>
          <Link to={paths.search()} className="button button-secondary">
            Browse
          </Link>
        </div>
      </Form>
      <p className="auth-links">
        <Link to={paths.signIn(loaderData.redirectTo || undefined)}>I already have an account</Link>
      </p>
    </section>
  );
}
