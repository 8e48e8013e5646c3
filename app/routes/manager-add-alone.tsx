import { useState } from "react";
import { Form } from "react-router";
import type { Route } from "./+types/manager-add-alone.ts";
import { FormMessage } from "#app/components/form.tsx";
import { FormSection } from "#app/components/review-form/form-section.tsx";
import { GuidedForm } from "#app/components/review-form/guided-form.tsx";
import { CompanyFields } from "#app/components/review-form/company-fields.tsx";
import { ManagerFields } from "#app/components/review-form/manager-fields.tsx";
import { ManagerReviewFields } from "#app/components/review-form/review-fields.tsx";
import { database } from "#app/db/database.server.ts";
import { accountKeyOf } from "#app/http/vote-key.server.ts";
import {
  companyKeys,
  companySchema,
  managerKeys,
  managerReviewKeys,
  managerReviewSchema,
  managerSchema,
  reviewFormValues,
} from "#app/domain/contribution-input.server.ts";
import { addManager, authorOf, companySuggestions, suggestionMinLength } from "#app/domain/contributions.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { contributionAction } from "#app/http/contribution-forms.server.ts";
import { countryList, countryName } from "#app/lib/countries.server.ts";
import { field, formFailure, readForm, retryAfterOf } from "#app/http/forms.server.ts";
import { inputValue, VerificationTokenField } from "#app/components/verification-token-field.tsx";
import { publicationSettings } from "#app/domain/publication.server.ts";
import { verificationSettings } from "#app/domain/verification.server.ts";
import { accountKeyMessages, contributionMessages, messages } from "#app/lib/messages.ts";
import { parseId } from "#app/lib/params.ts";
import { paths } from "#app/lib/paths.ts";
import { requireAccount } from "#app/http/session.server.ts";
import { useHydrated } from "#app/lib/use-hydrated.ts";
import { maxSearchTermLength } from "#app/lib/limits.ts";

const companyPrefix = "company_";

/** A refused submission's page carries the Retry-After of the rate limit that refused it. */
export function headers({ actionHeaders }: Route.HeadersArgs) {
  return retryAfterOf(actionHeaders);
}

/** The manager's company is found by name (a GET form, so it works without JavaScript) or added here. */
export async function loader({ context, request, url }: Route.LoaderArgs) {
  requireAccount(context, url);
  const companyQuery = (new URL(request.url).searchParams.get("company_q") ?? "").slice(0, 200);
  const { db } = database();
  const found = await companySuggestions(db, companyQuery);
  // A verification token of the chosen company website's domain badges the review (decided when it is sent).
  const websites = new Map(
    found.length
      ? (
          await db
            .selectFrom("companies")
            .select(["id", "website"])
            .where(
              "id",
              "in",
              found.map((company) => company.id),
            )
            .execute()
        ).map((row) => [row.id, row.website])
      : [],
  );
  return {
    countries: countryList,
    companyQuery,
    minLength: suggestionMinLength,
    minPeople: verificationSettings().minPeople,
    found: found.map((company) => ({
      ...company,
      countryName: countryName(company.country),
      website: websites.get(company.id) ?? "",
    })),
  };
}

export async function action({ context, request, url }: Route.ActionArgs) {
  const account = requireAccount(context, url);
  const form = await readForm(request);
  const values: Record<string, unknown> = {
    ...reviewFormValues(form, [
      ...managerKeys,
      ...managerReviewKeys,
      ...companyKeys.map((key) => `${companyPrefix}${key}`),
    ]),
    company_id: field(form, "company_id"),
  };
  const choice = field(form, "company_id");
  const existingId = parseId(choice);
  const companyValues = Object.fromEntries(companyKeys.map((key) => [key, values[`${companyPrefix}${key}`]]));
  // The review is sealed with what the account's own key makes, never with anything of the account's id.
  const accountKey = await accountKeyOf(request, account.id);
  if (!accountKey) return formFailure({ formError: accountKeyMessages.formMissing, values }, 401);
  return contributionAction({
    kind: "manager",
    ipKey: context.get(clientContext).ipKey,
    values,
    check: () =>
      choice !== "new" && existingId === undefined
        ? formFailure({
            formError: contributionMessages.noCompany,
            fieldErrors: { company_id: contributionMessages.noCompany },
            values,
          })
        : undefined,
    // The company's fields count only when a new company is being added.
    parts: {
      manager: managerSchema,
      review: managerReviewSchema,
      company: existingId ? companySchema.optional() : companySchema,
    },
    inputs: { manager: values, review: values, company: existingId ? undefined : companyValues },
    // Company field errors carry the prefix of their inputs, apart from the manager's city and state.
    prefixes: { company: companyPrefix },
    write: ({ manager, review, company }) =>
      addManager(
        database().db,
        authorOf(account, accountKey),
        { company: company ? { company } : { id: existingId! }, manager, review },
        publicationSettings(),
        field(form, "verification_token") || undefined,
      ),
    toast: "manager-reviewed",
    // A queued manager has no page yet: their company's page when it exists, else the search page, with the note.
    targets: ({ company }) => ({
      published: paths.manager,
      queued: company ? paths.search() : paths.company(existingId!),
      note: "new-manager",
    }),
  });
}

export default function ManagerAddAlonePage({ loaderData, actionData }: Route.ComponentProps) {
  const submitted = actionData?.values?.company_id;
  const [choice, setChoice] = useState(typeof submitted === "string" ? submitted : "");
  const errors = actionData?.fieldErrors;
  const hydrated = useHydrated();
  // The chosen company's website, or the new one's as typed: a token of its domain badges the review.
  const chosenWebsite = (form: HTMLFormElement) =>
    choice === "new"
      ? inputValue(form, `${companyPrefix}website`)
      : (loaderData.found.find((company) => String(company.id) === choice)?.website ?? "");
  return (
    <section className="page narrow review-page">
      <title>{`Add a manager · ${messages.siteName}`}</title>
      <h1>Add a manager</h1>
      <FormMessage error={actionData?.formError} />

      <Form method="get" className="finder" role="search" aria-label="Find the company">
        <label htmlFor="company_q">Find the company by name</label>
        <div className="finder-row">
          <input
            id="company_q"
            name="company_q"
            type="search"
            defaultValue={loaderData.companyQuery}
            minLength={loaderData.minLength}
            maxLength={maxSearchTermLength}
          />
          <button type="submit" className="button button-secondary">
            Find
          </button>
        </div>
        <p className="hint">At least {loaderData.minLength} characters.</p>
      </Form>

      <GuidedForm draftKey={null} actionData={actionData} noValidate>
        {(state) => (
          <>
            <FormSection id="section-company" title="Their company">
              <fieldset id="company_id-field" className={errors?.company_id ? "stack invalid" : "stack"}>
                <legend>Choose the company</legend>
                {errors?.company_id ? <p className="field-error">{errors.company_id}</p> : null}
                {loaderData.found.map((company) => (
                  <label key={company.id} className="checkbox">
                    <input
                      type="radio"
                      name="company_id"
                      value={company.id}
                      required
                      checked={choice === String(company.id)}
                      onChange={() => setChoice(String(company.id))}
                    />
                    {company.name} ({company.city}, {company.countryName})
                  </label>
                ))}
                <label className="checkbox">
                  <input
                    type="radio"
                    name="company_id"
                    value="new"
                    required
                    checked={choice === "new"}
                    onChange={() => setChoice("new")}
                  />
                  The company is not listed: add it
                </label>
              </fieldset>
              {/* Without JavaScript nothing could enable it again: the server ignores these fields unless "new" is chosen. */}
              <fieldset className="stack" disabled={hydrated && choice !== "new"}>
                <legend>The new company</legend>
                <CompanyFields
                  countries={loaderData.countries}
                  values={actionData?.values}
                  errors={errors}
                  prefix={companyPrefix}
                />
              </fieldset>
            </FormSection>
            <FormSection id="section-manager" title="The manager">
              <ManagerFields values={actionData?.values} errors={errors} withDepartment />
            </FormSection>
            <ManagerReviewFields state={state} />
            <VerificationTokenField websiteOf={chosenWebsite} minPeople={loaderData.minPeople} state={state} />
          </>
        )}
      </GuidedForm>
    </section>
  );
}
