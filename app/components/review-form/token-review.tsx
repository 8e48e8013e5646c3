import { useCallback, useEffect, useRef, useState } from "react";
import { Link } from "react-router";
import { type FieldProblem, formRefusal } from "#app/lib/form-refusal.ts";
import { contributionMessages, reviewKeyTexts, toastTexts } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import {
  dropReviewToken,
  heldReviewToken,
  keepReviewToken,
  obtainReviewToken,
  ReviewTokenRequestError,
  reviewTokenTexts,
  sendTokenReview,
  type TokenReviewAnswer,
  useHeldReviewToken,
} from "#app/lib/review-token-client.ts";
import { useHydrated } from "#app/lib/use-hydrated.ts";
import { settleInFlight } from "#app/lib/verification-storage.ts";
import { dropDraft } from "./use-draft.ts";

/** A refusal as the form shows it: the message box, the fields it names, and what was typed. */
export type TokenRefusal = {
  formError: string;
  fieldErrors?: Record<string, FieldProblem>;
  values?: Record<string, unknown>;
};

const texts = { network: contributionMessages.network };

/** The review's fields as the API takes them: each field once, the tags as a list, no empty verification token. */
function bodyOf(data: FormData): Record<string, unknown> {
  const body: Record<string, unknown> = { tags: [] };
  for (const [name, value] of data) {
    if (typeof value !== "string") continue;
    if (name === "tags") (body.tags as string[]).push(value);
    else if (name !== "verification_token" || value) body[name] = value;
  }
  return body;
}

/** Refusals that make the token itself useless (spent, not valid, waiting in the queue): the tab forgets it. */
const tokenGone = new Set(["review-token-spent", "review-token-invalid", "review-token-manager", "already-reviewed"]);

/**
 * The manager review sent with a one-review token (docs/decisions/0031-one-review-tokens.md), where JavaScript and
 * WebCrypto run; without them `enabled` is false and the form posts with the session as before.
 *
 * The token is obtained when the review is submitted (`onSubmit`), never before: obtaining it takes the account's one
 * review of the manager, so someone who looks at the form, or starts writing and leaves, keeps that review. Once held,
 * the token waits in the tab until the review is accepted; a refusal keeps it and what was typed, unless the server
 * refused the token itself. Without JavaScript or WebCrypto `enabled` is false and the form posts with the session.
 */
export function useTokenReview(managerId: number, draftKey: string) {
  const hydrated = useHydrated();
  const enabled = hydrated && typeof crypto !== "undefined" && crypto.subtle !== undefined;
  const stored = useHeldReviewToken(managerId);
  // The token in memory too: a browser that refuses storage still sends it, as long as the page stays.
  const [memory, setMemory] = useState<string | undefined>(undefined);
  const pending = useRef<Promise<string | undefined> | null>(null);
  const [obtaining, setObtaining] = useState(false);
  // A submission under way (obtaining the token, then waiting for the review's answer): a second one is not started.
  const [sending, setSending] = useState(false);
  const submitting = useRef(false);
  const [refusal, setRefusal] = useState<TokenRefusal | null>(null);
  const [signedOut, setSignedOut] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [done, setDone] = useState<TokenReviewAnswer | null>(null);
  const held = stored || memory !== undefined;

  /** Shows a refusal; `values` are the form's, as they were when Submit was pressed. */
  const refuse = useCallback(
    (error: unknown, values?: Record<string, unknown>) => {
      const problem = error instanceof ReviewTokenRequestError ? error.problem : undefined;
      // An ended session takes the form away (for the sign-in link) only at Submit, not while someone writes.
      if (problem?.status === 401 && values) setSignedOut(true);
      if (problem?.code && tokenGone.has(problem.code)) {
        setMemory(undefined);
        dropReviewToken(managerId);
      }
      const message = error instanceof ReviewTokenRequestError ? error.message : contributionMessages.somethingWrong;
      if (problem?.status === 400 && problem.errors?.length) {
        setRefusal({ ...formRefusal(problem.errors), values });
      } else if (problem?.code?.startsWith("token-")) {
        // The verification token sent for the badge was refused: the badge field says so.
        setRefusal({ formError: message, fieldErrors: { verification_token: true }, values });
      } else {
        setRefusal({ formError: message, values });
      }
    },
    [managerId],
  );

  const ensureToken = useCallback(
    (values?: Record<string, unknown>): Promise<string | undefined> => {
      const token = memory ?? heldReviewToken(managerId);
      if (token) return Promise.resolve(token);
      if (pending.current) return pending.current;
      setObtaining(true);
      pending.current = obtainReviewToken(managerId, texts)
        .then(
          (obtained) => {
            setMemory(obtained);
            if (!keepReviewToken(managerId, obtained)) setNotice(reviewTokenTexts.needsStorage);
            setRefusal(null);
            setObtaining(false);
            return obtained;
          },
          (error: unknown) => {
            refuse(error, values);
            setObtaining(false);
            return undefined;
          },
        )
        .finally(() => {
          pending.current = null;
        });
      return pending.current;
    },
    [managerId, memory, refuse],
  );

  const onSubmit = useCallback(
    (event: React.FormEvent<HTMLFormElement>) => {
      if (!enabled) return;
      event.preventDefault();
      if (submitting.current) return;
      submitting.current = true;
      setSending(true);
      // What was typed, sent as the body and kept as the form's values if the review is refused.
      const values = bodyOf(new FormData(event.currentTarget));
      void (async () => {
        const token = await ensureToken(values);
        if (!token) {
          // The badge's token went out of the store with the submit: it comes back, nothing was sent.
          settleInFlight(true);
          submitting.current = false;
          setSending(false);
          return;
        }
        try {
          const answer = await sendTokenReview(managerId, { ...values, review_token: token }, texts);
          setMemory(undefined);
          dropReviewToken(managerId);
          dropDraft(draftKey);
          // The badge's token: spent with the badge, or given back when the badge was withheld.
          settleInFlight(answer.verification?.badge === "withheld");
          setRefusal(null);
          setDone(answer);
        } catch (error) {
          const problem = error instanceof ReviewTokenRequestError ? error.problem : undefined;
          settleInFlight(!problem?.code?.startsWith("token-"));
          refuse(error, values);
        }
        submitting.current = false;
        setSending(false);
      })();
    },
    [enabled, ensureToken, managerId, draftKey, refuse],
  );

  const status = obtaining
    ? reviewTokenTexts.obtaining
    : sending
      ? reviewTokenTexts.sending
      : held
        ? reviewTokenTexts.held
        : null;
  return {
    enabled,
    /** This tab holds a token for the manager: the form is offered even though the account's review is taken. */
    held: enabled && held,
    busy: sending,
    status,
    notice,
    refusal,
    signedOut,
    done,
    onSubmit,
  };
}

/**
 * Above the form, where the token path runs: what starting to write does (said before anything is typed), and the
 * token's state as it changes, announced politely. Errors go to the form's message box (an alert).
 */
export function TokenReviewNote({ status, notice }: { status: string | null; notice: string | null }) {
  return (
    <>
      <p className="hint token-review-note" id="token-review-note">
        {reviewTokenTexts.howItWorks}
      </p>
      <p className="hint token-review-status" role="status" aria-live="polite">
        {[status, notice].filter(Boolean).join(" ")}
      </p>
    </>
  );
}

/**
 * After the review was taken: the same confirmation as the form path (its success text, when it will appear, the
 * badge's fate) and the review's one-time key, shown here because it must not travel back beside the session;
 * `children` lead on (back to the manager).
 */
export function TokenReviewDone({ answer, children }: { answer: TokenReviewAnswer; children: React.ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const note = [answer.note, answer.verification?.note].filter(Boolean).join(" ");
  return (
    <section className="stack token-review-done" aria-labelledby="token-review-done-title">
      <h2 id="token-review-done-title" tabIndex={-1} ref={heading}>
        {toastTexts["manager-reviewed"]}
      </h2>
      {note ? (
        <p className="publication-note" role="status">
          {note} <Link to={paths.privacy()}>What we store</Link>
        </p>
      ) : null}
      <section className="review-key-note" aria-labelledby="review-key-title">
        <h2 id="review-key-title">{reviewKeyTexts.title}</h2>
        <p>
          <code className="review-key">{answer.review_key}</code>
        </p>
        <p>
          {reviewKeyTexts.keep} <Link to={paths.reviewKey()}>{reviewKeyTexts.page}</Link>
          {reviewKeyTexts.after}
        </p>
      </section>
      {children}
    </section>
  );
}
