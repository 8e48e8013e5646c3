import type { Route } from "./+types/company-add.ts";
import { FormMessage } from "#app/components/form.tsx";
import { FormSection } from "#app/components/review-form/form-section.tsx";
import { GuidedForm } from "#app/components/review-form/guided-form.tsx";
import { CompanyFields } from "#app/components/review-form/company-fields.tsx";
import { CompanyReviewFields } from "#app/components/review-form/review-fields.tsx";
import { database } from "#app/db/database.server.ts";
import { accountKeyOf } from "#app/http/vote-key.server.ts";
import {
  companyKeys,
  companyReviewKeys,
  companyReviewSchema,
  companySchema,
  reviewFormValues,
} from "#app/domain/contribution-input.server.ts";
import { knownCities } from "#app/domain/companies.server.ts";
import { addCompany, authorOf } from "#app/domain/contributions.server.ts";
import { readerFor } from "#app/http/read-database.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { contributionAction } from "#app/http/contribution-forms.server.ts";
import { countryList, isCountryCode } from "#app/lib/countries.server.ts";
import { field, formFailure, readForm, retryAfterOf } from "#app/http/forms.server.ts";
import { inputValue, VerificationTokenField } from "#app/components/verification-token-field.tsx";
import { publicationSettings } from "#app/domain/publication.server.ts";
import { verificationSettings } from "#app/domain/verification.server.ts";
import { accountKeyMessages, messages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { requireAccount } from "#app/http/session.server.ts";

/** A refused submission's page carries the Retry-After of the rate limit that refused it. */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  return retryAfterOf(actionHeaders);
}

/** `?country=` (from a search in that country) preselects the company's country. */
export async function loader({ context, request, url }: Route.LoaderArgs) {
  requireAccount(context, url);
  const param = url.searchParams.get("country")?.toUpperCase() ?? "";
  const country = isCountryCode(param) ? param : undefined;
  return {
    countries: countryList,
    country,
    // The carried country's known cities come with the page, so they are suggested without JavaScript too.
    cities: country ? { country, items: await knownCities(readerFor(request), country) } : undefined,
    minPeople: verificationSettings().minPeople,
  };
}

/** The website typed for the company being added: a verification token of its domain badges the review. */
const typedWebsite = (form: HTMLFormElement) => inputValue(form, "website");

export async function action({ context, request, url }: Route.ActionArgs) {
  const account = requireAccount(context, url);
  const form = await readForm(request);
  const values = reviewFormValues(form, [...companyKeys, ...companyReviewKeys]);
  // The review is sealed with what the account's own key makes, never with anything of the account's id.
  const accountKey = await accountKeyOf(request, account.id);
  if (!accountKey) return formFailure({ formError: accountKeyMessages.formMissing, values }, 401);
  return contributionAction({
    kind: "company",
    ipKey: context.get(clientContext).ipKey,
    values,
    parts: { company: companySchema, review: companyReviewSchema },
    inputs: { company: values, review: values },
    write: ({ company, review }) =>
      addCompany(
        database().db,
        authorOf(account, accountKey),
        company,
        review,
        publicationSettings(),
        field(form, "verification_token") || undefined,
      ),
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
                startingCities={loaderData.cities}
                values={state.values}
                errors={actionData?.fieldErrors}
              />
            </FormSection>
            <CompanyReviewFields state={state} />
            <VerificationTokenField websiteOf={typedWebsite} minPeople={loaderData.minPeople} state={state} />
          </>
        )}
      </GuidedForm>
    </section>
  );
}
