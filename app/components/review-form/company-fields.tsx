import { useEffect, useState } from "react";
import { Link, useFetcher } from "react-router";
import { fieldLengths } from "#app/lib/limits.ts";
import { paths } from "#app/lib/paths.ts";

export type CountryOption = { code: string; name: string };

type Suggestion = { id: number; name: string; city: string; country_name: string };
type Suggestions = { items: Suggestion[] };

/** The list shows from 2 typed characters; fetching starts at 5. */
const showFrom = 2;
const fetchFrom = 5;

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
  const fetcher = useFetcher<Suggestions>();
  const { load } = fetcher;
  const term = typed.trim();
  useEffect(() => {
    if (term.length < fetchFrom) return;
    const timer = setTimeout(() => void load(`/api/v1/companies/suggestions?q=${encodeURIComponent(term)}`), 250);
    return () => clearTimeout(timer);
  }, [term, load]);
  if (term.length < showFrom) return null;
  const items = term.length >= fetchFrom ? (fetcher.data?.items ?? []) : [];
  return (
    <div className="suggestions" aria-live="polite">
      {term.length < fetchFrom ? (
        <p className="hint">Type at least {fetchFrom} characters to see companies already listed.</p>
      ) : items.length === 0 ? (
        <p className="hint">
          {fetcher.state === "idle" ? "No similar company is listed yet." : "Looking for similar companies…"}
        </p>
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

export function TextField({
  name,
  label,
  value,
  error,
  type = "text",
  hint,
  maxLength,
  onChange,
}: {
  name: string;
  label: string;
  /** From app/lib/limits.ts, the same limit the schema enforces. */
  maxLength: number;
  value?: string | undefined;
  error?: string | undefined;
  type?: string;
  hint?: string;
  onChange?: (value: string) => void;
}) {
  const described = [hint ? `${name}-hint` : null, error ? `${name}-error` : null].filter(Boolean).join(" ");
  return (
    <div className={error ? "field invalid" : "field"}>
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
        defaultValue={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
        onChange={onChange ? (event) => onChange(event.currentTarget.value) : undefined}
      />
      {error ? (
        <p id={`${name}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The company fields, all required. `prefix` keeps them apart from a manager's city and state. */
export function CompanyFields({
  countries,
  values,
  errors,
  prefix = "",
  onChooseExisting,
}: {
  countries: readonly CountryOption[];
  values?: Record<string, unknown> | undefined;
  errors?: Record<string, string> | undefined;
  prefix?: string;
  onChooseExisting?: (company: Suggestion) => void;
}) {
  const value = (key: string) => {
    const entry = values?.[`${prefix}${key}`];
    return typeof entry === "string" ? entry : undefined;
  };
  const error = (key: string) => errors?.[`${prefix}${key}`];
  const [typed, setTyped] = useState(value("name") ?? "");
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
      <div className={error("country") ? "field invalid" : "field"}>
        <label htmlFor={`${prefix}country`}>Country</label>
        <select
          id={`${prefix}country`}
          name={`${prefix}country`}
          required
          defaultValue={value("country") ?? ""}
          aria-invalid={error("country") ? true : undefined}
        >
          <option value="" disabled>
            Country
          </option>
          {countries.map((country) => (
            <option key={country.code} value={country.code}>
              {country.name}
            </option>
          ))}
        </select>
        {error("country") ? <p className="field-error">{error("country")}</p> : null}
      </div>
      <TextField
        name={`${prefix}state`}
        label="State or region"
        value={value("state")}
        error={error("state")}
        maxLength={fieldLengths.state}
      />
      <TextField
        name={`${prefix}city`}
        label="City"
        value={value("city")}
        error={error("city")}
        maxLength={fieldLengths.city}
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
        hint="Where else people review this company, for example its Glassdoor page"
        value={value("glassdoor_url")}
        error={error("glassdoor_url")}
        maxLength={fieldLengths.glassdoor_url}
      />
      <TextField
        name={`${prefix}industry`}
        label="Industry"
        value={value("industry")}
        error={error("industry")}
        maxLength={fieldLengths.industry}
      />
    </>
  );
}
