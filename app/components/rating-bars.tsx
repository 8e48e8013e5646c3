import { barPercent, criterionLabels, scaleLabels } from "#app/lib/ratings.ts";

type Group<K extends string> = { title: string; criteria: readonly K[] };

/**
 * A horizontal bar drawn as SVG, so its width needs no inline style (the CSP forbids those). The track is the
 * element's own background: a company page shows up to 143 bars, and every byte of one counts 143 times. `percent`
 * is its length; `value`, a rating, gives its colour (null: the neutral colour of a count).
 */
export function Bar({ percent, value }: { percent: number; value: number | null }) {
  // The fill's colour follows the rating scale (s1 Awful … s5 Awesome); the words beside the bar say the same.
  const step = value === null ? 0 : Math.max(1, Math.min(5, Math.round(value)));
  return (
    <svg className="bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true">
      <rect className={`bar-fill s${step}`} width={percent.toFixed(1)} height="8" rx="4" />
    </svg>
  );
}

function label(value: number): string {
  return scaleLabels[Math.max(0, Math.min(4, Math.round(value) - 1))] ?? "";
}

/** Averaged criteria of a company or manager, in three groups (spec: company overview bars, on a linear scale). */
export function AverageBars<K extends keyof typeof criterionLabels>({
  groups,
  averages,
}: {
  groups: ReadonlyArray<Group<K>>;
  averages: Record<K, number | null>;
}) {
  return (
    <div className="bar-groups">
      {groups.map((group) => (
        <section key={group.title} className="bar-group" aria-label={group.title}>
          <h3>{group.title}</h3>
          <dl>
            {group.criteria.map((criterion) => {
              const value = averages[criterion];
              return (
                <div key={criterion} className="bar-row">
                  <dt>{criterionLabels[criterion]}</dt>
                  <dd>
                    <Bar percent={value === null ? 0 : barPercent(value)} value={value} />
                    <span className="bar-value">
                      {value === null ? "No ratings yet" : `${value.toFixed(1)} of 5 · ${label(value)}`}
                    </span>
                  </dd>
                </div>
              );
            })}
          </dl>
        </section>
      ))}
    </div>
  );
}

/** One review's ratings, in three groups, each bar its value out of 5. */
export function ReviewBars<K extends keyof typeof criterionLabels>({
  groups,
  ratings,
}: {
  groups: ReadonlyArray<Group<K>>;
  ratings: Record<K, number>;
}) {
  return (
    <div className="bar-groups compact">
      {groups.map((group) => (
        // A plain group, not a named region: ten reviews would repeat the same three landmarks.
        <div key={group.title} className="bar-group">
          <h3>{group.title}</h3>
          <dl>
            {group.criteria.map((criterion) => (
              <div key={criterion} className="bar-row">
                <dt>{criterionLabels[criterion]}</dt>
                <dd>
                  <Bar percent={barPercent(ratings[criterion])} value={ratings[criterion]} />
                  <span className="bar-value">
                    {ratings[criterion]}/5 · {label(ratings[criterion])}
                  </span>
                </dd>
              </div>
            ))}
          </dl>
        </div>
      ))}
    </div>
  );
}

/** The 1–5 scale legend: Awful, Ok, Good, Great, Awesome. */
export function ScaleLegend() {
  return (
    <p className="scale-legend">
      Scale:{" "}
      {scaleLabels.map((name, index) => (
        <span key={name}>
          {index + 1} {name}
          {index < scaleLabels.length - 1 ? " · " : ""}
        </span>
      ))}
    </p>
  );
}
