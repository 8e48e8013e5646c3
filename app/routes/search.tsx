import { useEffect, useRef, useState } from "react";
import { Form, Link, useNavigation, useNavigationType, useSubmit } from "react-router";
import type { Route } from "./+types/search.ts";
import { DemoBadge } from "#app/components/demo-badge.tsx";
import { AboutText, SidePanel } from "#app/components/side-panel.tsx";
import { AddPrompt, EmptyState } from "#app/components/empty-state.tsx";
import { searchCompanies } from "#app/domain/companies.server.ts";
import { searchManagers } from "#app/domain/managers.server.ts";
import { countryList, isCountryCode } from "#app/lib/countries.server.ts";
import { plural } from "#app/lib/format.ts";
import { contributionMessages, messages } from "#app/lib/messages.ts";
import { type SearchKind, paths } from "#app/lib/paths.ts";
import { useHydrated } from "#app/lib/use-hydrated.ts";
import { useSignedIn } from "#app/components/use-signed-in.ts";
import { maxSearchTermLength } from "#app/lib/limits.ts";
import { readerFor } from "#app/http/read-database.server.ts";
import type { Kysely } from "kysely";
import type { Database } from "#app/db/schema.ts";

export function loader({ request }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const kind: SearchKind = url.searchParams.get("kind") === "manager" ? "manager" : "company";
  const countryParam = url.searchParams.get("country")?.toUpperCase() ?? "";
  const country = isCountryCode(countryParam) ? countryParam : "";
  const q = (url.searchParams.get("q") ?? "").slice(0, 100);
  const after = url.searchParams.get("after");
  return search(readerFor(request), { kind, country, q, after }).then((results) => ({
    kind,
    country,
    q,
    countries: countryList,
    results,
  }));
}

/** Searching runs only once a country is chosen and a term is typed. */
async function search(
  db: Kysely<Database>,
  query: { kind: SearchKind; country: string; q: string; after: string | null },
) {
  if (!query.country || !query.q.trim()) return null;
  if (query.kind === "manager") {
    return {
      kind: "manager" as const,
      page: await searchManagers(db, { country: query.country, term: query.q, after: query.after }),
    };
  }
  return {
    kind: "company" as const,
    page: await searchCompanies(db, { country: query.country, term: query.q, after: query.after }),
  };
}

export default function SearchPage({ loaderData }: Route.ComponentProps) {
  const { kind, country, q, countries, results } = loaderData;
  const submit = useSubmit();
  const navigation = useNavigation();
  const formRef = useRef<HTMLFormElement>(null);
  const hydrated = useHydrated();
  // The country picked in the form, until the next loaded search brings its own.
  const [picked, setPicked] = useState({ for: country, value: country });
  const chosenCountry = picked.for === country ? picked.value : country;
  // The search box keeps what is typed while a country or kind loads (it is never remounted); only Back and Forward
  // put the term of that page in it.
  const termRef = useRef<HTMLInputElement>(null);
  const navigationType = useNavigationType();
  useEffect(() => {
    if (navigationType === "POP" && termRef.current) termRef.current.value = q;
  }, [navigationType, q, kind, country]);

  // Search as you type: wait for a pause, then replace the URL so Back leaves the search rather than each keystroke.
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  function submitSoon(delay: number) {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      if (formRef.current) void submit(formRef.current, { replace: true, preventScrollReset: true });
    }, delay);
  }
  useEffect(() => () => clearTimeout(timer.current), []);

  // Typing searches through the public JSON API, as any client would; the URL follows without a navigation.
  const [live, setLive] = useState<LiveSearch | null>(null);
  const request = useRef<AbortController>(undefined);
  function searchAsYouType(term: string) {
    clearTimeout(timer.current);
    request.current?.abort();
    timer.current = setTimeout(() => void runLiveSearch(term), 250);
  }
  async function runLiveSearch(term: string) {
    const url = paths.search({ kind, country, q: term });
    window.history.replaceState(window.history.state, "", url);
    if (!term.trim()) {
      setLive({ kind, country, q: term, results: null, error: null });
      return;
    }
    const controller = new AbortController();
    request.current = controller;
    try {
      const response = await fetch(paths.apiSearch(kind, country, term), { signal: controller.signal });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const page = (await response.json()) as CompanyPage & ManagerPage;
      setLive({ kind, country, q: term, results: kind === "manager" ? { kind, page } : { kind, page }, error: null });
    } catch (error) {
      if (controller.signal.aborted) return;
      const offline = error instanceof TypeError;
      setLive({
        kind,
        country,
        q: term,
        results: null,
        error: offline ? contributionMessages.network : contributionMessages.somethingWrong,
      });
    }
  }
  // Live results stand until the loader brings newer ones (another country or kind, or a reload).
  const current = live && live.kind === kind && live.country === country ? live : null;
  const shown = current ? current.results : results;
  const shownQ = current ? current.q : q;

  const searching = navigation.state === "loading" && navigation.location?.pathname === "/search";
  const noun = kind === "manager" ? "manager" : "company";
  const addPath = kind === "manager" ? paths.addManagerAlone() : paths.addCompany(country || undefined);
  const signedIn = useSignedIn();

  return (
    <div className="with-side-panel">
      <div className="page">
        <title>{`Search · ${messages.siteName} · ${messages.tagline}`}</title>
        <meta name="description" content="Read anonymous reviews of managers and companies, by country." />
        <h1>Find a company or a manager</h1>
        <Form
          method="get"
          action="/search"
          ref={formRef}
          className="search-form"
          role="search"
          aria-label="Companies and managers"
        >
          <fieldset className="toggle">
            <legend className="visually-hidden">Search for</legend>
            {(["company", "manager"] as const).map((option) => (
              <label key={option} className="toggle-option">
                <input
                  type="radio"
                  name="kind"
                  value={option}
                  defaultChecked={kind === option}
                  onChange={() => submitSoon(0)}
                />
                <span>{option === "company" ? "Company" : "Manager"}</span>
              </label>
            ))}
          </fieldset>
          <div className="search-row">
            <label className="visually-hidden" htmlFor="country">
              Country
            </label>
            <select
              id="country"
              name="country"
              value={chosenCountry}
              required
              onChange={(event) => {
                setPicked({ for: country, value: event.currentTarget.value });
                submitSoon(0);
              }}
            >
              <option value="" disabled>
                {messages.countryPlaceholder}
              </option>
              {countries.map((option) => (
                <option key={option.code} value={option.code}>
                  {option.name}
                </option>
              ))}
            </select>
            <label className="visually-hidden" htmlFor="q">
              {kind === "manager" ? "Manager name" : "Company name"}
            </label>
            <input
              id="q"
              type="search"
              name="q"
              ref={termRef}
              defaultValue={q}
              placeholder={
                chosenCountry
                  ? `Search ${kind === "manager" ? "managers" : "companies"} by name`
                  : "Choose a country first"
              }
              autoComplete="off"
              maxLength={maxSearchTermLength}
              disabled={hydrated && !chosenCountry}
              onChange={(event) =>
                chosenCountry === country && country ? searchAsYouType(event.currentTarget.value) : submitSoon(250)
              }
            />
            <button type="submit" className="button">
              Search
            </button>
          </div>
        </Form>

        <div className="search-actions">
          {signedIn ? (
            <Link to={addPath} className="button button-secondary">
              Add {noun}
            </Link>
          ) : (
            <>
              <Link to={paths.signIn(addPath)} className="button button-secondary" aria-describedby="add-hint">
                Add {noun}
              </Link>
              <span id="add-hint" className="hint">
                {messages.signIn} first: your review is never linked to your account.
              </span>
            </>
          )}
        </div>

        <section aria-labelledby="results-heading" aria-busy={searching} className="results">
          <h2 id="results-heading" className="visually-hidden">
            Results
          </h2>
          <p className="visually-hidden" role="status">
            {resultsAnnouncement(shown, searching)}
          </p>
          {!country ? <p className="hint">Choose a country to start searching.</p> : null}
          {current?.error ? <p role="alert">{current.error}</p> : null}
          {shown === null ? null : shown.kind === "company" ? (
            <CompanyResults results={shown.page} q={shownQ} country={country} />
          ) : (
            <ManagerResults results={shown.page} q={shownQ} country={country} />
          )}
        </section>
        <AboutText />
      </div>
      <SidePanel />
    </div>
  );
}

/** What the live region says when results change: how many were found (the empty result says its own text). */
function resultsAnnouncement(shown: LiveSearch["results"], searching: boolean): string {
  if (searching) return "Searching…";
  if (shown === null) return "";
  const count = shown.page.items.length;
  const found = shown.kind === "company" ? plural(count, "company", "companies") : plural(count, "manager", "managers");
  return `${found} found${shown.page.next ? ", more below" : ""}`;
}

type LiveSearch = {
  kind: SearchKind;
  country: string;
  q: string;
  results: { kind: "company"; page: CompanyPage } | { kind: "manager"; page: ManagerPage } | null;
  error: string | null;
};

type CompanyPage = Awaited<ReturnType<typeof searchCompanies>>;
type ManagerPage = Awaited<ReturnType<typeof searchManagers>>;

function CompanyResults({ results, q, country }: { results: CompanyPage; q: string; country: string }) {
  if (results.items.length === 0) {
    return (
      <EmptyState title={messages.noCompanyFound}>
        <AddPrompt to={paths.addCompany(country)} label="Add this company" signedOutAction="add it" />
      </EmptyState>
    );
  }
  return (
    <>
      <ul className="card-list">
        {results.items.map((company) => (
          <li key={company.id} className="card result-card">
            <h3>
              {company.name} <DemoBadge show={company.isDemo} />
            </h3>
            <p className="muted">
              {company.city} · {plural(company.reviewCount, "review", "reviews")}
            </p>
            <Link to={paths.company(company.id)} className="card-link">
              View details<span className="visually-hidden"> of {company.name}</span>
            </Link>
          </li>
        ))}
      </ul>
      {results.next ? (
        <Link className="more-link" to={paths.search({ kind: "company", country, q, after: results.next })}>
          More companies
        </Link>
      ) : null}
    </>
  );
}

function ManagerResults({ results, q, country }: { results: ManagerPage; q: string; country: string }) {
  if (results.items.length === 0) {
    return (
      <EmptyState title={messages.noManagerFound}>
        <AddPrompt to={paths.addManagerAlone()} label="Add this manager" signedOutAction="add them" />
      </EmptyState>
    );
  }
  return (
    <>
      <ul className="card-list">
        {results.items.map((manager) => (
          <li key={manager.id} className="card result-card">
            <h3>
              {manager.firstName} {manager.lastName} <DemoBadge show={manager.isDemo} />
            </h3>
            <p className="muted">
              {manager.title}
              {manager.companies.length > 0 ? ` at ${manager.companies.map((company) => company.name).join(", ")}` : ""}
            </p>
            <p className="muted">
              {manager.city} · {plural(manager.reviewCount, "review", "reviews")}
            </p>
            <Link to={paths.manager(manager.id)} className="card-link">
              View details
              <span className="visually-hidden">
                {" "}
                of {manager.firstName} {manager.lastName}
              </span>
            </Link>
          </li>
        ))}
      </ul>
      {results.next ? (
        <Link className="more-link" to={paths.search({ kind: "manager", country, q, after: results.next })}>
          More managers
        </Link>
      ) : null}
    </>
  );
}
