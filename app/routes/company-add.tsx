import type { Route } from "./+types/company-add.ts";
import { FormMessage } from "#app/components/form.tsx";
import { FormSection } from "#app/components/review-form/form-section.tsx";
import { GuidedForm } from "#app/components/review-form/guided-form.tsx";
import { CompanyFields } from "#app/components/review-form/company-fields.tsx";
import { CompanyReviewFields } from "#app/components/review-form/review-fields.tsx";
import { database } from "#app/db/database.server.ts";
import {
  companyKeys,
  companyReviewKeys,
  companyReviewSchema,
  companySchema,
  reviewFormValues,
} from "#app/domain/contribution-input.server.ts";
import { addCompany, authorOf } from "#app/domain/contributions.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { contributionAction } from "#app/http/contribution-forms.server.ts";
import { countryList, isCountryCode } from "#app/lib/countries.server.ts";
import { retryAfterOf } from "#app/http/forms.server.ts";
import { messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { requireAccount } from "#app/http/session.server.ts";

/** A refused submission's page carries the Retry-After of the rate limit that refused it. */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  return retryAfterOf(actionHeaders);
}

/** `?country=` (from a search in that country) preselects the company's country. */
export function loader({ context, url }: Route.LoaderArgs) {
  requireAccount(context, url);
  const country = url.searchParams.get("country")?.toUpperCase() ?? "";
  return { countries: countryList, country: isCountryCode(country) ? country : undefined };
}

export async function action({ context, request, url }: Route.ActionArgs) {
  const account = requireAccount(context, url);
  const form = await request.formData();
  const values = reviewFormValues(form, [...companyKeys, ...companyReviewKeys]);
  return contributionAction({
    kind: "company",
    ipKey: context.get(clientContext).ipKey,
    values,
    parts: { company: companySchema, review: companyReviewSchema },
    inputs: { company: values, review: values },
    write: ({ company, review }) => addCompany(database().db, authorOf(account), company, review),
    toast: "company-added",
    // A queued company has no page yet: the search page, with the note of when it will appear.
    targets: () => ({ published: paths.company, queued: paths.search(), note: "company" }),
  });
}

export default function CompanyAddPage({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <section className="page narrow review-page">
      <title>{`Add a company · ${messages.siteName}`}</title>
      <h1>Add a company</h1>
      <p>Add the company and your review of it. Every field is needed, except the layoffs date.</p>
      <FormMessage error={actionData?.formError} />
      <GuidedForm draftKey="company-add" actionData={actionData}>
        {(state) => (
          <>
            <FormSection id="section-company" title="The company">
              <CompanyFields
                countries={loaderData.countries}
                defaultCountry={loaderData.country}
                values={state.values}
                errors={actionData?.fieldErrors}
              />
            </FormSection>
            <CompanyReviewFields state={state} />
          </>
        )}
      </GuidedForm>
    </section>
  );
}
