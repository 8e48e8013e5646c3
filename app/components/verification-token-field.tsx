import { useEffect } from "react";
import { Link } from "react-router";
import type { FieldProblem } from "#app/lib/form-refusal.ts";
import { verificationMessages } from "#app/lib/verification-messages.ts";
import { paths } from "#app/lib/paths.ts";
import { decodeToken } from "#app/lib/verification-token.ts";
import { markInFlight, settleInFlight, tokenFor, useStoredTokens } from "#app/lib/verification-storage.ts";

type State = { values?: Record<string, unknown>; formError?: string; fieldErrors?: Record<string, FieldProblem> };

/** A domain a review's badge may name, and whether enough people verified with it this quarter. */
export type BadgeDomain = { domain: string; badgeAvailable: boolean };

const fieldName = "verification_token";

/** True when `host` (a website's host) is on `domain` (a registrable domain): the domain itself or a subdomain. */
function hostOnDomain(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

function hostOf(website: string): string | undefined {
  const trimmed = website.trim().toLowerCase();
  if (!trimmed) return undefined;
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//.test(trimmed) ? trimmed : `https://${trimmed}`).hostname;
  } catch {
    return undefined;
  }
}

/** Where a badge is possible but this browser holds no token for it: a link to verify, and why it is safe. */
function VerifyInvitation() {
  return (
    <p className="hint verification-note" role="note">
      {verificationMessages.verifyInvitation} <Link to={paths.verifyWork()}>{verificationMessages.verifyLink}</Link>
    </p>
  );
}

/**
 * In a review form, where a "Verified" badge is possible: when this browser holds a verification token for the
 * subject's domain, a hidden field sends one with the review, and a note says what it does (or, below the
 * threshold, why no badge comes); without a token, a link to /verify-work says how to get one. `domains` are the
 * domains of a known subject (a company's website, a manager's companies'); `websiteOf` reads, when the form is
 * sent, the website of a company being added in the same form, whose domain is known only then. Without
 * JavaScript nothing is sent. The token leaves the store when the form is sent and comes back if the form returns
 * refused for another reason.
 */
export function VerificationTokenField({
  domains = [],
  websiteOf,
  minPeople,
  state,
}: {
  domains?: BadgeDomain[];
  websiteOf?: (form: HTMLFormElement) => string;
  minPeople: number;
  state: State;
}) {
  const tokens = useStoredTokens();
  const known = domains
    .map((entry) => ({ ...entry, token: tokenFor(tokens, entry.domain) }))
    .find((entry) => entry.token);
  const usable = known?.badgeAvailable ? known.token : undefined;
  const refused = Boolean(state.fieldErrors?.[fieldName]);
  const held = websiteOf && tokens.length > 0;
  useEffect(() => {
    // A form that came back with an error: its token is put back unless the token itself was refused.
    settleInFlight(Boolean(state.formError) && !refused);
  }, [state.formError, refused]);
  useEffect(() => {
    if (!usable && !held) return;
    const input = document.querySelector<HTMLInputElement>(`input[name="${fieldName}"]`);
    const form = input?.form;
    if (!input || !form) return;
    // The token leaves the store once the form's data is taken, after this submit event: taking it out at once would
    // re-render the field (with another token, or none) before the form is read.
    const later = (token: string) => setTimeout(() => markInFlight(token), 0);
    const onSubmit = () => {
      if (usable) return void later(usable);
      // A company added with the review: the token of its website's domain, if this browser holds one.
      const host = websiteOf ? hostOf(websiteOf(form)) : undefined;
      const token = host ? tokens.find((item) => hostOnDomain(host, decodeToken(item)?.domain ?? "")) : undefined;
      input.value = token ?? "";
      if (token) later(token);
    };
    form.addEventListener("submit", onSubmit);
    return () => form.removeEventListener("submit", onSubmit);
  }, [usable, held, websiteOf, tokens]);
  if (held) {
    const tokenDomains = [...new Set(tokens.map((token) => decodeToken(token)?.domain).filter(Boolean))];
    return (
      <p className="hint verification-note" role="note">
        <input type="hidden" name={fieldName} defaultValue="" />
        {verificationMessages.badgeIfWebsite(tokenDomains.join(", "))} <Link to={paths.privacy()}>What we store</Link>
      </p>
    );
  }
  if (!known?.token) return websiteOf || domains.length > 0 ? <VerifyInvitation /> : null;
  if (!usable) {
    return (
      <p className="hint verification-note" role="note">
        {verificationMessages.badgeWithheld(known.domain, minPeople)}
      </p>
    );
  }
  return (
    <p className="hint verification-note" role="note">
      <input type="hidden" name={fieldName} value={usable} />
      {verificationMessages.badgeComing(known.domain)} <Link to={paths.privacy()}>What we store</Link>
    </p>
  );
}

/** The value of a form's input named `name` ("" when there is none): what a `websiteOf` reads. */
export function inputValue(form: HTMLFormElement, name: string): string {
  const element = form.elements.namedItem(name);
  return element instanceof HTMLInputElement ? element.value : "";
}
