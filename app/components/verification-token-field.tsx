import { useEffect } from "react";
import { Link } from "react-router";
import { verificationMessages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { markInFlight, settleInFlight, tokenFor, useStoredTokens } from "#app/lib/verification-storage.ts";

type State = { values?: Record<string, unknown>; formError?: string; fieldErrors?: Record<string, string> };

/**
 * In a company review form: when this browser holds a verification token for the company website's domain, a hidden
 * field sends one with the review, and a note says what it does (or, below the threshold, why no badge comes).
 * Without JavaScript, or without a token, nothing is sent. The token leaves the store when the form is sent and comes
 * back if the form returns refused for another reason.
 */
export function VerificationTokenField({
  domain,
  badgeAvailable,
  minPeople,
  state,
}: {
  domain: string | null;
  badgeAvailable: boolean;
  minPeople: number;
  state: State;
}) {
  const tokens = useStoredTokens();
  const token = domain ? tokenFor(tokens, domain) : undefined;
  const refused = Boolean(state.fieldErrors?.verification_token);
  useEffect(() => {
    // A form that came back with an error: its token is put back unless the token itself was refused.
    settleInFlight(Boolean(state.formError) && !refused);
  }, [state.formError, refused]);
  useEffect(() => {
    if (!token || !badgeAvailable) return;
    const form = document.querySelector<HTMLInputElement>('input[name="verification_token"]')?.form;
    const onSubmit = () => markInFlight(token);
    form?.addEventListener("submit", onSubmit);
    return () => form?.removeEventListener("submit", onSubmit);
  }, [token, badgeAvailable]);
  if (!domain || !token) return null;
  if (!badgeAvailable) {
    return (
      <p className="hint verification-note" role="note">
        {verificationMessages.badgeWithheld(domain, minPeople)}
      </p>
    );
  }
  return (
    <p className="hint verification-note" role="note">
      <input type="hidden" name="verification_token" value={token} />
      {verificationMessages.badgeComing(domain)} <Link to={paths.privacy()}>What we store</Link>
    </p>
  );
}
