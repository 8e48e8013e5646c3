import { ManagerNotFound } from "#app/components/not-found-states.tsx";
import { data, Link } from "react-router";
import type { Route } from "./+types/manager-review.ts";
import { FormMessage } from "#app/components/form.tsx";
import { GuidedForm } from "#app/components/review-form/guided-form.tsx";
import { ManagerReviewFields } from "#app/components/review-form/review-fields.tsx";
import { database } from "#app/db/database.server.ts";
import { managerReviewKeys, managerReviewSchema, reviewFormValues } from "#app/domain/contribution-input.server.ts";
import { authorOf, hasReviewedManager, recordManagerReview } from "#app/domain/contributions.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { contributionAction } from "#app/http/contribution-forms.server.ts";
import { field, formFailure, retryAfterOf } from "#app/http/forms.server.ts";
import { VerificationTokenField } from "#app/components/verification-token-field.tsx";
import { publicationSettings } from "#app/domain/publication.server.ts";
import { badgeDomainsOf, managerWebsites } from "#app/domain/verification.server.ts";
import { contributionMessages, messages } from "#app/lib/messages.ts";
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
  const reviewed = await hasReviewedManager(db, authorOf(account), manager.id);
  return {
    manager: summary,
    blocked: reviewed ? contributionMessages.alreadyReviewed : null,
    verification: await badgeDomainsOf(db, await managerWebsites(db, manager.id)),
  };
}

export async function action({ context, request }: Route.ActionArgs) {
  const form = await request.formData();
  const values = reviewFormValues(form, managerReviewKeys);
  const account = context.get(accountContext);
  if (!account) return formFailure({ formError: contributionMessages.mustSignIn, values }, 401);
  const manager = await managerOfQuery(request);
  if (!manager) return formFailure({ formError: contributionMessages.managerIdRequired, values }, 404);
  return contributionAction({
    kind: "managerReview",
    ipKey: context.get(clientContext).ipKey,
    values,
    parts: { review: managerReviewSchema },
    inputs: { review: values },
    write: ({ review }) =>
      recordManagerReview(
        database().db,
        authorOf(account),
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
  // A session that ended after the page loaded is refused at Submit: the page then offers to sign in, like a page
  // loaded signed out (the typed review waits in the draft).
  const blocked =
    loaderData.blocked ??
    (actionData?.formError === contributionMessages.mustSignIn ? contributionMessages.mustSignIn : null);
  if (!manager) {
    return <ManagerNotFound />;
  }
  return (
    <section className="page narrow review-page">
      <title>{`Review ${manager.name} · ${messages.siteName}`}</title>
      <p className="breadcrumb">
        <Link to={paths.manager(manager.id)}>{manager.name}</Link>
      </p>
      <h1>Review {manager.name}</h1>
      {blocked ? (
        <>
          <FormMessage error={blocked} />
          <p>
            {blocked === contributionMessages.mustSignIn ? (
              <Link to={paths.signIn(paths.reviewManager(manager.id))} className="button">
                {messages.signIn}
              </Link>
            ) : (
              <Link to={paths.manager(manager.id)} className="button">
                Back to {manager.name}
              </Link>
            )}
          </p>
        </>
      ) : (
        <>
          <FormMessage error={actionData?.formError} />
          <GuidedForm draftKey={`manager-review:${manager.id}`} actionData={actionData}>
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
