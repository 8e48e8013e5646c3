import { createHash } from "node:crypto";
import type { RouterContextProvider } from "react-router";
import { ZodError } from "zod";
import { isDatabaseUnavailable, unavailableRetryAfterSeconds } from "#app/db/unavailable.server.ts";
import { type BadgeOutcome, ContributionError, type Submission } from "#app/domain/contributions.server.ts";
import { type Moderator, ModerationError, moderatorOf } from "#app/domain/moderation.server.ts";
import { database } from "#app/db/database.server.ts";
import { moderationMessages } from "#app/lib/moderation.ts";
import { publicationSettings } from "#app/domain/publication.server.ts";
import { VerificationError } from "#app/domain/verification.server.ts";
import { VoteError } from "#app/domain/helpful-votes.server.ts";
import { bearerAccount } from "#app/http/api-auth.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { logger } from "#app/lib/logger.server.ts";
import { contributionMessages, type PublicationNoteKind, publicationNote, voteMessages } from "#app/lib/messages.ts";
import { accountKeyOf } from "#app/http/vote-key.server.ts";
import { verificationMessages } from "#app/lib/verification-messages.ts";
import { problem } from "#app/http/problem.server.ts";
import { TextResponse } from "#app/http/text-response.server.ts";
import { isBodyTooLarge } from "#app/http/api-request.server.ts";
import {
  consume,
  consumeApi,
  type RateLimitName,
  RateLimitedError,
  type RateLimitState,
} from "#app/lib/rate-limit.server.ts";
import { contributionLimits, type ContributionKind } from "#app/http/contribution-forms.server.ts";
import { accountContext } from "#app/http/session.server.ts";

/** A problem the handler wants answered as is (400 for a bad parameter, 404 for an unknown id). */
export class ApiProblem extends Error {
  readonly status: number;
  readonly extra: Record<string, unknown>;
  constructor(status: number, detail: string, extra: Record<string, unknown> = {}) {
    super(detail);
    this.status = status;
    this.extra = extra;
  }
}

type Args = { request: Request; params: Record<string, string | undefined>; context: Readonly<RouterContextProvider> };

function rateLimitHeaders(headers: Headers, state: RateLimitState): void {
  headers.set("RateLimit-Limit", String(state.limit));
  headers.set("RateLimit-Remaining", String(state.remaining));
  headers.set("RateLimit-Reset", String(state.resetSeconds));
}

/**
 * A write says its limit only. The write limit is counted per client address, which a whole office shares behind
 * one NAT: what remains of it would tell a colleague (or a manager) polling it that someone there just wrote.
 * A client that spends it is told when to come back by the 429's Retry-After.
 */
function writeLimitHeader(headers: Headers, state: RateLimitState): void {
  headers.set("RateLimit-Limit", String(state.limit));
}

const retryAfter = { "Retry-After": String(unavailableRetryAfterSeconds) };

/**
 * Maps what a handler throws to a problem response: 503 with Retry-After while the database is unreachable, and
 * anything unexpected a logged 500 without details.
 */
export function apiFailure(error: unknown): Response {
  if (error instanceof ApiProblem) return problem(error.status, error.message, error.extra);
  if (error instanceof ContributionError) return problem(error.status, error.message, { code: error.kind });
  if (error instanceof VerificationError) return problem(error.status, error.message, { code: error.kind });
  if (error instanceof VoteError) return problem(error.status, error.message, { code: error.kind });
  if (error instanceof ModerationError) return problem(error.status, error.message);
  if (error instanceof RateLimitedError) {
    return problem(429, error.message, {}, { headers: { "Retry-After": String(error.retryAfterSeconds) } });
  }
  if (error instanceof ZodError) {
    const errors = error.issues.map((issue) => ({ field: issue.path.join(".") || "body", message: issue.message }));
    return problem(400, errors.map((entry) => `${entry.field}: ${entry.message}`).join("; "), { errors });
  }
  if (error instanceof Response) return error;
  // The server cut the body off at its size limit and has answered 413 already; this answer goes nowhere.
  if (isBodyTooLarge(error)) return problem(413, contributionMessages.somethingWrong);
  if (isDatabaseUnavailable(error)) {
    logger.warn({ err: error }, "API request while the database is unavailable");
    return problem(503, contributionMessages.unavailable, {}, { headers: retryAfter });
  }
  logger.error({ err: error }, "API error");
  return problem(500, contributionMessages.somethingWrong);
}

/** 405 for a method the address does not take, with the methods it does. */
export function methodNotAllowed(allow: string): Response {
  return problem(405, `This address takes ${allow} only.`, {}, { headers: { Allow: allow } });
}

/** The action of a read-only API address: every other method is a 405 problem (not React Router's bare 405). */
export function readOnlyAction(): Response {
  return methodNotAllowed("GET, HEAD");
}

/**
 * A CORS preflight (OPTIONS, which React Router hands to the loader): granted for reads only. A preflight for a
 * write gets no CORS headers at all, so other sites' pages cannot send one.
 */
function preflight(request: Request): Response {
  const headers = new Headers({ Allow: "GET, HEAD", Vary: "Origin, Access-Control-Request-Method" });
  const asked = (request.headers.get("access-control-request-method") ?? "").toUpperCase();
  if (asked === "GET" || asked === "HEAD") {
    headers.set("Access-Control-Allow-Origin", "*");
    headers.set("Access-Control-Allow-Methods", "GET, HEAD");
    headers.set("Access-Control-Allow-Headers", "If-None-Match");
    headers.set("Access-Control-Max-Age", "86400");
  }
  return new Response(null, { status: 204, headers });
}

/**
 * A public read: open to any origin (CORS), cacheable (Cache-Control, ETag with 304), rate-limited per client.
 */
export function apiRead(handler: (args: Args) => Promise<unknown>, maxAgeSeconds = 60) {
  return publicRead(
    async (args) => ({ type: "application/json", text: JSON.stringify(await handler(args)) }),
    maxAgeSeconds,
  );
}

/** A public read answered as text of its own type (a feed, a sitemap): as `apiRead`, with the same limits. */
export function publicRead(handler: (args: Args) => Promise<{ type: string; text: string }>, maxAgeSeconds = 60) {
  return async (args: Args): Promise<Response> => {
    if (args.request.method === "OPTIONS") return preflight(args.request);
    const headers = new Headers({ "Access-Control-Allow-Origin": "*", Vary: "Origin" });
    let response: Response;
    try {
      rateLimitHeaders(headers, await consumeApi("apiRead", args.context.get(clientContext).ipKey));
      const { type, text: body } = await handler(args);
      const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
      headers.set("ETag", etag);
      headers.set("Cache-Control", `public, max-age=${maxAgeSeconds}`);
      if (args.request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
      headers.set("Content-Type", type);
      return new TextResponse(body, { status: 200, headers });
    } catch (error) {
      response = apiFailure(error);
    }
    for (const [name, value] of headers) if (!response.headers.has(name)) response.headers.set(name, value);
    return response;
  };
}

export type ApiAuthor = { userId: string };

type Answer = { status: number; body: unknown };

/**
 * The frame of every answer that is not a public read: never cached, no CORS, JSON; what `run` throws becomes a
 * problem answer (a 401 with its WWW-Authenticate), and `run` may answer a Response of its own (405) as is.
 */
async function closedAnswer(run: (headers: Headers) => Promise<Answer | Response>): Promise<Response> {
  const headers = new Headers({ "Cache-Control": "no-store" });
  let response: Response;
  try {
    const answer = await run(headers);
    if (answer instanceof Response) return answer;
    headers.set("Content-Type", "application/json");
    return new TextResponse(JSON.stringify(answer.body), { status: answer.status, headers });
  } catch (error) {
    response = apiFailure(error);
  }
  if (response.status === 401) response.headers.set("WWW-Authenticate", 'Bearer realm="candor"');
  for (const [name, value] of headers) if (!response.headers.has(name)) response.headers.set(name, value);
  return response;
}

/** The account of a request, by bearer access token or session cookie; a 401 problem without either. */
async function requestAccountId(args: Args): Promise<string> {
  const bearer = await bearerAccount(args.request);
  const userId = bearer?.userId ?? args.context.get(accountContext)?.id;
  if (!userId) throw new ApiProblem(401, contributionMessages.mustSignIn);
  return userId;
}

/**
 * An authenticated write: a bearer access token, or the session cookie (whose cross-site use server/same-origin.ts
 * refuses). No CORS: other sites' pages cannot write. A contribution also counts against the same rate limit as
 * its form (`contributionLimits`).
 */
export function apiWrite(
  handler: (args: Args & { author: ApiAuthor }) => Promise<Answer>,
  {
    contribution,
    allow = "GET, HEAD, POST",
    sharedLimit = true,
  }: { contribution?: ContributionKind; allow?: string; sharedLimit?: boolean } = {},
) {
  return (args: Args): Promise<Response> =>
    closedAnswer(async (headers) => {
      if (args.request.method !== "POST") return methodNotAllowed(allow);
      const ipKey = args.context.get(clientContext).ipKey;
      // A write that must leave no counter row beside it (a helpful vote) counts only against its own limit.
      if (sharedLimit) writeLimitHeader(headers, await consumeApi("apiWrite", ipKey));
      const userId = await requestAccountId(args);
      if (contribution) await consume(contributionLimits[contribution], ipKey);
      return handler({ ...args, author: { userId } });
    });
}

/**
 * The signed-in account's own account key, as the request carries it (header `Candor-Account-Key`, or the cookie):
 * every review is sealed with what it makes, and a vote counted under it. Without it, or with a key that is not this
 * account's: 401 `account-key-required`.
 */
export async function apiAccountKey(request: Request, author: ApiAuthor): Promise<string> {
  const key = await accountKeyOf(request, author.userId);
  if (!key) throw new ApiProblem(401, voteMessages.keyHeaderMissing, { code: "account-key-required" });
  return key;
}

/**
 * A write open to anyone, signed in or not (reporting a review): POST only, no CORS, counted against the API's write
 * limit and the named limit of its form.
 */
export function apiOpenWrite(
  handler: (args: Args) => Promise<Answer>,
  { limit, allow = "POST" }: { limit: RateLimitName; allow?: string },
) {
  return (args: Args): Promise<Response> =>
    closedAnswer(async (headers) => {
      if (args.request.method !== "POST") return methodNotAllowed(allow);
      const ipKey = args.context.get(clientContext).ipKey;
      writeLimitHeader(headers, await consumeApi("apiWrite", ipKey));
      await consume(limit, ipKey);
      return handler(args);
    });
}

/** The moderator making a request (bearer token or session cookie): 401 without an account, 403 without the role. */
export async function apiModerator(args: Args): Promise<Moderator> {
  const moderator = await moderatorOf(database().db, await requestAccountId(args));
  if (!moderator) throw new ApiProblem(403, moderationMessages.forbidden);
  return moderator;
}

/** A moderator's read (the queue): never cached, never shared with other origins. */
export function apiModeratorRead(handler: (args: Args & { moderator: Moderator }) => Promise<unknown>) {
  return (args: Args): Promise<Response> =>
    closedAnswer(async (headers) => {
      rateLimitHeaders(headers, await consumeApi("apiRead", args.context.get(clientContext).ipKey));
      const moderator = await apiModerator(args);
      return { status: 200, body: await handler({ ...args, moderator }) };
    });
}

function verificationOutcome(badge: BadgeOutcome) {
  return badge.shown
    ? { badge: "shown", domain: badge.domain, note: verificationMessages.badgeComing(badge.domain) }
    : {
        badge: "withheld",
        domain: badge.domain,
        note: verificationMessages.badgeWithheld(badge.domain, badge.minPeople),
      };
}

/**
 * The answer to a submission: 201 with `published(id)` when it was published at once (PUBLISH_INTERVAL=0), otherwise
 * 202 Accepted with the note of when it will appear (docs/decisions/0013-publication-in-sealed-batches.md).
 */
export function submissionAnswer(
  submission: Submission,
  published: (id: number) => unknown,
  note: PublicationNoteKind,
): { status: number; body: unknown } {
  const extra = {
    review_key: submission.reviewKey,
    ...(submission.badge ? { verification: verificationOutcome(submission.badge) } : {}),
  };
  if (submission.published) return { status: 201, body: { ...(published(submission.id) as object), ...extra } };
  return {
    status: 202,
    body: { status: "queued", note: publicationNote(note, publicationSettings()), ...extra },
  };
}
