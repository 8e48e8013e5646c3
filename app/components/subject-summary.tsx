import { type VoteState, VoteContext } from "./helpful-vote.tsx";
import type { ReactNode } from "react";
import type { Page, SubjectSummary } from "#app/domain/public-shapes.server.ts";
import { plural } from "#app/lib/format.ts";
import { Link } from "react-router";
import { messages, summaryMessages } from "#app/lib/messages.ts";
import { criterionLabels, scaleLabels } from "#app/lib/ratings.ts";
import { maxSearchTermLength } from "#app/lib/limits.ts";
import { AddPrompt, EmptyState } from "./empty-state.tsx";
import { FormMessage } from "./form-message.tsx";
import { AverageBars, Bar, ScaleLegend } from "./rating-bars.tsx";
import { ReviewList } from "./review-card.tsx";
import { RatingFace } from "./rating-face.tsx";

type Group<K extends string> = { title: string; criteria: readonly K[] };

/** A share of yes answers; `short`, when given, is what the eye reads in the compact row (`label` is still said). */
type Share = { label: string; short?: string; percent: number | null };

/**
 * The headline of a company or manager (decision 0021): the spec's floored score and face, and beside them the mean
 * with one decimal, how many reviews it rests on, its 95% interval, and the shares of yes answers.
 */
export function Headline({
  summary,
  shares,
  detailsId,
}: {
  summary: Pick<SubjectSummary, "score" | "mean" | "interval" | "reviewCount">;
  shares: readonly Share[];
  /** The id of the section with every rating, linked from here so a phone reaches it past the reviews. */
  detailsId: string;
}) {
  const { score, mean, interval, reviewCount } = summary;
  return (
    <div className="headline">
      <div className="score">
        <RatingFace score={score} />
        <p>
          <strong>{score}</strong> of 5
        </p>
      </div>
      <div className="headline-figures">
        {mean === null ? (
          <p>{summaryMessages.noRatingsYet}</p>
        ) : (
          <>
            <p className="headline-mean">
              <strong>{mean.toFixed(1)}</strong> of 5 · {summaryMessages.basedOn(reviewCount)}
            </p>
            <p className="muted">
              {interval
                ? summaryMessages.interval(interval.low.toFixed(1), interval.high.toFixed(1))
                : summaryMessages.noInterval}
            </p>
          </>
        )}
      </div>
      {mean !== null && shares.length > 0 ? (
        <ul className="shares">
          {shares.map((share) => (
            <li key={share.label}>
              <strong>{share.percent ?? 0}%</strong>{" "}
              {share.short ? (
                <>
                  <span aria-hidden="true">{share.short}</span>
                  <span className="visually-hidden">{share.label}</span>
                </>
              ) : (
                share.label
              )}
            </li>
          ))}
        </ul>
      ) : null}
      {mean !== null ? (
        <p className="headline-more">
          <a href={`#${detailsId}`}>{summaryMessages.allRatings}</a>
        </p>
      ) : null}
    </div>
  );
}

/**
 * How many reviews gave each value, 5 at the top, as a table (its own text alternative): a bar per value, coloured by
 * the value on the rating scale and as long as its share of the reviews, with the count and share written beside it.
 */
export function Histogram({
  counts,
  caption,
  compact,
}: {
  counts: readonly number[];
  caption: string;
  compact?: boolean;
}) {
  const total = counts.reduce((sum, count) => sum + count, 0);
  return (
    <table className={compact ? "histogram compact" : "histogram"}>
      <caption>{caption}</caption>
      <thead className="visually-hidden">
        <tr>
          <th scope="col">{summaryMessages.ratingColumn}</th>
          <th scope="col">{summaryMessages.reviewsColumn}</th>
        </tr>
      </thead>
      <tbody>
        {[5, 4, 3, 2, 1].map((value) => {
          const count = counts[value - 1] ?? 0;
          const share = total > 0 ? (count / total) * 100 : 0;
          return (
            <tr key={value}>
              <th scope="row">
                {value} {scaleLabels[value - 1]}
              </th>
              <td>
                <Bar percent={share} value={value} />
                <span className="bar-value">
                  {count.toLocaleString("en")} ({Math.round(share)}%)
                </span>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Each criterion's distribution, on demand: one disclosure per group, closed until opened (no JavaScript needed). */
export function CriterionDistributions<K extends keyof typeof criterionLabels>({
  groups,
  distributions,
}: {
  groups: ReadonlyArray<Group<K>>;
  distributions: Record<K, number[]>;
}) {
  return (
    <div className="criterion-distributions">
      {groups.map((group) => (
        <details key={group.title}>
          <summary>{summaryMessages.distributionOf(group.title)}</summary>
          {group.criteria.map((criterion) => (
            <Histogram key={criterion} counts={distributions[criterion]} caption={criterionLabels[criterion]} compact />
          ))}
        </details>
      ))}
    </div>
  );
}

/** The most mentioned tags with how many reviews carry each, most first. */
export function TopTags({
  tags,
  reviewCount,
}: {
  tags: ReadonlyArray<{ tag: string; count: number }>;
  reviewCount: number;
}) {
  if (tags.length === 0) return null;
  return (
    <section aria-labelledby="tags-heading" className="top-tags">
      <h3 id="tags-heading">{summaryMessages.topTags}</h3>
      <ul>
        {tags.map(({ tag, count }) => (
          <li key={tag}>
            <span className="tag-name">{tag}</span>{" "}
            <span className="tag-count">
              {plural(count, "review", "reviews")}
              <span className="visually-hidden"> of {reviewCount.toLocaleString("en")}</span>
            </span>
            <Bar percent={reviewCount > 0 ? (count / reviewCount) * 100 : 0} value={null} />
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The id of the ratings-in-detail section, which the headline links to. */
export const ratingsDetailId = "ratings-detail";

/**
 * The first screen of a company or manager page after its name: the headline beside the histogram of overall scores.
 * On a phone the two stack, and the reviews follow at once.
 */
export function SummaryPanel({
  summary,
  shares,
}: {
  summary: Pick<SubjectSummary, "score" | "mean" | "interval" | "reviewCount" | "distribution">;
  shares: readonly Share[];
}) {
  return (
    <section aria-labelledby="summary-heading" className="summary-panel">
      <h2 id="summary-heading" className="visually-hidden">
        {summaryMessages.summary}
      </h2>
      <Headline summary={summary} shares={shares} detailsId={ratingsDetailId} />
      {summary.reviewCount > 0 ? (
        <Histogram counts={summary.distribution.overall} caption={summaryMessages.overallDistribution} />
      ) : null}
    </section>
  );
}

/**
 * Every rating of a company or manager: the averaged criteria in their groups, each criterion's distribution on
 * demand, the most mentioned tags, and what else the page knows (`children`).
 */
export function RatingsInDetail<K extends keyof typeof criterionLabels>({
  summary,
  groups,
  children,
}: {
  summary: Pick<SubjectSummary<K>, "averages" | "distribution" | "topTags" | "reviewCount">;
  groups: ReadonlyArray<Group<K>>;
  children?: ReactNode;
}) {
  return (
    <section id={ratingsDetailId} aria-labelledby="ratings-heading" className="ratings-detail">
      <h2 id="ratings-heading">{summaryMessages.ratingsInDetail}</h2>
      <ScaleLegend />
      <AverageBars groups={groups} averages={summary.averages} />
      {summary.reviewCount > 0 ? (
        <CriterionDistributions groups={groups} distributions={summary.distribution.criteria} />
      ) : null}
      <TopTags tags={summary.topTags} reviewCount={summary.reviewCount} />
      {children}
    </section>
  );
}

/**
 * For a signed-in reader, the product's own name for the link ("Add review" on a company, "Add a review" on a
 * manager); "Write a review" for everyone else: signed out, the form's guard asks to sign in first and brings them
 * back to the form (decision 0022). Pages kept for visitors without cookies are the signed-out ones, so they show
 * the second.
 */
export function WriteReview({ to, signedIn, addLabel }: { to: string; signedIn: boolean; addLabel: string }) {
  return (
    <p>
      <Link to={to} className="button">
        {signedIn ? addLabel : messages.writeReview}
      </Link>
    </p>
  );
}

/**
 * The reviews of a company or manager: "Write a review" above them (and below them when `writeBelow`, for a
 * manager's long profile), and the empty state with its sign-in prompt.
 */
export function SubjectReviews<R extends { id: string }>({
  reviews,
  card,
  writeHref,
  addLabel,
  signedIn,
  emptySignedOut,
  olderHref,
  writeBelow = false,
  filters,
  votes = null,
}: {
  reviews: Page<R>;
  card: (props: { review: R }) => ReactNode;
  writeHref: string;
  /** What a signed-in reader's link to the form says (`messages.addReview` or `messages.addManagerReview`). */
  addLabel: string;
  signedIn: boolean;
  emptySignedOut: string;
  olderHref: (before: string) => string;
  writeBelow?: boolean;
  /** The sort and filter form, shown once the subject has reviews; `narrowed` when it narrows the list. */
  filters?: { form: ReactNode; narrowed: boolean };
  /** What the cards' helpful-vote controls need (signed in, this reader's votes, the page to come back to). */
  votes?: VoteState | null;
}) {
  return (
    <VoteContext.Provider value={votes}>
      <section aria-labelledby="reviews-heading" className="reviews">
        <h2 id="reviews-heading">{summaryMessages.reviews}</h2>
        <WriteReview to={writeHref} signedIn={signedIn} addLabel={addLabel} />
        {filters?.form}
        <ReviewList
          reviews={reviews}
          card={card}
          empty={
            filters?.narrowed ? (
              <p className="muted">{summaryMessages.noMatch}</p>
            ) : (
              <EmptyState title={signedIn ? messages.noReviewsYet : emptySignedOut}>
                {signedIn ? null : (
                  <AddPrompt to={writeHref} label={messages.writeReview} signedOutAction="write the first review" />
                )}
              </EmptyState>
            )
          }
          olderHref={olderHref}
        />
        {writeBelow && reviews.items.length > 0 ? (
          <WriteReview to={writeHref} signedIn={signedIn} addLabel={addLabel} />
        ) : null}
      </section>
    </VoteContext.Provider>
  );
}

/** The sort and filters of a review list, as the page's query carries them. */
export type ReviewListState = { sort: string; rating?: number; tag?: string; q?: string };

/**
 * Sort and narrow a subject's reviews: a GET form to the page itself, so it works without JavaScript and every
 * choice has an address (decision 0001). A refused choice is named in the message box above it.
 */
export function ReviewFilters({
  action,
  tags,
  list,
  error,
}: {
  action: string;
  tags: readonly string[];
  list: ReviewListState;
  error: string | undefined;
}) {
  const narrowed =
    list.sort !== "newest" || list.rating !== undefined || list.tag !== undefined || list.q !== undefined;
  // Closed until wanted, so on a phone the first review stays on the first screen; open while it narrows the list.
  return (
    <details className="review-filters" open={narrowed || error !== undefined}>
      <summary>{summaryMessages.filterReviews}</summary>
      <form method="get" action={action} aria-label={summaryMessages.filterReviews}>
        <FormMessage error={error} />
        <div className="review-filter-fields">
          <label>
            {summaryMessages.sortBy}
            <select name="sort" defaultValue={list.sort}>
              {Object.entries(summaryMessages.sorts).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label>
            {summaryMessages.overallScore}
            <select name="rating" defaultValue={list.rating === undefined ? "" : String(list.rating)}>
              <option value="">{summaryMessages.any}</option>
              {[5, 4, 3, 2, 1].map((value) => (
                <option key={value} value={value}>
                  {value} {scaleLabels[value - 1]}
                </option>
              ))}
            </select>
          </label>
          <label>
            {summaryMessages.tag}
            <select name="tag" defaultValue={list.tag ?? ""}>
              <option value="">{summaryMessages.any}</option>
              {tags.map((tag) => (
                <option key={tag} value={tag}>
                  {tag}
                </option>
              ))}
            </select>
          </label>
          <label>
            {summaryMessages.words}
            <input type="search" name="q" defaultValue={list.q ?? ""} maxLength={maxSearchTermLength} />
          </label>
        </div>
        <p className="review-filter-actions">
          <button type="submit" className="button button-small">
            {summaryMessages.showReviews}
          </button>
          {narrowed ? <Link to={action}>{summaryMessages.allReviews}</Link> : null}
        </p>
      </form>
    </details>
  );
}
