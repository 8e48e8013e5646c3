import { ManagerNotFound } from "#app/components/not-found-states.tsx";
import { data, Link } from "react-router";
import type { Route } from "./+types/manager-review.ts";
import { FormMessage } from "#app/components/form.tsx";
import { GuidedForm } from "#app/components/review-form/guided-form.tsx";
import { TokenReviewDone, TokenReviewNote, useTokenReview } from "#app/components/review-form/token-review.tsx";
import { ManagerReviewFields } from "#app/components/review-form/review-fields.tsx";
import { database } from "#app/db/database.server.ts";
import { accountKeyOf } from "#app/http/vote-key.server.ts";
import { managerReviewKeys, managerReviewSchema, reviewFormValues } from "#app/domain/contribution-input.server.ts";
import { authorOf, hasReviewedManager, recordManagerReview } from "#app/domain/contributions.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { contributionAction } from "#app/http/contribution-forms.server.ts";
import { field, formFailure, readForm, retryAfterOf } from "#app/http/forms.server.ts";
import { VerificationTokenField } from "#app/components/verification-token-field.tsx";
import { publicationSettings } from "#app/domain/publication.server.ts";
import { badgeDomainsOf, managerWebsites } from "#app/domain/verification.server.ts";
import { accountKeyMessages, contributionMessages, messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { managerOfQuery } from "#app/http/query-subjects.server.ts";
import { accountContext } from "#app/http/session.server.ts";

/** A refused submission's page carries the Retry-After of the rate limit that refused it. */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  return retryAfterOf(actionHeaders);
}

export async function loader({ context, request }: Route.LoaderArgs) {
  const manager = await managerOfQuery(request);
  if (!manager) return data({ manager: null, blocked: null, verification: null }, { status: 404 });
  const summary = { id: manager.id, name: `${manager.firstName} ${manager.lastName}` };
  const account = context.get(accountContext);
  if (!account) return { manager: summary, blocked: contributionMessages.mustSignIn, verification: null };
  const { db } = database();
  const accountKey = await accountKeyOf(request, account.id);
  if (!accountKey) return { manager: summary, blocked: accountKeyMessages.formMissing, verification: null };
  const reviewed = await hasReviewedManager(db, authorOf(account, accountKey), manager.id);
  // The form's data comes even when the account's review is taken: a tab that holds the token it took (a reload
  // before Submit) still shows the form (docs/decisions/0031-one-review-tokens.md).
  return {
    manager: summary,
    blocked: reviewed ? contributionMessages.alreadyReviewed : null,
    verification: await badgeDomainsOf(db, await managerWebsites(db, manager.id)),
  };
}

export async function action({ context, request }: Route.ActionArgs) {
  const form = await readForm(request);
  const values = reviewFormValues(form, managerReviewKeys);
  const account = context.get(accountContext);
  if (!account) return formFailure({ formError: contributionMessages.mustSignIn, values }, 401);
  const manager = await managerOfQuery(request);
  if (!manager) return formFailure({ formError: contributionMessages.managerIdRequired, values }, 404);
  // The review is sealed with what the account's own key makes, never with anything of the account's id.
  const accountKey = await accountKeyOf(request, account.id);
  if (!accountKey) return formFailure({ formError: accountKeyMessages.formMissing, values }, 401);
  return contributionAction({
    kind: "managerReview",
    ipKey: context.get(clientContext).ipKey,
    values,
    parts: { review: managerReviewSchema },
    inputs: { review: values },
    write: ({ review }) =>
      recordManagerReview(
        database().db,
        authorOf(account, accountKey),
        manager.id,
        review,
        publicationSettings(),
        field(form, "verification_token") || undefined,
      ),
    toast: "manager-reviewed",
    targets: () => ({ published: paths.manager, queued: paths.manager(manager.id), note: "manager" }),
  });
}

export default function ManagerReviewPage({ loaderData, actionData }: Route.ComponentProps) {
  const { manager } = loaderData;
  const draftKey = `manager-review:${manager?.id ?? 0}`;
  // Where JavaScript runs, the review goes with a one-review token, without the session; otherwise the form posts.
  const token = useTokenReview(manager?.id ?? 0, draftKey);
  // A session that ended after the page loaded is refused at Submit (or when the token is asked for): the page then
  // offers to sign in, like a page loaded signed out (the typed review waits in the draft).
  const refused = token.refusal ?? actionData;
  const blocked =
    token.signedOut || actionData?.formError === contributionMessages.mustSignIn
      ? contributionMessages.mustSignIn
      : loaderData.blocked === contributionMessages.alreadyReviewed && token.held
        ? null
        : loaderData.blocked;
  if (!manager) {
    return <ManagerNotFound />;
  }
  const back = (
    <p>
      <Link to={paths.manager(manager.id)} className="button">
        Back to {manager.name}
      </Link>
    </p>
  );
  return (
    <section className="page narrow review-page">
      <title>{`Review ${manager.name} · ${messages.siteName}`}</title>
      <p className="breadcrumb">
        <Link to={paths.manager(manager.id)}>{manager.name}</Link>
      </p>
      <h1>Review {manager.name}</h1>
      {token.done ? (
        <TokenReviewDone answer={token.done}>{back}</TokenReviewDone>
      ) : blocked ? (
        <>
          <FormMessage error={blocked} />
          {blocked === contributionMessages.mustSignIn ? (
            <p>
              <Link to={paths.signIn(paths.reviewManager(manager.id))} className="button">
                {messages.signIn}
              </Link>
            </p>
          ) : (
            back
          )}
        </>
      ) : (
        <>
          <FormMessage error={refused?.formError} />
          {token.enabled ? <TokenReviewNote status={token.status} notice={token.notice} /> : null}
          <GuidedForm draftKey={draftKey} actionData={refused} onSubmit={token.onSubmit} busy={token.busy}>
            {(state) => (
              <>
                <ManagerReviewFields state={state} />
                {loaderData.verification ? <VerificationTokenField {...loaderData.verification} state={state} /> : null}
              </>
            )}
          </GuidedForm>
        </>
      )}
    </section>
  );
}
