import { data, Link, redirect } from "react-router";
import type { Route } from "./+types/helpful.ts";
import { database } from "#app/db/database.server.ts";
import { reviewIdPattern, setHelpfulVote, VoteError } from "#app/domain/helpful-votes.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { field, rateLimitOrNull, readForm, retryAfterOf } from "#app/http/forms.server.ts";
import { accountContext, setToast } from "#app/http/session.server.ts";
import { accountKeyOf } from "#app/http/vote-key.server.ts";
import { messages, voteMessages } from "#app/lib/messages.ts";
import { paths, safeRedirectTarget } from "#app/lib/paths.ts";

/**
 * The vote control of every review card posts here (docs/decisions/0016-helpful-votes-with-a-key-only-the-account-holds.md):
 * one address for every review, so the request log names none. A vote leads back to the page it was cast on, at the
 * review; a refusal is a page of its own with the way back, so it reads the same without JavaScript.
 */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  return retryAfterOf(actionHeaders);
}

/** Asked for by address, the page says where votes are cast (it must render: a refused vote is shown on it). */
export function loader() {
  return null;
}

export async function action({ context, request }: Route.ActionArgs) {
  const form = await readForm(request);
  const back = safeRedirectTarget(form.get("returnTo"), paths.search());
  const account = context.get(accountContext);
  if (!account) throw redirect(paths.signIn(back));
  const reviewId = field(form, "review");
  if (!reviewIdPattern.test(reviewId)) return data({ formError: voteMessages.reviewNotFound, back }, { status: 404 });
  // Only this account's own key counts: a made-up key would be a second voter (one vote per account).
  const voteKey = await accountKeyOf(request, account.id);
  if (!voteKey) return data({ formError: voteMessages.keyMissing, back }, { status: 403 });
  const limited = await rateLimitOrNull("vote", context.get(clientContext).ipKey);
  if (limited) return data({ formError: limited.data.formError, back }, limited.init ?? { status: 429 });
  const helpful = field(form, "vote") !== "remove";
  try {
    await setHelpfulVote(database().db, voteKey, reviewId, helpful);
  } catch (error) {
    if (error instanceof VoteError) return data({ formError: error.message, back }, { status: error.status });
    throw error;
  }
  throw redirect(`${back}#review-${reviewId}`, { headers: setToast(new Headers(), helpful ? "voted" : "unvoted") });
}

export default function HelpfulVotePage({ actionData }: Route.ComponentProps) {
  return (
    <section className="page narrow">
      <title>{`${voteMessages.vote} · ${messages.siteName}`}</title>
      <h1>{voteMessages.vote}</h1>
      {actionData ? <p role="alert">{actionData.formError}</p> : <p>{voteMessages.fromCard}</p>}
      <p>
        <Link to={actionData?.back ?? paths.search()}>Back to the reviews</Link>
      </p>
    </section>
  );
}
