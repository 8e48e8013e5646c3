import { useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import { Form, Link, useFetcher, useLocation, useNavigation, useNavigationType, useSubmit } from "react-router";
import type { Route } from "./+types/search.ts";
import { DemoBadge } from "#app/components/demo-badge.tsx";
import { AboutText, SidePanel } from "#app/components/side-panel.tsx";
import { AddPrompt, EmptyState } from "#app/components/empty-state.tsx";
import { companyLists, searchCompanies } from "#app/domain/companies.server.ts";
import { managerLists, searchManagers } from "#app/domain/managers.server.ts";
import type { CompanySearchResult, ManagerCard, SearchLists } from "#app/domain/public-shapes.server.ts";
import { countryList, isCountryCode } from "#app/lib/countries.server.ts";
import { plural } from "#app/lib/format.ts";
import { preferredCountry, rememberCountry } from "#app/lib/preferred-country.ts";
import { scaleLabels } from "#app/lib/ratings.ts";
import { contributionMessages, messages } from "#app/lib/messages.ts";
import { failureDetail, failureText, fetchFailureReason } from "#app/lib/failures.ts";
import { type SearchKind, paths } from "#app/lib/paths.ts";
import { useHydrated } from "#app/lib/use-hydrated.ts";
import { useSignedIn } from "#app/components/use-signed-in.ts";
import { maxSearchTermLength } from "#app/lib/limits.ts";
import { readerFor } from "#app/http/read-database.server.ts";
import { loadingOr } from "#app/http/load-failure.server.ts";
import type { Kysely } from "kysely";
import type { Database } from "#app/db/schema.ts";

export function loader({ request }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const kind: SearchKind = url.searchParams.get("kind") === "manager" ? "manager" : "company";
  const countryParam = url.searchParams.get("country")?.toUpperCase() ?? "";
  const country = isCountryCode(countryParam) ? countryParam : "";
  const q = (url.searchParams.get("q") ?? "").slice(0, 100);
  const after = url.searchParams.get("after");
  const db = readerFor(request);
  // The spec's words for what could not be loaded: managers, a search of companies by name, or companies' lists.
  const failure = kind === "manager" ? "managers" : q.trim() ? "search" : "companies";
  return loadingOr(failure, async () => {
    const [results, lists] = await Promise.all([
      search(db, { kind, country, q, after }),
      listsBeforeATerm(db, { kind, country, q }),
    ]);
    return { kind, country, q, countries: countryList, results, lists };
  });
}

/** Before a term is typed, a chosen country shows its most reviewed and best rated companies or managers. */
async function listsBeforeATerm(db: Kysely<Database>, query: { kind: SearchKind; country: string; q: string }) {
  if (!query.country || query.q.trim()) return null;
  if (query.kind === "manager") return { kind: "manager" as const, lists: await managerLists(db, query.country) };
  return { kind: "company" as const, lists: await companyLists(db, query.country) };
}

/** The browser's language and the remembered country do not change while the page is open. */
const subscribeToNothing = () => () => {};

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
  const { kind, country, q, countries, results, lists } = loaderData;
  const submit = useSubmit();
  const navigation = useNavigation();
  const formRef = useRef<HTMLFormElement>(null);
  const hydrated = useHydrated();
  // The country picked in the form stands until a page that is not one of this form's own searches is shown (a
  // link, Back or Forward); the searches it starts keep it even while an earlier one is still loading.
  const [picked, setPicked] = useState<string | null>(null);
  const knownCountries = useMemo(() => new Set(countries.map((option) => option.code)), [countries]);
  const preferred = useSyncExternalStore(
    subscribeToNothing,
    () => (country || q ? "" : (preferredCountry(knownCountries) ?? "")),
    () => "",
  );
  const chosenCountry = picked ?? (country || preferred);
  // A country chosen before the page's scripts ran (they load after the first paint, decision 0042) stands: the
  // select is read once as the page hydrates, before the browser's own country could take its place.
  const countryRef = useRef<HTMLSelectElement>(null);
  useLayoutEffect(() => {
    const chosenEarly = countryRef.current?.value;
    if (chosenEarly && chosenEarly !== country) {
      setPicked(chosenEarly);
      rememberCountry(chosenEarly);
      // As choosing it now would: the page shows that country's lists or search.
      submitSoon(0);
    }
    // Only what the page held when it hydrated; later choices go through the select's onChange.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  // The search box keeps what is typed while a country or kind loads (it is never remounted); only another page
  // (Back, Forward, a link) puts the term of that page in it. The page as first loaded keeps what was typed before
  // the script ran.
  const termRef = useRef<HTMLInputElement>(null);
  const navigationType = useNavigationType();
  const location = useLocation();
  const [shownKey, setShownKey] = useState(location.key);
  if (shownKey !== location.key) {
    setShownKey(location.key);
    if (navigationType !== "REPLACE") setPicked(null);
  }
  const termShownFor = useRef(location.key);
  useEffect(() => {
    if (termShownFor.current === location.key) return;
    termShownFor.current = location.key;
    if (navigationType !== "REPLACE" && termRef.current) termRef.current.value = q;
  }, [location.key, navigationType, q]);

  // Search as you type: wait for a pause, then replace the URL so Back leaves the search rather than each keystroke.
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  function submitSoon(delay: number) {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      if (formRef.current) void submit(formRef.current, { replace: true, preventScrollReset: true });
    }, delay);
  }
  useEffect(() => () => clearTimeout(timer.current), []);

  // A search without a country starts in the last one chosen here, or the one of the browser's language: the select
  // shows it once the page runs and its lists load beside the page, whose address stays as it was asked for.
  const preferredLists = useFetcher<typeof loader>();
  const loadPreferredLists = preferredLists.load;
  useEffect(() => {
    if (!country && !q && preferred) void loadPreferredLists(paths.search({ kind, country: preferred, q: "" }));
  }, [kind, country, q, preferred, loadPreferredLists]);

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
    let status = 0;
    try {
      const response = await fetch(paths.apiSearch(kind, country, term), { signal: controller.signal });
      status = response.status;
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const page = (await response.json()) as CompanyPage & ManagerPage;
      setLive({ kind, country, q: term, results: kind === "manager" ? { kind, page } : { kind, page }, error: null });
    } catch (error) {
      if (controller.signal.aborted) return;
      const reason = fetchFailureReason(status, error);
      const failure = kind === "manager" ? "managers" : "search";
      // As the search page rendered on the server says it: the spec's words, then ours apart when they take none.
      const detail = reason === "network" ? undefined : failureDetail(failure, reason);
      setLive({
        kind,
        country,
        q: term,
        results: null,
        error: {
          text: reason === "network" ? contributionMessages.network : failureText(failure, reason),
          ...(detail ? { detail } : {}),
        },
      });
    }
  }
  // Live results stand until the loader brings newer ones (another country or kind, or a reload).
  const current = live && live.kind === kind && live.country === country ? live : null;
  const shown = current ? current.results : results;
  const shownQ = current ? current.q : q;

  const listsShown =
    country || !preferredLists.data || preferredLists.data.country !== chosenCountry
      ? lists
      : preferredLists.data.lists;
  const showLists = shown === null && !shownQ.trim() && !current?.error;
  const listsCountry = country || chosenCountry;
  const countryLabel = countries.find((option) => option.code === listsCountry)?.name ?? listsCountry;

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
              ref={countryRef}
              value={chosenCountry}
              required
              onChange={(event) => {
                rememberCountry(event.currentTarget.value);
                setPicked(event.currentTarget.value);
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
            {resultsAnnouncement(shown, showLists ? listsShown : null, countryLabel, searching)}
          </p>
          {!chosenCountry ? <p className="hint">Choose a country to start searching.</p> : null}
          {current?.error ? (
            <div role="alert">
              <p>{current.error.text}</p>
              {current.error.detail ? <p>{current.error.detail}</p> : null}
            </div>
          ) : null}
          {showLists && listsShown ? <ListsBeforeATerm lists={listsShown} countryLabel={countryLabel} /> : null}
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

type Lists = NonNullable<Route.ComponentProps["loaderData"]["lists"]>;

/**
 * What the live region says when results change: how many were found (the empty result says its own text), or which
 * lists show before a term is typed.
 */
function resultsAnnouncement(
  shown: LiveSearch["results"],
  lists: Lists | null,
  countryLabel: string,
  searching: boolean,
): string {
  if (searching) return "Searching…";
  if (lists) {
    const { mostReviewed, bestRated } = lists.lists;
    if (mostReviewed.length === 0 && bestRated.length === 0) return "";
    return `Most reviewed and best rated ${lists.kind === "manager" ? "managers" : "companies"} in ${countryLabel}`;
  }
  if (shown === null) return "";
  const count = shown.page.items.length;
  const found = shown.kind === "company" ? plural(count, "company", "companies") : plural(count, "manager", "managers");
  return `${found} found${shown.page.next ? ", more below" : ""}`;
}

/** "Most reviewed" and "Best rated" in the chosen country, before a term is typed. */
function ListsBeforeATerm({ lists, countryLabel }: { lists: Lists; countryLabel: string }) {
  const { mostReviewed, bestRated } = lists.lists as SearchLists<CompanySearchResult | ManagerCard>;
  const nouns = lists.kind === "manager" ? "managers" : "companies";
  if (mostReviewed.length === 0 && bestRated.length === 0) {
    return (
      <p className="hint">
        No {lists.kind === "manager" ? "manager" : "company"} in {countryLabel} has reviews to show yet. Search by name
        to find one.
      </p>
    );
  }
  const list = (title: string, items: Array<CompanySearchResult | ManagerCard>) => (
    <section className="search-list" aria-labelledby={`${title}-heading`}>
      <h3 id={`${title}-heading`} className="search-list-title">
        {title === "most-reviewed" ? "Most reviewed" : "Best rated"} {nouns} in {countryLabel}
      </h3>
      <ul className="card-list">
        {items.map((item) => (
          <li key={item.id} className="card result-card">
            {"name" in item ? <CompanyCard company={item} level={4} /> : <ManagerCardBody manager={item} level={4} />}
          </li>
        ))}
      </ul>
    </section>
  );
  return (
    <div className="search-lists">
      {list("most-reviewed", mostReviewed)}
      {list("best-rated", bestRated)}
    </div>
  );
}

/** A card's score: the mean with one decimal and its word on the scale, coloured by it (it reads without colour). */
function CardScore({ mean, reviewCount }: { mean: number | null; reviewCount: number }) {
  if (mean === null) return <p className="card-meta">No reviews yet</p>;
  const step = Math.min(5, Math.max(1, Math.floor(mean)));
  return (
    <p className="card-meta">
      <span className={`card-score v${step}`}>
        {mean.toFixed(1)}
        <span className="visually-hidden"> out of 5</span>
      </span>{" "}
      <span className="card-word">{scaleLabels[step - 1]}</span> · {plural(reviewCount, "review", "reviews")}
    </p>
  );
}

/** A card's title: a level below the heading of the list it is in. */
function CardTitle({ level, children }: { level: 3 | 4; children: React.ReactNode }) {
  const Heading = level === 4 ? "h4" : "h3";
  return <Heading className="card-title">{children}</Heading>;
}

function CompanyCard({ company, level = 3 }: { company: CompanySearchResult; level?: 3 | 4 }) {
  return (
    <>
      <CardTitle level={level}>
        {company.name} <DemoBadge show={company.isDemo} />
      </CardTitle>
      <CardScore mean={company.mean} reviewCount={company.reviewCount} />
      <p className="muted">
        {company.industry} · {company.city}
      </p>
      <Link to={paths.company(company.id)} className="card-link">
        View details<span className="visually-hidden"> of {company.name}</span>
      </Link>
    </>
  );
}

function ManagerCardBody({ manager, level = 3 }: { manager: ManagerCard; level?: 3 | 4 }) {
  return (
    <>
      <CardTitle level={level}>
        {manager.firstName} {manager.lastName} <DemoBadge show={manager.isDemo} />
      </CardTitle>
      <CardScore mean={manager.mean} reviewCount={manager.reviewCount} />
      <p className="muted">
        {manager.title}
        {manager.companies.length > 0 ? ` at ${manager.companies.map((company) => company.name).join(", ")}` : ""}
        {" · "}
        {manager.city}
      </p>
      <Link to={paths.manager(manager.id)} className="card-link">
        View details
        <span className="visually-hidden">
          {" "}
          of {manager.firstName} {manager.lastName}
        </span>
      </Link>
    </>
  );
}

type LiveSearch = {
  kind: SearchKind;
  country: string;
  q: string;
  results: { kind: "company"; page: CompanyPage } | { kind: "manager"; page: ManagerPage } | null;
  error: { text: string; detail?: string } | null;
};

type CompanyPage = Awaited<ReturnType<typeof searchCompanies>>;
type ManagerPage = Awaited<ReturnType<typeof searchManagers>>;

/** The link to a search's next page, when there is one. */
function MoreLink({ kind, country, q, next }: { kind: SearchKind; country: string; q: string; next: string | null }) {
  if (!next) return null;
  return (
    <Link className="more-link" to={paths.search({ kind, country, q, after: next })}>
      More {kind === "manager" ? "managers" : "companies"}
    </Link>
  );
}

/** A page that ended before it found a match, while more names remain to be searched (decision 0033). */
function NoMatchYet({ more }: { more: React.ReactNode }) {
  return (
    <>
      <p className="hint">{messages.noMatchYet}</p>
      {more}
    </>
  );
}

function CompanyResults({ results, q, country }: { results: CompanyPage; q: string; country: string }) {
  const more = <MoreLink kind="company" country={country} q={q} next={results.next} />;
  if (results.items.length === 0 && results.next) return <NoMatchYet more={more} />;
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
            <CompanyCard company={company} />
          </li>
        ))}
      </ul>
      {more}
    </>
  );
}

function ManagerResults({ results, q, country }: { results: ManagerPage; q: string; country: string }) {
  const more = <MoreLink kind="manager" country={country} q={q} next={results.next} />;
  if (results.items.length === 0 && results.next) return <NoMatchYet more={more} />;
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
            <ManagerCardBody manager={manager} />
          </li>
        ))}
      </ul>
      {more}
    </>
  );
}
