import { CompanyNotFound } from "#app/components/not-found-states.tsx";
import { data, Link } from "react-router";
import type { Route } from "./+types/company-review.ts";
import { FormMessage } from "#app/components/form.tsx";
import { GuidedForm } from "#app/components/review-form/guided-form.tsx";
import { CompanyReviewFields } from "#app/components/review-form/review-fields.tsx";
import { database } from "#app/db/database.server.ts";
import { accountKeyOf } from "#app/http/vote-key.server.ts";
import { companyReviewKeys, companyReviewSchema, reviewFormValues } from "#app/domain/contribution-input.server.ts";
import { authorOf, recordCompanyReview } from "#app/domain/contributions.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { contributionAction } from "#app/http/contribution-forms.server.ts";
import { field, formFailure, readForm, retryAfterOf } from "#app/http/forms.server.ts";
import { VerificationTokenField } from "#app/components/verification-token-field.tsx";
import { publicationSettings } from "#app/domain/publication.server.ts";
import { badgeDomainsOf } from "#app/domain/verification.server.ts";
import { accountKeyMessages, contributionMessages, messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { companyOfQuery } from "#app/http/query-subjects.server.ts";
import { requireAccount } from "#app/http/session.server.ts";

/** A refused submission's page carries the Retry-After of the rate limit that refused it. */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  return retryAfterOf(actionHeaders);
}

export async function loader({ context, request, url }: Route.LoaderArgs) {
  requireAccount(context, url);
  const company = await companyOfQuery(request);
  if (!company) return data({ company: null, verification: null }, { status: 404 });
  return {
    company: { id: company.id, name: company.name },
    verification: await badgeDomainsOf(database().db, [company.website]),
  };
}

export async function action({ context, request, url }: Route.ActionArgs) {
  const account = requireAccount(context, url);
  const form = await readForm(request);
  const values = reviewFormValues(form, companyReviewKeys);
  const token = field(form, "verification_token");
  const company = await companyOfQuery(request);
  if (!company) return formFailure({ formError: contributionMessages.companyIdRequired, values }, 404);
  // The review is sealed with what the account's own key makes, never with anything of the account's id.
  const accountKey = await accountKeyOf(request, account.id);
  if (!accountKey) return formFailure({ formError: accountKeyMessages.formMissing, values }, 401);
  return contributionAction({
    kind: "companyReview",
    ipKey: context.get(clientContext).ipKey,
    values,
    parts: { review: companyReviewSchema },
    inputs: { review: values },
    write: ({ review }) =>
      recordCompanyReview(
        database().db,
        authorOf(account, accountKey),
        company.id,
        review,
        publicationSettings(),
        token || undefined,
      ),
    toast: "company-reviewed",
    targets: () => ({ published: paths.company, queued: paths.company(company.id), note: "review" }),
  });
}

export default function CompanyReviewPage({ loaderData, actionData }: Route.ComponentProps) {
  const { company, verification } = loaderData;
  if (!company || !verification) {
    return <CompanyNotFound />;
  }
  return (
    <section className="page narrow review-page">
      <title>{`Review ${company.name} · ${messages.siteName}`}</title>
      <p className="breadcrumb">
        <Link to={paths.company(company.id)}>{company.name}</Link>
      </p>
      <h1>Review {company.name}</h1>
      <FormMessage error={actionData?.formError} />
      <GuidedForm draftKey={`company-review:${company.id}`} actionData={actionData}>
        {(state) => (
          <>
            <CompanyReviewFields state={state} />
            <VerificationTokenField {...verification} state={state} />
          </>
        )}
      </GuidedForm>
    </section>
  );
}
