import { useEffect, useState } from "react";
import { Link, useFetcher } from "react-router";
import { failureText, fetchFailureReason } from "#app/lib/failures.ts";
import { FieldProblemText, problemAttributes, fieldClass } from "#app/components/form.tsx";
import type { FieldProblem } from "#app/lib/form-refusal.ts";
import { industrySectionOf, industrySections } from "#app/lib/industries.ts";
import { fieldLengths } from "#app/lib/limits.ts";
import { paths } from "#app/lib/paths.ts";

export type CountryOption = { code: string; name: string };

type Suggestion = { id: number; name: string; city: string; country_name: string };
type Suggestions = { items: Suggestion[] };

/** The list shows from 2 typed characters; fetching starts at 5. */
const showFrom = 2;
const fetchFrom = 5;

/** The companies listed under names like `term` (from 5 characters), or what kept them from loading. */
function useSuggestions(term: string) {
  const [found, setFound] = useState<{ term: string; items?: Suggestion[]; error?: string } | null>(null);
  useEffect(() => {
    if (term.length < fetchFrom) return;
    const controller = new AbortController();
    const timer = setTimeout(async () => {
      let status = 0;
      try {
        const response = await fetch(paths.apiSuggestions(term), { signal: controller.signal });
        status = response.status;
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const { items } = (await response.json()) as Suggestions;
        setFound({ term, items });
      } catch (error) {
        if (controller.signal.aborted) return;
        setFound({ term, error: failureText("suggestions", fetchFailureReason(status, error)) });
      }
    }, 250);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [term]);
  return found;
}

/**
 * Companies already listed under a similar name, while a name is typed. `onChoose` turns each into a button that
 * picks it (adding a manager); without it they are links to the existing company (adding a company).
 */
function SimilarCompanies({
  typed,
  onChoose,
}: {
  typed: string;
  onChoose?: ((company: Suggestion) => void) | undefined;
}) {
  const term = typed.trim();
  const found = useSuggestions(term);
  if (term.length < showFrom) return null;
  const current = found?.term === term ? found : null;
  // The companies found for what was typed before stay until those of the new text arrive, as the list narrows.
  const items = found?.items ?? [];
  return (
    <div className="suggestions" aria-live="polite">
      {term.length < fetchFrom ? (
        <p className="hint">Type at least {fetchFrom} characters to see companies already listed.</p>
      ) : current?.error ? (
        <p className="hint" role="alert">
          {current.error}
        </p>
      ) : items.length === 0 ? (
        <p className="hint">{current ? "No similar company is listed yet." : "Looking for similar companies…"}</p>
      ) : (
        <>
          <p className="hint">Possible duplicates already listed:</p>
          <ul>
            {items.map((company) => (
              <li key={company.id}>
                {onChoose ? (
                  <button type="button" className="link-button" onClick={() => onChoose(company)}>
                    Choose {company.name} ({company.city}, {company.country_name})
                  </button>
                ) : (
                  <Link to={paths.company(company.id)}>
                    {company.name} ({company.city}, {company.country_name})
                  </Link>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

type KnownCities = { items: Array<{ city: string; state: string }> };

/** The known cities of the country a form starts in, rendered with the page so they work without JavaScript. */
export type StartingCities = { country: string; items: KnownCities["items"] };

/**
 * The cities already known in `country`, as a datalist for the city field (`listId`): those of the country the form
 * starts in come with the page (`starting`, so without JavaScript too); another country's are fetched once it is
 * chosen (`fillStateOfCity` then fills an empty state field).
 */
export function KnownCities({
  country,
  listId,
  starting,
}: {
  country: string;
  listId: string;
  starting?: StartingCities | undefined;
}) {
  const fetcher = useFetcher<KnownCities>();
  const { load } = fetcher;
  const fromPage = starting?.country === country;
  useEffect(() => {
    if (!fromPage && /^[A-Z]{2}$/.test(country)) void load(paths.apiKnownCities(country));
  }, [country, load, fromPage]);
  const items = fromPage ? starting.items : (fetcher.data?.items ?? []);
  return (
    <datalist id={listId}>
      {items.map(({ city, state }) => (
        <option key={`${city}|${state}`} value={city} data-state={state}>
          {state}
        </option>
      ))}
    </datalist>
  );
}

/** After a city is chosen from the suggestions, its state goes into the state field if that is still empty. */
export function fillStateOfCity(city: string, listId: string, stateId: string) {
  const state = document.getElementById(stateId);
  if (!(state instanceof HTMLInputElement) || state.value.trim() !== "") return;
  const known = Array.from(document.querySelectorAll<HTMLOptionElement>(`#${listId} option`)).find(
    (option) => option.value === city,
  );
  if (!known?.dataset.state) return;
  state.value = known.dataset.state;
  // Counted as typed: the form's completeness and its draft follow.
  state.dispatchEvent(new Event("input", { bubbles: true }));
}

export function TextField({
  name,
  label,
  value,
  error,
  type = "text",
  hint,
  maxLength,
  list,
  onChange,
}: {
  name: string;
  label: string;
  /** From app/lib/limits.ts, the same limit the schema enforces. */
  maxLength: number;
  value?: string | undefined;
  error?: FieldProblem | undefined;
  type?: string;
  hint?: string;
  /** The id of a datalist of suggestions. */
  list?: string | undefined;
  onChange?: (value: string) => void;
}) {
  return (
    <div className={fieldClass(error)}>
      <label htmlFor={name}>{label}</label>
      {hint ? (
        <p id={`${name}-hint`} className="hint">
          {hint}
        </p>
      ) : null}
      <input
        id={name}
        name={name}
        type={type}
        required
        maxLength={maxLength}
        list={list}
        autoComplete={list ? "off" : undefined}
        defaultValue={value}
        {...problemAttributes(error, `${name}-error`, hint ? `${name}-hint` : null)}
        onChange={onChange ? (event) => onChange(event.currentTarget.value) : undefined}
      />
      <FieldProblemText id={`${name}-error`} problem={error} />
    </div>
  );
}

/** The company fields, all required. `prefix` keeps them apart from a manager's city and state. */
export function CompanyFields({
  countries,
  values,
  errors,
  prefix = "",
  defaultCountry,
  startingCities,
  onChooseExisting,
}: {
  countries: readonly CountryOption[];
  /** The known cities of `defaultCountry`, with the page. */
  startingCities?: StartingCities | undefined;
  /** The country to start with, when the visitor came from a search in that country. */
  defaultCountry?: string | undefined;
  values?: Record<string, unknown> | undefined;
  errors?: Record<string, FieldProblem> | undefined;
  prefix?: string;
  onChooseExisting?: (company: Suggestion) => void;
}) {
  const value = (key: string) => {
    const entry = values?.[`${prefix}${key}`];
    return typeof entry === "string" ? entry : undefined;
  };
  const error = (key: string) => errors?.[`${prefix}${key}`];
  const [typed, setTyped] = useState(value("name") ?? "");
  const [country, setCountry] = useState(value("country") ?? defaultCountry ?? "");
  const cityList = `${prefix}city-list`;
  return (
    <>
      <TextField
        name={`${prefix}name`}
        label="Company name"
        value={value("name")}
        error={error("name")}
        maxLength={fieldLengths.name}
        onChange={setTyped}
      />
      <SimilarCompanies typed={typed} onChoose={onChooseExisting} />
      <div className={fieldClass(error("country"))}>
        <label htmlFor={`${prefix}country`}>Country</label>
        <select
          id={`${prefix}country`}
          name={`${prefix}country`}
          required
          defaultValue={country}
          {...problemAttributes(error("country"), `${prefix}country-error`)}
          onChange={(event) => setCountry(event.currentTarget.value)}
        >
          <option value="" disabled>
            Country
          </option>
          {countries.map((option) => (
            <option key={option.code} value={option.code}>
              {option.name}
            </option>
          ))}
        </select>
        <FieldProblemText id={`${prefix}country-error`} problem={error("country")} />
      </div>
      <TextField
        name={`${prefix}city`}
        label="City"
        value={value("city")}
        error={error("city")}
        maxLength={fieldLengths.city}
        list={cityList}
        onChange={(city) => fillStateOfCity(city, cityList, `${prefix}state`)}
      />
      <KnownCities country={country} listId={cityList} starting={startingCities} />
      <TextField
        name={`${prefix}state`}
        label="State or region"
        value={value("state")}
        error={error("state")}
        maxLength={fieldLengths.state}
      />
      <TextField
        name={`${prefix}website`}
        label="Website"
        hint="For example acme.com"
        value={value("website")}
        error={error("website")}
        maxLength={fieldLengths.website}
      />
      <TextField
        name={`${prefix}glassdoor_url`}
        label="Page on a review site"
        hint="Required: the company's page on another review site, such as Glassdoor, so readers can compare. Search the site for the company and paste the page's address."
        value={value("glassdoor_url")}
        error={error("glassdoor_url")}
        maxLength={fieldLengths.glassdoor_url}
      />
      <div className={fieldClass(error("industry"))}>
        <label htmlFor={`${prefix}industry`}>Industry</label>
        <p id={`${prefix}industry-hint`} className="hint">
          The company&apos;s main activity, as the United Nations classifies industries (ISIC).
        </p>
        <select
          id={`${prefix}industry`}
          name={`${prefix}industry`}
          required
          defaultValue={industrySectionOf(value("industry") ?? "")?.code ?? ""}
          {...problemAttributes(error("industry"), `${prefix}industry-error`, `${prefix}industry-hint`)}
        >
          <option value="" disabled>
            Choose an industry
          </option>
          {industrySections.map((section) => (
            <option key={section.code} value={section.code}>
              {section.title}
            </option>
          ))}
        </select>
        <FieldProblemText id={`${prefix}industry-error`} problem={error("industry")} />
      </div>
    </>
  );
}
