import { data, Link } from "react-router";
import type { Route } from "./+types/compare.ts";
import { FormMessage } from "#app/components/form.tsx";
import { type Comparison, type CompareQuery, loadComparison, parseCompareQuery } from "#app/domain/compare.server.ts";
import type { SubjectKind } from "#app/db/schema.ts";
import { searchCompanies } from "#app/domain/companies.server.ts";
import { searchManagers } from "#app/domain/managers.server.ts";
import { readerFor } from "#app/http/read-database.server.ts";
import { countryList, isCountryCode } from "#app/lib/countries.server.ts";
import { compareLimits, maxSearchTermLength } from "#app/lib/limits.ts";
import { compareMessages, messages, peerMessages } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { loadingOr } from "#app/http/load-failure.server.ts";
import {
  companyCountedYesNo,
  companyCriteria,
  companyShareLabels,
  criterionLabels,
  managerCriteria,
  managerShareLabels,
  managerYesNo,
} from "#app/lib/ratings.ts";

type Found = { id: number; name: string; href: string };

/**
 * /compare?company=1&company=2 (or manager=…): 2 to 4 companies or managers side by side. Reached from a subject
 * page's "Add to compare" with one; a GET form finds more in a country, each result linking to the comparison with
 * it added, so the page works without JavaScript and every state has an address.
 */
export function loader({ request }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const query = parseCompareQuery(url.searchParams, { minimum: false });
  // With nothing chosen yet, the form's choice of kind says what to look for.
  const kind =
    query.selection.ids.length === 0 && url.searchParams.get("kind") === "manager" ? "manager" : query.selection.kind;
  return loadingOr(kind === "manager" ? "managers" : "companies", () => comparePage(request, url, query, kind));
}

async function comparePage(request: Request, url: URL, query: CompareQuery, kind: SubjectKind) {
  const db = readerFor(request);
  const { comparison, missing } = await loadComparison(db, query.selection);
  const ids = comparison.items.map((item) => item.id);
  const first = comparison.items[0];
  const countryParam = url.searchParams.get("country") ?? "";
  const country = isCountryCode(countryParam) ? countryParam : (first?.country ?? "US");
  const term = (url.searchParams.get("q") ?? "").trim().slice(0, maxSearchTermLength);
  let found: Found[] | null = null;
  if (term && ids.length < compareLimits.max) {
    const page =
      kind === "company"
        ? (await searchCompanies(db, { country, term })).items.map((item) => ({ id: item.id, name: item.name }))
        : (await searchManagers(db, { country, term })).items.map((item) => ({
            id: item.id,
            name: `${item.firstName} ${item.lastName}`,
          }));
    found = page
      .filter((item) => !ids.includes(item.id))
      .map((item) => ({ ...item, href: paths.compare(kind, [...ids, item.id]) }));
  }
  const error = !query.ok ? query.message : missing !== undefined ? compareMessages.notFound(kind, missing) : undefined;
  const notice = ids.length < compareLimits.min && !error ? compareMessages.tooFew(compareLimits.min) : undefined;
  const status = missing !== undefined ? 404 : query.ok ? 200 : 400;
  return data({ comparison, kind, ids, error, notice, country, term, found, countries: countryList }, { status });
}

export default function ComparePage({ loaderData }: Route.ComponentProps) {
  const { comparison, kind, ids, error, notice, country, term, found, countries } = loaderData;
  return (
    <article className="page">
      <title>{`${compareMessages.title} · ${messages.siteName}`}</title>
      <h1>{compareMessages.title}</h1>
      <p className="muted">{compareMessages.intro(compareLimits.min, compareLimits.max)}</p>
      <FormMessage error={error} />
      {notice ? <p role="status">{notice}</p> : null}
      {comparison.items.length > 0 ? <CompareTable comparison={comparison} /> : null}
      {ids.length < compareLimits.max ? (
        <section aria-labelledby="compare-add-heading" className="compare-add">
          <h2 id="compare-add-heading">{compareMessages.findLabel[kind]}</h2>
          <form method="get" action="/compare">
            {ids.map((id) => (
              <input key={id} type="hidden" name={kind} value={id} />
            ))}
            {ids.length === 0 ? (
              <fieldset>
                <legend>{compareMessages.kindLegend}</legend>
                <label>
                  <input type="radio" name="kind" value="company" defaultChecked /> {compareMessages.kinds.company}
                </label>{" "}
                <label>
                  <input type="radio" name="kind" value="manager" /> {compareMessages.kinds.manager}
                </label>
              </fieldset>
            ) : null}
            <label>
              {compareMessages.countryLabel}{" "}
              <select name="country" defaultValue={country}>
                {countries.map((option) => (
                  <option key={option.code} value={option.code}>
                    {option.name}
                  </option>
                ))}
              </select>
            </label>{" "}
            <label>
              {compareMessages.nameLabel}{" "}
              <input type="search" name="q" defaultValue={term} maxLength={maxSearchTermLength} required />
            </label>{" "}
            <button type="submit" className="button button-small">
              {compareMessages.find}
            </button>
          </form>
          {found ? (
            found.length === 0 ? (
              <p className="muted">{compareMessages.noMatch}</p>
            ) : (
              <ul>
                {found.map((item) => (
                  <li key={item.id}>
                    {item.name} <Link to={item.href}>{`${compareMessages.addThis} ${item.name}`}</Link>
                  </li>
                ))}
              </ul>
            )
          ) : null}
        </section>
      ) : null}
    </article>
  );
}

/** The chosen subjects as columns, their figures as rows: the mean, each share of yes, each criterion, the percentile. */
function CompareTable({ comparison }: { comparison: Comparison }) {
  const { kind } = comparison;
  const items = comparison.items as Array<Comparison["items"][number]>;
  const criteria: readonly string[] = kind === "company" ? companyCriteria : managerCriteria;
  const shares: ReadonlyArray<readonly [string, string]> =
    kind === "company"
      ? companyCountedYesNo.map((key) => [key, companyShareLabels[key]] as const)
      : managerYesNo.map((key) => [key, managerShareLabels[key]] as const);
  const ids = items.map((item) => item.id);
  const nameOf = (item: (typeof items)[number]) => ("name" in item ? item.name : `${item.firstName} ${item.lastName}`);
  const hrefOf = (id: number) => (kind === "company" ? paths.company(id) : paths.manager(id));
  const dash = compareMessages.none;
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={compareMessages.title}>
      <table className="compare-table">
        <thead>
          <tr>
            <th scope="col">{compareMessages.criterion}</th>
            {items.map((item) => (
              <th key={item.id} scope="col">
                <Link to={hrefOf(item.id)}>{nameOf(item)}</Link>
                <br />
                <Link
                  to={paths.compare(
                    kind,
                    ids.filter((id) => id !== item.id),
                  )}
                  className="muted"
                >
                  {compareMessages.remove}
                  <span className="visually-hidden"> {nameOf(item)}</span>
                </Link>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">{compareMessages.overall}</th>
            {items.map((item) => (
              <td key={item.id}>{item.mean === null ? dash : `${item.mean.toFixed(1)} of 5`}</td>
            ))}
          </tr>
          <tr>
            <th scope="row">{compareMessages.reviews}</th>
            {items.map((item) => (
              <td key={item.id}>{item.reviewCount.toLocaleString("en")}</td>
            ))}
          </tr>
          {items.some((item) => item.peers.length > 0) ? (
            <tr>
              <th scope="row">{peerMessages.heading}</th>
              {items.map((item) => (
                <td key={item.id}>
                  {item.peers
                    .filter((peer) => peer.overall.percentile !== null)
                    .map((peer) => (
                      <span key={peer.scope} className="compare-peer">
                        {peerMessages.betterThan(peer.overall.percentile!, kind, peer.name)}
                        <br />
                      </span>
                    ))}
                </td>
              ))}
            </tr>
          ) : null}
          {shares.map(([key, label]) => (
            <tr key={key}>
              <th scope="row">{label}</th>
              {items.map((item) => {
                const percent = (item.yesPercent as Record<string, number | null>)[key];
                return <td key={item.id}>{percent === null || percent === undefined ? dash : `${percent}%`}</td>;
              })}
            </tr>
          ))}
          {criteria.map((criterion) => (
            <tr key={criterion}>
              <th scope="row">{criterionLabels[criterion as keyof typeof criterionLabels]}</th>
              {items.map((item) => {
                const value = (item.averages as Record<string, number | null>)[criterion];
                return <td key={item.id}>{value === null || value === undefined ? dash : value.toFixed(1)}</td>;
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
