import { useState } from "react";
import { Form, Link, useNavigation } from "react-router";
import type { Route } from "./+types/verify-work.ts";
import { Field, FormMessage } from "#app/components/form.tsx";
import { verificationAddressSchema, VerificationError, verificationSettings } from "#app/domain/verification.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { field, fieldErrorsOf, formFailure, limitedOrNull, readForm, retryAfterOf } from "#app/http/forms.server.ts";
import { requireAccount } from "#app/http/session.server.ts";
import { startVerification } from "#app/http/verification.server.ts";
import { markedFields } from "#app/lib/form-refusal.ts";
import { verificationLimits } from "#app/lib/limits.ts";
import { messages } from "#app/lib/messages.ts";
import { verificationMessages } from "#app/lib/verification-messages.ts";
import { paths } from "#app/lib/paths.ts";
import { type Challenge, obtainTokens } from "#app/lib/verification-client.ts";
import { addTokens, tokenCounts, useStoredTokens } from "#app/lib/verification-storage.ts";

/** A refused request's page carries the Retry-After of the rate limit that refused it. */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  return retryAfterOf(actionHeaders);
}

export function loader({ context, url }: Route.LoaderArgs) {
  requireAccount(context, url);
  return { minPeople: verificationSettings().minPeople, tokens: verificationLimits.tokensPerVerification };
}

export async function action({ context, request, url }: Route.ActionArgs) {
  const account = requireAccount(context, url);
  const form = await readForm(request);
  if (field(form, "intent") === "code") {
    // The code form without JavaScript: tokens are made by the browser's script, so nothing can be issued.
    return formFailure({ formError: verificationMessages.needsJavaScript });
  }
  const values = { email: field(form, "email") };
  const parsed = verificationAddressSchema.safeParse(values);
  if (!parsed.success) {
    const fieldErrors = fieldErrorsOf(parsed.error);
    return formFailure({ formError: fieldErrors.email, fieldErrors: markedFields(fieldErrors), values });
  }
  let started: Awaited<ReturnType<typeof startVerification>> | undefined;
  const limited = await limitedOrNull(async () => {
    started = await startVerification(context.get(clientContext).ipKey, account.id, parsed.data);
  }).catch((error: unknown) => {
    if (error instanceof VerificationError) {
      return formFailure({ formError: error.message, fieldErrors: { email: true }, values }, error.status);
    }
    throw error;
  });
  if (limited || !started) return limited;
  return {
    challenge: {
      challenge: started.challenge,
      domain: started.domain,
      quarter: started.quarter,
      keyId: started.key.keyId,
      tokens: started.tokens,
    } satisfies Challenge,
    sent: verificationMessages.codeSent(started.domain),
  };
}

/** The tokens this browser holds, per domain (shown once hydrated: they live in localStorage). */
function HeldTokens() {
  const counts = tokenCounts(useStoredTokens());
  if (counts.length === 0) return null;
  return (
    <p role="status">
      This browser holds verification tokens for {counts.map(([domain, count]) => `${domain} (${count})`).join(", ")}.
    </p>
  );
}

function CodeForm({ challenge, sent }: { challenge: Challenge; sent: string }) {
  const [state, setState] = useState<{ busy: boolean; error?: string; done?: string }>({ busy: false });
  async function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const code = String(new FormData(event.currentTarget).get("code") ?? "").trim();
    if (!/^\d{6}$/.test(code)) {
      setState({ busy: false, error: verificationMessages.codeInvalid });
      return;
    }
    setState({ busy: true });
    try {
      const tokens = await obtainTokens(challenge, code, {
        keyMismatch: verificationMessages.keyMismatch,
        failed: verificationMessages.requestInvalid,
      });
      addTokens(tokens);
      setState({ busy: false, done: verificationMessages.verified(challenge.domain, tokens.length) });
    } catch (error) {
      setState({ busy: false, error: error instanceof Error ? error.message : verificationMessages.requestInvalid });
    }
  }
  if (state.done) {
    return (
      <>
        <FormMessage success={state.done} />
        <p>
          <Link to={paths.search()}>Find your company</Link> and review it: the review form sends a token by itself.
        </p>
      </>
    );
  }
  return (
    <>
      <FormMessage error={state.error} success={state.error ? undefined : sent} />
      <Form method="post" className="stack" onSubmit={submit} aria-busy={state.busy}>
        <input type="hidden" name="intent" value="code" />
        <Field
          label="The 6-digit code from the mail"
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="\d{6}"
          maxLength={6}
          required
          error={state.error ? true : undefined}
        />
        <button type="submit" className="button primary" disabled={state.busy}>
          {state.busy ? "Making your tokens…" : "Get my tokens"}
        </button>
      </Form>
    </>
  );
}

export default function VerifyWorkPage({ loaderData, actionData }: Route.ComponentProps) {
  const navigation = useNavigation();
  const challenge = actionData && "challenge" in actionData ? actionData : undefined;
  const failure = actionData && !("challenge" in actionData) ? actionData : undefined;
  const email = typeof failure?.values?.email === "string" ? failure.values.email : undefined;
  return (
    <section className="page narrow">
      <title>{`${verificationMessages.verifyLink} · ${messages.siteName}`}</title>
      <h1>{verificationMessages.verifyLink}</h1>
      <p>
        Show readers that your reviews come from someone who works there, without telling anyone who you are. We mail a
        code to your work address; after you type it, this browser obtains {loaderData.tokens} tokens that each let one
        review of a company on that domain, or of one of its managers, show “Verified: works at <i>domain</i>”.
      </p>
      <ul>
        <li>
          Your address is not stored. We keep only a keyed fingerprint of it until the end of the quarter, so each
          address verifies once a quarter, and then delete it.
        </li>
        <li>
          Your browser makes the tokens and has them signed without showing them to us (blind signatures), so we cannot
          tell which review used which token, or whose token it was.
        </li>
        <li>
          One signing key per domain and quarter, listed publicly at{" "}
          <a href={paths.verificationKeys()}>{paths.verificationKeys()}</a>: your browser checks it got that key, so we
          cannot give you a key of your own to recognise you by.
        </li>
        <li>
          Your employer&apos;s mail server sees that a code from us arrived. The badge shows only once at least{" "}
          {loaderData.minPeople} people from the same domain have verified this quarter.{" "}
          <Link to={paths.privacy()}>What we store</Link>
        </li>
      </ul>
      <HeldTokens />
      {challenge ? (
        <CodeForm challenge={challenge.challenge} sent={challenge.sent} />
      ) : (
        <>
          <FormMessage error={failure?.formError} />
          <Form method="post" className="stack">
            <Field
              label="Your work e-mail address"
              name="email"
              type="email"
              autoComplete="off"
              required
              maxLength={254}
              defaultValue={email}
              error={failure?.fieldErrors?.email}
            />
            <button type="submit" className="button primary" disabled={navigation.state === "submitting"}>
              Send me a code
            </button>
          </Form>
        </>
      )}
      <noscript>
        <p>{verificationMessages.needsJavaScript}</p>
      </noscript>
    </section>
  );
}
