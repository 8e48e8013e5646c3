import { useSyncExternalStore } from "react";
import { decodeReviewToken, finalizeReviewToken, reviewTokenInfo, reviewTokenMessage } from "./review-token.ts";
import { importPublicKey, toBase64url } from "./verification-token.ts";

/**
 * The browser's half of the one-review rule (docs/decisions/0031-one-review-tokens.md), used by the manager review
 * page where JavaScript runs: obtain the account's one-review token for a manager while signed in, keep it in the
 * tab, and send the review with it in a request that carries no session (`credentials: "omit"`). The blind-signature
 * library (@cloudflare/blindrsa-ts) is loaded only when a token is obtained, so no other page carries it.
 *
 * The texts live here, with the only page that shows them, rather than in messages.ts: that module is in the
 * JavaScript every page loads first, which is at its budget (docs/performance.md).
 */
export const reviewTokenTexts = {
  /** Said above the form, before anything is typed: what submitting does, and what to keep in mind. */
  howItWorks:
    "Your review is sent without your account. When you submit, this browser tab first gets a review token for this manager, which uses this account's one review of them; the review then goes with the token alone, so nothing ties it to you. Until you submit, nothing is used: you can leave and come back. If sending fails, the token stays in this tab only, for the next try: keep the tab open until your review is accepted.",
  obtaining: "Getting your review token…",
  held: "This tab holds your review token for this manager: your review will be sent without your account.",
  sending: "Sending your review without your account…",
  badSignature:
    "The review token we were given does not check out against the public key, so this tab did not keep it. Tell us, please.",
  needsStorage:
    "Your browser does not let this page keep anything in the tab (storage is turned off), so the review token could not be kept. Turn storage on for this site and reload.",
} as const;

/** The addresses of the JSON API this module calls (documented at /api). */
const api = {
  key: "/api/v1/review-tokens/key",
  issue: (managerId: number) => `/api/v1/managers/${managerId}/review-tokens`,
  spend: (managerId: number) => `/api/v1/managers/${managerId}/token-reviews`,
};

/** What the JSON API answers when it refuses: RFC 9457 problem details. */
export type ApiProblem = {
  status: number;
  detail?: string;
  code?: string;
  errors?: { field: string; message: string }[];
};

/** A request the API refused (`problem`), or one that never got an answer (`problem` undefined: the network). */
export class ReviewTokenRequestError extends Error {
  readonly problem: ApiProblem | undefined;
  constructor(message: string, problem?: ApiProblem) {
    super(message);
    this.name = "ReviewTokenRequestError";
    this.problem = problem;
  }
}

async function problemOf(response: Response): Promise<ApiProblem> {
  const body = (await response.json().catch(() => ({}))) as Partial<ApiProblem>;
  return { ...body, status: response.status };
}

async function request(url: string, init: RequestInit, fallback: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch {
    throw new ReviewTokenRequestError(fallback);
  }
  if (response.ok) return response;
  const problem = await problemOf(response);
  throw new ReviewTokenRequestError(problem.detail ?? fallback, problem);
}

/** What GET /api/v1/review-tokens/key answers: the quarter's one-review key. */
export type ReviewTokenKeyAnswer = { period: string; key_id: string; public_key: { kty: "RSA"; n: string; e: string } };

/**
 * Blinds a fresh 32-byte nonce for `managerId` under the key (RSAPBSSA Blind, the manager and the key's period as
 * public metadata). Answers the body of POST /api/v1/managers/{managerId}/review-tokens and how to finish its
 * answer into the token (which checks the blind signature first).
 */
export async function blindReviewToken(key: ReviewTokenKeyAnswer, managerId: number) {
  const nonce = toBase64url(crypto.getRandomValues(new Uint8Array(32)));
  const { RSAPBSSA } = await import("@cloudflare/blindrsa-ts");
  const { blindedMsg, inv } = await RSAPBSSA.SHA384.PSS.Deterministic().blind(
    await importPublicKey(key.public_key),
    reviewTokenMessage(nonce),
    reviewTokenInfo(managerId, key.period),
  );
  return {
    request: { blinded: toBase64url(blindedMsg), key_id: key.key_id },
    finish: (blindSignature: string) =>
      finalizeReviewToken({
        publicKey: key.public_key,
        managerId,
        period: key.period,
        nonce,
        blinded: blindedMsg,
        inverse: inv,
        blindSignature,
      }),
  };
}

/**
 * Obtains the token of this signed-in account for `managerId`: fetches the quarter's key (no session needed),
 * blinds a nonce for it, has it signed (with the session: this is where the account's one review of the manager is
 * taken), and unblinds the answer after checking it. Throws ReviewTokenRequestError with the text to show
 * (`network` when no answer came).
 */
export async function obtainReviewToken(managerId: number, texts: { network: string }): Promise<string> {
  const keyAnswer = await request(api.key, { credentials: "omit" }, texts.network);
  const key = (await keyAnswer.json()) as ReviewTokenKeyAnswer;
  const blind = await blindReviewToken(key, managerId);
  const issued = await request(
    api.issue(managerId),
    {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(blind.request),
    },
    texts.network,
  );
  const answer = (await issued.json()) as { period?: string; key_id?: string; blind_signature?: string };
  try {
    if (answer.period !== key.period || answer.key_id !== key.key_id || !answer.blind_signature) {
      throw new Error("unexpected answer");
    }
    return await blind.finish(answer.blind_signature);
  } catch {
    throw new ReviewTokenRequestError(reviewTokenTexts.badSignature);
  }
}

/** What the API answers when it takes a review: published at once (201) or queued (202) with the note of when. */
export type TokenReviewAnswer = {
  published: boolean;
  note?: string;
  review_key: string;
  verification?: { badge: "shown" | "withheld"; domain: string; note: string };
};

/**
 * Sends the review with its token to POST /api/v1/managers/{managerId}/token-reviews without the session: no cookie
 * goes with it (`credentials: "omit"`), so the request that carries the review carries no account.
 */
export async function sendTokenReview(
  managerId: number,
  body: Record<string, unknown>,
  texts: { network: string },
): Promise<TokenReviewAnswer> {
  const response = await request(
    api.spend(managerId),
    {
      method: "POST",
      credentials: "omit",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    },
    texts.network,
  );
  const answer = (await response.json()) as Omit<TokenReviewAnswer, "published">;
  return { ...answer, published: response.status === 201 };
}

/**
 * The token waits in the tab's sessionStorage, under the manager's id, from the moment it is obtained until the
 * review that spends it is accepted (or the server refuses the token itself): a reload, a refused submission or a
 * lost connection keeps it, as they keep the draft (docs/decisions/0023-review-drafts-stay-in-the-tab.md).
 */
const prefix = "candor-review-token:";
const changed = "candor-review-token-changed";

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/** The token this tab holds for `managerId`, if it holds a well-formed one for that manager. */
export function heldReviewToken(managerId: number): string | undefined {
  const value = storage()?.getItem(prefix + managerId) ?? undefined;
  return value && decodeReviewToken(value)?.managerId === managerId ? value : undefined;
}

/** Keeps the token in the tab; false when the browser refuses storage (the token would be lost on a reload). */
export function keepReviewToken(managerId: number, token: string): boolean {
  try {
    const store = storage();
    if (!store) return false;
    store.setItem(prefix + managerId, token);
  } catch {
    return false;
  }
  window.dispatchEvent(new Event(changed));
  return true;
}

export function dropReviewToken(managerId: number): void {
  storage()?.removeItem(prefix + managerId);
  window.dispatchEvent(new Event(changed));
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener(changed, onChange);
  return () => window.removeEventListener(changed, onChange);
}

/** Whether this tab holds a token for `managerId`, as a React store: false in the server render. */
export function useHeldReviewToken(managerId: number): boolean {
  return useSyncExternalStore(
    subscribe,
    () => heldReviewToken(managerId) !== undefined,
    () => false,
  );
}
