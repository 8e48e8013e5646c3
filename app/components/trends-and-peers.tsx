import type { SubjectSummary } from "#app/domain/public-shapes.server.ts";
import { formatMonth } from "#app/lib/format.ts";
import { compareMessages, peerMessages, trendMessages } from "#app/lib/messages.ts";
import { criterionLabels } from "#app/lib/ratings.ts";

type Trend<C extends string> = SubjectSummary<C>["trend"];
type Peers<C extends string> = SubjectSummary<C>["peers"];

const width = 320;
const height = 120;
const pad = { left: 22, right: 8, top: 8, bottom: 8 };

/** The y of a score 1-5 in the chart. */
function yOf(value: number): number {
  return pad.top + ((5 - value) / 4) * (height - pad.top - pad.bottom);
}

/**
 * A subject's overall score by month as a small SVG line, drawn on the server, described in words for screen readers
 * and followed by the same figures as a table (overall, and each criterion on demand). Months with too few reviews are
 * left out, and the rule is said.
 */
export function TrendChart<C extends keyof typeof criterionLabels>({
  trend,
  criteria,
}: {
  trend: Trend<C>;
  criteria: readonly C[];
}) {
  const { months, minimumReviews } = trend;
  const first = months[0];
  const last = months.at(-1);
  const step = months.length > 1 ? (width - pad.left - pad.right) / (months.length - 1) : 0;
  const xOf = (index: number) => (months.length > 1 ? pad.left + index * step : (width + pad.left) / 2);
  const points = months.map((month, index) => `${xOf(index).toFixed(1)},${yOf(month.overall).toFixed(1)}`).join(" ");
  return (
    <section aria-labelledby="trend-heading" className="trend">
      <h3 id="trend-heading">{trendMessages.heading}</h3>
      {!first || !last ? (
        <p className="muted">
          {trendMessages.none(minimumReviews)} {trendMessages.rule(minimumReviews)}
        </p>
      ) : (
        <>
          <svg
            className="trend-chart"
            viewBox={`0 0 ${width} ${height}`}
            role="img"
            aria-labelledby="trend-title trend-description"
          >
            <title id="trend-title">{trendMessages.chartTitle}</title>
            <desc id="trend-description">
              {trendMessages.describe(
                formatMonth(first.month),
                first.overall.toFixed(1),
                formatMonth(last.month),
                last.overall.toFixed(1),
                months.length,
              )}
            </desc>
            {[1, 2, 3, 4, 5].map((value) => (
              <g key={value}>
                <line className="trend-grid" x1={pad.left} x2={width - pad.right} y1={yOf(value)} y2={yOf(value)} />
                <text className="trend-axis" x={pad.left - 6} y={yOf(value) + 3} textAnchor="end">
                  {value}
                </text>
              </g>
            ))}
            {months.length > 1 ? <polyline className="trend-line" points={points} /> : null}
            {months.map((month, index) => (
              <circle key={month.month} className="trend-point" cx={xOf(index)} cy={yOf(month.overall)} r="3" />
            ))}
          </svg>
          <p className="muted">{trendMessages.rule(minimumReviews)}</p>
          <table className="trend-table">
            <caption>{trendMessages.tableCaption}</caption>
            <thead>
              <tr>
                <th scope="col">{trendMessages.monthColumn}</th>
                <th scope="col">{trendMessages.reviewsColumn}</th>
                <th scope="col">{trendMessages.overallColumn}</th>
              </tr>
            </thead>
            <tbody>
              {months.map((month) => (
                <tr key={month.month}>
                  <th scope="row">{formatMonth(month.month)}</th>
                  <td>{month.reviewCount.toLocaleString("en")}</td>
                  <td>{month.overall.toFixed(1)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <details className="trend-criteria">
            <summary>{trendMessages.criteriaSummary}</summary>
            <div className="table-scroll" tabIndex={0} role="region" aria-label={trendMessages.criteriaSummary}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{trendMessages.monthColumn}</th>
                    {criteria.map((criterion) => (
                      <th key={criterion} scope="col">
                        {criterionLabels[criterion]}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {months.map((month) => (
                    <tr key={month.month}>
                      <th scope="row">{formatMonth(month.month)}</th>
                      {criteria.map((criterion) => (
                        <td key={criterion}>{month.criteria[criterion].toFixed(1)}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </section>
  );
}

/**
 * How a subject compares with its peers: per group (its country, a company's industry section), the overall
 * percentile in words, then each criterion's group average and percentile in a table.
 */
export function PeerComparisons<C extends keyof typeof criterionLabels>({
  peers,
  kind,
  criteria,
  averages,
  rankedMinimum,
}: {
  peers: Peers<C>;
  kind: "company" | "manager";
  criteria: readonly C[];
  averages: Record<C, number | null>;
  rankedMinimum: number;
}) {
  return (
    <section aria-labelledby="peers-heading" className="peers">
      <h3 id="peers-heading">{peerMessages.heading}</h3>
      {peers.length === 0 ? <p className="muted">{peerMessages.none}</p> : null}
      {peers.map((peer) => (
        <div key={peer.scope} className="peer-group">
          <p className="peer-headline">
            {peer.overall.percentile === null ? (
              peerMessages.notRanked(rankedMinimum)
            ) : (
              <strong>{peerMessages.betterThan(peer.overall.percentile, kind, peer.name)}</strong>
            )}
          </p>
          <div className="table-scroll" tabIndex={0} role="region" aria-label={peerMessages.groupAverage(peer.name)}>
            <table className="peer-table">
              <thead>
                <tr>
                  <th scope="col">{peerMessages.criterionColumn}</th>
                  <th scope="col">{peerMessages.thisOne[kind]}</th>
                  <th scope="col">{peerMessages.groupAverage(peer.name)}</th>
                  <th scope="col">{peerMessages.betterThanColumn}</th>
                </tr>
              </thead>
              <tbody>
                {criteria.map((criterion) => {
                  const figure = peer.criteria[criterion];
                  return (
                    <tr key={criterion}>
                      <th scope="row">{criterionLabels[criterion]}</th>
                      <td>{averages[criterion]?.toFixed(1) ?? "–"}</td>
                      <td>{figure.average?.toFixed(1) ?? "–"}</td>
                      <td>{figure.percentile === null ? "–" : `${figure.percentile}%`}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <p className="muted">{peerMessages.basis(peer.subjects, kind, rankedMinimum)}</p>
        </div>
      ))}
    </section>
  );
}

/**
 * Under the headline: the overall percentile among each group of peers in words, and the link that starts (or
 * continues, from the compare page's own form) a comparison with this subject.
 */
export function PeerHeadline({
  peers,
  kind,
  compareHref,
}: {
  peers: ReadonlyArray<{ name: string; overall: { percentile: number | null } }>;
  kind: "company" | "manager";
  compareHref: string;
}) {
  const ranked = peers.filter((peer) => peer.overall.percentile !== null);
  return (
    <p className="peer-summary">
      {ranked.map((peer) => (
        <span key={peer.name}>
          {peerMessages.betterThan(peer.overall.percentile!, kind, peer.name)}
          {" · "}
        </span>
      ))}
      <a href={compareHref}>{compareMessages.add}</a>
    </p>
  );
}
