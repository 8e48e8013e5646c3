import { data, Form, Link, redirect, useNavigation } from "react-router";
import { renderSVG } from "uqr";
import type { Route } from "./+types/account.ts";
import { Field, FormMessage, fieldClass } from "#app/components/form.tsx";
import {
  accountMessages,
  changePassword,
  changePasswordSchemaFor,
  codeSchema,
  deleteAccount,
  disableTwoFactor,
  passwordSchema,
  sendVerificationEmail,
  signOutEverywhere,
  startTwoFactor,
  verifyTotp,
} from "#app/domain/accounts.server.ts";
import { database } from "#app/db/database.server.ts";
import { auth } from "#app/domain/auth.server.ts";
import { accountKey, clientContext } from "#app/http/client.server.ts";
import {
  field,
  fieldErrorsOf,
  passwordAttemptOr429,
  rateLimitOrNull,
  readForm,
  retryAfterOf,
} from "#app/http/forms.server.ts";
import { contributionMessages, messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { forgetAccountLimits } from "#app/lib/rate-limit.server.ts";
import { serverSecret } from "#app/db/secret.server.ts";
import { requireAccount, setToast } from "#app/http/session.server.ts";
import { clearVoteKeyCookie, withRewrappedVoteKey } from "#app/http/vote-key.server.ts";

export function loader({ context, url }: Route.LoaderArgs) {
  const account = requireAccount(context, url);
  return { email: account.email, emailVerified: account.emailVerified, twoFactorEnabled: account.twoFactorEnabled };
}

/** A refused attempt (429) tells the client when to try again. */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  return retryAfterOf(actionHeaders);
}

type Intent =
  | "resend-verification"
  | "change-password"
  | "enable-2fa"
  | "confirm-2fa"
  | "disable-2fa"
  | "sign-out-everywhere"
  | "delete-account";

type Outcome = {
  intent: Intent;
  formError?: string;
  fieldErrors?: Record<string, string>;
  success?: string;
  setup?: { qrCode: string; secret: string; backupCodes: string[] };
};

function outcome(value: Outcome, status = 200, headers?: HeadersInit) {
  return data(value, { status, headers });
}

/**
 * Counts a re-entry of the account's password under the same limits as signing in (a stolen session must not become
 * a way to guess the password): the attempt, or the 429 answer.
 */
async function passwordReentry(
  context: Route.ActionArgs["context"],
  email: string,
  intent: Intent,
  input: "password" | "currentPassword" = "password",
) {
  const { attempt, refused } = await passwordAttemptOr429(
    context.get(clientContext).ipKey,
    accountKey(serverSecret(), email),
  );
  if (refused)
    return {
      attempt,
      refused: outcome({ intent, fieldErrors: { [input]: refused.data.formError ?? "" } }, 429, refused.init?.headers),
    };
  return { attempt, refused };
}

export async function action({ context, request, url }: Route.ActionArgs) {
  const account = requireAccount(context, url);
  const form = await readForm(request);
  const intent = field(form, "intent") as Intent;
  const headers = request.headers;
  switch (intent) {
    case "resend-verification": {
      const limited = await rateLimitOrNull("verificationMail", context.get(clientContext).ipKey);
      if (limited) {
        return outcome(
          { intent, formError: "Too many e-mails asked for. Try again later." },
          429,
          limited.init?.headers,
        );
      }
      await sendVerificationEmail(auth(), account.email);
      return outcome({ intent, success: accountMessages.verificationSent });
    }
    case "change-password": {
      const parsed = changePasswordSchemaFor(account.email).safeParse({
        currentPassword: field(form, "currentPassword"),
        newPassword: field(form, "newPassword"),
      });
      if (!parsed.success) return outcome({ intent, fieldErrors: fieldErrorsOf(parsed.error) }, 400);
      const { attempt, refused } = await passwordReentry(context, account.email, intent, "currentPassword");
      if (refused) return refused;
      const result = await changePassword(auth(), parsed.data, headers);
      if (!result.ok) return outcome({ intent, fieldErrors: { currentPassword: result.message } }, result.status);
      await attempt.succeeded();
      await withRewrappedVoteKey(result.headers, account.id, parsed.data);
      // better-auth re-issues this session's cookie: without it, this browser would be signed out too.
      return outcome({ intent, success: accountMessages.passwordChanged }, 200, result.headers);
    }
    case "enable-2fa": {
      const parsed = passwordSchema.safeParse({ password: field(form, "password") });
      if (!parsed.success) return outcome({ intent, fieldErrors: fieldErrorsOf(parsed.error) }, 400);
      const { attempt, refused } = await passwordReentry(context, account.email, intent);
      if (refused) return refused;
      const result = await startTwoFactor(auth(), parsed.data.password, headers);
      if (!result.ok) return outcome({ intent, fieldErrors: { password: result.message } }, result.status);
      await attempt.succeeded();
      const secret = new URL(result.value.totpURI).searchParams.get("secret") ?? "";
      return outcome({
        intent,
        setup: {
          qrCode: `data:image/svg+xml;base64,${Buffer.from(renderSVG(result.value.totpURI)).toString("base64")}`,
          secret,
          backupCodes: result.value.backupCodes,
        },
      });
    }
    case "confirm-2fa": {
      const parsed = codeSchema.safeParse({ code: field(form, "code") });
      if (!parsed.success) return outcome({ intent, fieldErrors: { code: accountMessages.codeInvalid } }, 400);
      const result = await verifyTotp(auth(), { code: parsed.data.code }, headers);
      if (!result.ok) return outcome({ intent, fieldErrors: { code: result.message } }, result.status);
      throw redirect(paths.account(), { headers: result.headers });
    }
    case "disable-2fa": {
      const parsed = passwordSchema.safeParse({ password: field(form, "password") });
      if (!parsed.success) return outcome({ intent, fieldErrors: fieldErrorsOf(parsed.error) }, 400);
      const { attempt, refused } = await passwordReentry(context, account.email, intent);
      if (refused) return refused;
      const result = await disableTwoFactor(auth(), parsed.data.password, headers);
      if (!result.ok) return outcome({ intent, fieldErrors: { password: result.message } }, result.status);
      await attempt.succeeded();
      return outcome({ intent, success: accountMessages.twoFactorDisabled }, 200, result.headers);
    }
    case "sign-out-everywhere": {
      const cleared = clearVoteKeyCookie(await signOutEverywhere(auth(), headers));
      throw redirect(paths.home(), { headers: setToast(cleared, "signed-out") });
    }
    case "delete-account": {
      const parsed = passwordSchema.safeParse({ password: field(form, "password") });
      if (!parsed.success) return outcome({ intent, fieldErrors: fieldErrorsOf(parsed.error) }, 400);
      if (field(form, "confirm") !== "yes") {
        return outcome(
          { intent, fieldErrors: { confirm: "Tick the box to confirm that you want to delete your account." } },
          400,
        );
      }
      const { attempt, refused } = await passwordReentry(context, account.email, intent);
      if (refused) return refused;
      const result = await deleteAccount(auth(), database().db, parsed.data.password, headers, async () => {
        await attempt.succeeded();
        // After the success, which remembers this network: nothing keyed by the deleted address stays behind.
        await forgetAccountLimits(accountKey(serverSecret(), account.email));
      });
      if (!result.ok) return outcome({ intent, fieldErrors: { password: result.message } }, result.status);
      throw redirect(paths.home(), { headers: setToast(clearVoteKeyCookie(result.headers), "signed-out") });
    }
    default:
      return outcome({ intent, formError: contributionMessages.somethingWrong }, 400);
  }
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  const id = `section-${title.toLowerCase().replace(/[^a-z]+/g, "-")}`;
  return (
    <section className="card account-section" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

export default function AccountPage({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const result = (intent: Intent) => (actionData?.intent === intent ? actionData : undefined);
  const setup = result("enable-2fa")?.setup;
  const confirmError = result("delete-account")?.fieldErrors?.confirm;
  return (
    <div className="page narrow">
      <title>{`Your account · ${messages.siteName}`}</title>
      <h1>Your account</h1>
      <p>
        Signed in as <strong>{loaderData.email}</strong>
        {loaderData.emailVerified ? " (confirmed)." : " (not confirmed yet)."}
      </p>

      {loaderData.emailVerified ? null : (
        <Section title="Confirm your e-mail address">
          <FormMessage
            error={result("resend-verification")?.formError}
            success={result("resend-verification")?.success}
          />
          <Form method="post">
            <input type="hidden" name="intent" value="resend-verification" />
            <button type="submit" className="button button-secondary" disabled={busy}>
              Send the confirmation link again
            </button>
          </Form>
        </Section>
      )}

      <Section title="Verified work address">
        <p>
          Let your company reviews show “Verified: works at <i>your company&apos;s domain</i>” without telling anyone
          who you are: <Link to={paths.verifyWork()}>verify your work address</Link>.
        </p>
      </Section>

      <Section title="Change password">
        <FormMessage success={result("change-password")?.success} />
        <Form method="post" className="stack" noValidate>
          <input type="hidden" name="intent" value="change-password" />
          <Field
            label="Current password"
            name="currentPassword"
            type="password"
            autoComplete="current-password"
            required
            error={result("change-password")?.fieldErrors?.currentPassword}
          />
          <Field
            label="New password"
            name="newPassword"
            type="password"
            autoComplete="new-password"
            required
            hint="Your other sessions will be signed out."
            error={result("change-password")?.fieldErrors?.newPassword}
          />
          <button type="submit" className="button" disabled={busy}>
            Change password
          </button>
        </Form>
      </Section>

      <Section title="Two-factor authentication">
        <FormMessage success={result("disable-2fa")?.success} />
        {loaderData.twoFactorEnabled ? (
          <>
            <p>Two-factor authentication is on: signing in asks for a code from your authenticator app.</p>
            <PasswordForm
              intent="disable-2fa"
              error={result("disable-2fa")?.fieldErrors?.password}
              busy={busy}
              button="Turn off two-factor authentication"
              buttonClass="button button-secondary"
            />
          </>
        ) : setup || result("confirm-2fa") ? (
          <TwoFactorSetup setup={setup} codeError={result("confirm-2fa")?.fieldErrors?.code} busy={busy} />
        ) : (
          <>
            <p>Protect your account with a code from an authenticator app at every sign-in.</p>
            <PasswordForm
              intent="enable-2fa"
              error={result("enable-2fa")?.fieldErrors?.password}
              busy={busy}
              button="Set up two-factor authentication"
              buttonClass="button"
            />
          </>
        )}
      </Section>

      <Section title="Sessions">
        <p>Signed in on a computer you no longer use? End every session, this one included.</p>
        <Form method="post">
          <input type="hidden" name="intent" value="sign-out-everywhere" />
          <button type="submit" className="button button-secondary" disabled={busy}>
            Sign out everywhere
          </button>
        </Form>
      </Section>

      <Section title="Delete account">
        <p>
          Deleting your account removes your e-mail address and password for good. Reviews you wrote stay published:
          they are anonymous and were never linked to your account, so nobody, us included, can find them to delete
          them.
        </p>
        <PasswordForm
          intent="delete-account"
          error={result("delete-account")?.fieldErrors?.password}
          busy={busy}
          button="Delete my account"
          buttonClass="button button-danger"
        >
          <div className={fieldClass(confirmError)}>
            <label className="checkbox">
              <input
                type="checkbox"
                name="confirm"
                value="yes"
                required
                aria-invalid={confirmError ? true : undefined}
                aria-describedby={confirmError ? "delete-confirm-error" : undefined}
              />{" "}
              I understand that this cannot be undone
            </label>
            {confirmError ? (
              <p id="delete-confirm-error" className="field-error">
                {confirmError}
              </p>
            ) : null}
          </div>
        </PasswordForm>
      </Section>
    </div>
  );
}

/** A form that acts only once the account's password confirms it (two-factor on or off, deleting the account). */
function PasswordForm({
  intent,
  error,
  busy,
  button,
  buttonClass,
  children,
}: {
  intent: Intent;
  error: string | undefined;
  busy: boolean;
  button: string;
  buttonClass: string;
  children?: React.ReactNode;
}) {
  return (
    <Form method="post" className="stack" noValidate>
      <input type="hidden" name="intent" value={intent} />
      <Field label="Password" name="password" type="password" autoComplete="current-password" required error={error} />
      {children}
      <button type="submit" className={buttonClass} disabled={busy}>
        {button}
      </button>
    </Form>
  );
}

function TwoFactorSetup({
  setup,
  codeError,
  busy,
}: {
  setup: Outcome["setup"] | undefined;
  codeError: string | undefined;
  busy: boolean;
}) {
  return (
    <div className="stack">
      {setup ? (
        <>
          <p>Scan this code with your authenticator app, or type the key in by hand.</p>
          <img src={setup.qrCode} alt="QR code of your two-factor secret" width={200} height={200} className="qr" />
          <p>
            Key: <code className="secret">{setup.secret}</code>
          </p>
          <p>Keep these backup codes somewhere safe. Each works once if you lose your phone:</p>
          <ul className="backup-codes">
            {setup.backupCodes.map((code) => (
              <li key={code}>
                <code>{code}</code>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <Form method="post" className="stack" noValidate>
        <input type="hidden" name="intent" value="confirm-2fa" />
        <Field
          label="Code from the app"
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          required
          maxLength={6}
          error={codeError}
        />
        <button type="submit" className="button" disabled={busy}>
          Turn on two-factor authentication
        </button>
      </Form>
    </div>
  );
}
