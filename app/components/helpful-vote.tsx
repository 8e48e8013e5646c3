import { createContext, useContext } from "react";
import { Form, Link } from "react-router";
import { voteMessages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";

/**
 * What the vote controls of a page's review cards need: whether the reader is signed in, which of the shown reviews
 * they marked helpful (their receipts recomputed by the loader), and the page to come back to. Without it (a page
 * kept for visitors without cookies) every card offers "Sign in to vote".
 */
export type VoteState = { signedIn: boolean; voted: readonly string[]; returnTo: string };

export const VoteContext = createContext<VoteState | null>(null);

/**
 * The count of a review's helpful votes and the control beside it: a form POST that works without JavaScript,
 * "Helpful" or "Remove my vote" signed in, a link to sign in (and come back) signed out.
 */
export function HelpfulVote({ reviewId, count }: { reviewId: string; count: number }) {
  const state = useContext(VoteContext);
  const countId = `helpful-count-${reviewId}`;
  const voted = state?.voted.includes(reviewId) ?? false;
  return (
    <div className="helpful-vote">
      <p className="helpful-count" id={countId}>
        {voteMessages.count(count)}
      </p>
      {state?.signedIn ? (
        <Form method="post" action={paths.helpful()}>
          <input type="hidden" name="review" value={reviewId} />
          <input type="hidden" name="vote" value={voted ? "remove" : "add"} />
          <input type="hidden" name="returnTo" value={state.returnTo} />
          <button
            type="submit"
            className="button button-secondary helpful-button"
            aria-pressed={voted}
            aria-describedby={countId}
            title={voted ? undefined : voteMessages.voteHint}
          >
            {voted ? voteMessages.unvote : voteMessages.vote}
          </button>
        </Form>
      ) : (
        <Link to={paths.signIn(state?.returnTo)} rel="nofollow">
          {voteMessages.signInToVote}
        </Link>
      )}
    </div>
  );
}
