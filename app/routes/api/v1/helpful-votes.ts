import { database } from "#app/db/database.server.ts";
import { helpfulVoteSchema, setHelpfulVote } from "#app/domain/helpful-votes.server.ts";
import { readBody } from "#app/http/api-request.server.ts";
import { ApiProblem, apiWrite, methodNotAllowed } from "#app/http/api.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { accountKeyOf } from "#app/http/vote-key.server.ts";
import { consume } from "#app/lib/rate-limit.server.ts";
import { voteMessages } from "#app/lib/messages.ts";

/** Votes are never listed: a reader sees their own votes on the pages, as the receipts recomputed for them. */
export function loader() {
  return methodNotAllowed("POST");
}

/**
 * POST /api/v1/helpful-votes: cast (`helpful: true`) or take back (false) the account's helpful vote on a review,
 * under the vote key the password grant answered (header `Candor-Account-Key`, which must be the signed-in account's own). One address for every review, so the
 * request log names none (docs/decisions/0016-helpful-votes-with-a-key-only-the-account-holds.md).
 */
export const action = apiWrite(
  async ({ request, context, author }) => {
    const body = await readBody(request, helpfulVoteSchema);
    if (!body.ok) throw body.response;
    // Only the signed-in account's own key counts: a made-up key would be a second voter (one vote per account).
    const voteKey = await accountKeyOf(request, author.userId);
    if (!voteKey) throw new ApiProblem(401, voteMessages.keyHeaderMissing, { code: "account-key-required" });
    await consume("vote", context.get(clientContext).ipKey);
    const outcome = await setHelpfulVote(database().db, voteKey, body.data.review_id, body.data.helpful);
    return {
      status: 200,
      body: { review_id: outcome.reviewId, helpful_votes: outcome.helpfulVotes, voted: outcome.voted },
    };
  },
  { allow: "POST", sharedLimit: false },
);
