import { Form, Link, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/reset-password.ts";
import { Field, FormMessage } from "#app/components/form.tsx";
import { accountMessages, resetPassword, resetPasswordSchema } from "#app/domain/accounts.server.ts";
import { minPasswordLength } from "#app/domain/password-policy.server.ts";
import { auth } from "#app/domain/auth.server.ts";
import { field, fieldErrorsOf, formFailure, readForm } from "#app/http/forms.server.ts";
import { messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";

/** The link in the reset e-mail leads here with ?token=… (better-auth adds ?error=INVALID_TOKEN when it is spent). */
export function loader({ request }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const token = url.searchParams.get("token") ?? "";
  const invalid = !token || url.searchParams.has("error");
  return { token, invalid: invalid ? accountMessages.resetInvalid : null, minPasswordLength };
}

export async function action({ request }: Route.ActionArgs) {
  const form = await readForm(request);
  const parsed = resetPasswordSchema.safeParse({ token: field(form, "token"), password: field(form, "password") });
  if (!parsed.success) {
    const fieldErrors = fieldErrorsOf(parsed.error);
    return formFailure({ formError: fieldErrors.token ? accountMessages.resetInvalid : undefined, fieldErrors });
  }
  const result = await resetPassword(auth(), parsed.data);
  if (!result.ok) return formFailure({ formError: result.message }, result.status);
  throw redirect(`${paths.signIn()}?reset=done`);
}

export default function ResetPasswordPage({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  return (
    <section className="page narrow auth-page">
      <title>{`Choose a new password · ${messages.siteName}`}</title>
      <h1>Choose a new password</h1>
      <FormMessage error={actionData?.formError ?? loaderData.invalid ?? undefined} />
      {loaderData.invalid ? (
        <p>
          <Link to={paths.forgotPassword()}>Ask for a new link</Link>
        </p>
      ) : (
        <Form method="post" className="stack" noValidate>
          <input type="hidden" name="token" value={loaderData.token} />
          <Field
            label="New password"
            name="password"
            type="password"
            autoComplete="new-password"
            required
            minLength={loaderData.minPasswordLength}
            hint={`At least ${loaderData.minPasswordLength} characters. Your other sessions will be signed out.`}
            error={actionData?.fieldErrors?.password}
          />
          <div className="actions">
            <button type="submit" className="button" disabled={navigation.state === "submitting"}>
              Save the new password
            </button>
          </div>
        </Form>
      )}
    </section>
  );
}
