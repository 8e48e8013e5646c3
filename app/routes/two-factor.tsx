import { Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/two-factor.ts";
import { Field, FormMessage } from "#app/components/form.tsx";
import { accountMessages, codeSchema, verifyBackupCode, verifyTotp } from "#app/domain/accounts.server.ts";
import { auth } from "#app/domain/auth.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { field, formFailure, passwordAttemptOr429, readForm, retryAfterOf } from "#app/http/forms.server.ts";
import { messages } from "#app/lib/messages.ts";
import { paths, safeRedirectTarget } from "#app/lib/paths.ts";
import { requireAnonymous, setToast } from "#app/http/session.server.ts";
import { withVoteKeyAfterSecondFactor } from "#app/http/vote-key.server.ts";

/** The second step of signing in, for accounts with two-factor authentication on. */
export function loader({ context, request }: Route.LoaderArgs) {
  requireAnonymous(context);
  return { redirectTo: safeRedirectTarget(new URL(request.url).searchParams.get("redirectTo"), "") };
}

/** A refused attempt (429) tells the client when to try again. */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  return retryAfterOf(actionHeaders);
}

export async function action({ context, request }: Route.ActionArgs) {
  requireAnonymous(context);
  const form = await readForm(request);
  // The account is not known before the code is checked: the address's limit counts the codes.
  const { attempt, refused } = await passwordAttemptOr429(context.get(clientContext).ipKey, null);
  if (refused) return refused;
  const parsed = codeSchema.safeParse({ code: field(form, "code"), trustDevice: form.get("trustDevice") ?? undefined });
  if (!parsed.success) return formFailure({ formError: accountMessages.codeInvalid, fieldErrors: { code: "" } });
  const useBackupCode = field(form, "method") === "backup";
  const result = useBackupCode
    ? await verifyBackupCode(auth(), parsed.data.code, request.headers)
    : await verifyTotp(
        auth(),
        { code: parsed.data.code, trustDevice: parsed.data.trustDevice === "on" },
        request.headers,
      );
  if (!result.ok) return formFailure({ formError: result.message, fieldErrors: { code: "" } }, result.status);
  await attempt.succeeded();
  const headers = withVoteKeyAfterSecondFactor(result.headers, request, result.value.userId);
  throw redirect(safeRedirectTarget(form.get("redirectTo"), paths.search()), {
    headers: setToast(headers, "signed-in"),
  });
}

export default function TwoFactorPage({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const failed = Boolean(actionData?.formError);
  return (
    <section className="page narrow auth-page">
      <title>{`Two-factor authentication · ${messages.siteName}`}</title>
      <h1>Two-factor authentication</h1>
      <p>Enter the 6-digit code from your authenticator app, or one of your backup codes.</p>
      <FormMessage error={actionData?.formError} />
      <Form method="post" className="stack" noValidate>
        <input type="hidden" name="redirectTo" value={loaderData.redirectTo} />
        <Field
          label="Code"
          name="code"
          inputMode="text"
          autoComplete="one-time-code"
          required
          maxLength={20}
          error={failed || undefined}
        />
        <fieldset className="choices">
          <legend>This code is</legend>
          <label>
            <input type="radio" name="method" value="totp" defaultChecked /> from my authenticator app
          </label>
          <label>
            <input type="radio" name="method" value="backup" /> a backup code
          </label>
        </fieldset>
        <label className="checkbox">
          <input type="checkbox" name="trustDevice" value="on" /> Trust this device for 30 days
        </label>
        <div className="actions">
          <button type="submit" className="button" disabled={navigation.state === "submitting"}>
            Verify
          </button>
          <Link to={paths.signIn()} className="button button-secondary">
            Start again
          </Link>
        </div>
      </Form>
    </section>
  );
}
