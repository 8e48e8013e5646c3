import { useLayoutEffect, useRef, useState } from "react";
import { Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/signin.ts";
import { Field, FormMessage } from "#app/components/form.tsx";
import { accountMessages, signIn, signInSchema } from "#app/domain/accounts.server.ts";
import { auth } from "#app/domain/auth.server.ts";
import { accountKey, clientContext } from "#app/http/client.server.ts";
import { field, formFailure, passwordAttemptOr429, readForm, retryAfterOf } from "#app/http/forms.server.ts";
import { messages } from "#app/lib/messages.ts";
import { paths, safeRedirectTarget } from "#app/lib/paths.ts";
import { useHydrated } from "#app/lib/use-hydrated.ts";
import { serverSecret } from "#app/db/secret.server.ts";
import { requireAnonymous, setToast } from "#app/http/session.server.ts";
import { withPendingVoteKey, withVoteKey } from "#app/http/vote-key.server.ts";

export function loader({ context, request }: Route.LoaderArgs) {
  requireAnonymous(context);
  const url = new URL(request.url);
  return {
    redirectTo: safeRedirectTarget(url.searchParams.get("redirectTo"), ""),
    passwordReset: url.searchParams.get("reset") === "done",
  };
}

/** A refused attempt (429) tells the client when to try again. */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  return retryAfterOf(actionHeaders);
}

export async function action({ context, request }: Route.ActionArgs) {
  requireAnonymous(context);
  const form = await readForm(request);
  const email = field(form, "email").trim();
  const { attempt, refused } = await passwordAttemptOr429(
    context.get(clientContext).ipKey,
    accountKey(serverSecret(), email),
  );
  if (refused) return refused;

  const parsed = signInSchema.safeParse({ email, password: field(form, "password") });
  // Spec: both fields red, the message once in the box; the e-mail is given back, never the password.
  const refusal = { fieldErrors: { email: true, password: true }, values: { email } } as const;
  if (!parsed.success) return formFailure({ formError: accountMessages.invalidCredentials, ...refusal }, 400);
  const result = await signIn(auth(), parsed.data, request.headers);
  if (!result.ok) return formFailure({ formError: result.message, ...refusal }, result.status);

  await attempt.succeeded();
  const target = safeRedirectTarget(form.get("redirectTo"), paths.search());
  // With a second factor to come, the vote key waits for it, sealed (vote-key.server.ts).
  if (result.value.twoFactor) {
    await withPendingVoteKey(result.headers, parsed.data.email, parsed.data.password);
    throw redirect(paths.twoFactor(target), { headers: result.headers });
  }
  await withVoteKey(result.headers, parsed.data.email, parsed.data.password);
  throw redirect(target, { headers: setToast(result.headers, "signed-in") });
}

/** Spec: submit only when the e-mail is longer than 5 characters and the password longer than 2. */
function readyToSignIn(data: FormData): boolean {
  return String(data.get("email") ?? "").trim().length > 5 && String(data.get("password") ?? "").length > 2;
}

export default function SignInPage({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const hydrated = useHydrated();
  // The fields are the browser's (uncontrolled): what was typed before the scripts ran, which load after the first
  // paint (docs/decisions/0042-scripts-load-after-the-first-paint.md), stays when React takes the page over, and
  // Sign In is decided by what the fields hold, read once as the page hydrates and again at every change.
  const form = useRef<HTMLFormElement>(null);
  const [ready, setReady] = useState(false);
  const readFields = () => {
    if (form.current) setReady(readyToSignIn(new FormData(form.current)));
  };
  useLayoutEffect(readFields, []);
  return (
    <section className="page narrow auth-page">
      <title>{`${messages.signIn} · ${messages.siteName}`}</title>
      <h1>{messages.signIn}</h1>
      <FormMessage
        error={actionData?.formError}
        success={loaderData.passwordReset ? "Your password is changed. Sign in with your new password." : undefined}
      />
      <Form method="post" className="stack" noValidate ref={form} onChange={readFields}>
        <input type="hidden" name="redirectTo" value={loaderData.redirectTo} />
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="username"
          required
          defaultValue={String(actionData?.values?.email ?? "")}
          error={actionData?.fieldErrors?.email}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          error={actionData?.fieldErrors?.password}
        />
        <div className="actions">
          <button type="submit" className="button" disabled={(hydrated && !ready) || navigation.state === "submitting"}>
            {messages.signIn}
          </button>
          <Link to={paths.search()} className="button button-secondary">
            Browse
          </Link>
        </div>
      </Form>
      <p className="auth-links">
        <Link to={paths.forgotPassword()}>Lost Password</Link>
        <Link to={paths.signUp(loaderData.redirectTo || undefined)}>Create account</Link>
      </p>
    </section>
  );
}
