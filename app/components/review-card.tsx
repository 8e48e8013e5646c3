import type { ReactNode } from "react";
import { Link } from "react-router";
import type {
  CompanyReviewItem,
  ManagerReviewItem,
  Page,
  RemovedReview,
  ReviewCard,
} from "#app/domain/public-shapes.server.ts";
import { formatMonth } from "#app/lib/format.ts";
import { verifiedBadge } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import {
  type CompanyCriterion,
  type ManagerCriterion,
  type ManagerYesNo,
  companyCriteriaGroups,
  managerCriteriaGroups,
  managerYesNo,
  yesNoFlags,
} from "#app/lib/ratings.ts";
import { HelpfulVote } from "./helpful-vote.tsx";
import { ReviewBars } from "./rating-bars.tsx";
import { RatingFace } from "./rating-face.tsx";

/** A read-only slider showing where the review sits between negative and positive. */
function SentimentSlider({ score }: { score: number }) {
  const position = Math.max(0, Math.min(5, score));
  return (
    <div className="sentiment" role="img" aria-label={`Sentiment: ${position} of 5`}>
      <span aria-hidden="true">Negative</span>
      <svg
        className="sentiment-track"
        viewBox="0 0 100 12"
        preserveAspectRatio="none"
        aria-hidden="true"
        focusable="false"
      >
        <rect x="0" y="4" width="100" height="4" rx="2" className="sentiment-line" />
        <circle cx={(position / 5) * 96 + 2} cy="6" r="5" className="sentiment-thumb" />
      </svg>
      <span aria-hidden="true">Positive</span>
    </div>
  );
}

function Tags({ tags }: { tags: string[] }) {
  if (tags.length === 0) return null;
  return (
    <ul className="tags" aria-label="Tags">
      {tags.map((tag) => (
        <li key={tag} className="tag">
          {tag}
        </li>
      ))}
    </ul>
  );
}

/**
 * One review of either subject: its face, sentiment and month, the author's verified work domain if any, its text
 * (first, so a phone's first screen reaches the words), tags, the answers to `flags` (the yes/no questions this subject shows on a card) and every rating by group.
 */
function SubjectReview<C extends CompanyCriterion | ManagerCriterion, Y extends string>({
  review,
  groups,
  flags = [],
  verifiedDomain = null,
}: {
  review: ReviewCard<C, Y>;
  groups: ReadonlyArray<{ title: string; criteria: readonly C[] }>;
  flags?: readonly (Y & ManagerYesNo)[];
  verifiedDomain?: string | null;
}) {
  return (
    <article className="card review-card" id={`review-${review.id}`}>
      <header className="review-head">
        <RatingFace score={review.score} />
        <SentimentSlider score={review.score} />
        <p className="review-date">
          <span className="visually-hidden">Posted in </span>
          {formatMonth(review.month)}
        </p>
      </header>
      {verifiedDomain ? <p className="verified-badge">{verifiedBadge(verifiedDomain)}</p> : null}
      <p className="review-text">{review.text}</p>
      <Tags tags={review.tags} />
      {flags.length > 0 && (
        <ul className="flags" aria-label="Yes or no answers">
          {flags.map((question) => (
            <li key={question} className={review.answers[question] ? "flag yes" : "flag no"}>
              {yesNoFlags[question]}: {review.answers[question] ? "Yes" : "No"}
            </li>
          ))}
        </ul>
      )}
      <details className="review-ratings">
        <summary>All ratings</summary>
        <ReviewBars groups={groups} ratings={review.ratings} />
      </details>
      <footer className="review-foot">
        <HelpfulVote reviewId={review.id} count={review.helpfulVotes} />
        <Link className="report-link" to={paths.reportReview(review.id)} rel="nofollow">
          Report<span className="visually-hidden"> this review</span>
        </Link>
      </footer>
    </article>
  );
}

/** What a review removed by a moderator leaves in its place, linking to the decision in the public log. */
function RemovedMarker({ review }: { review: RemovedReview }) {
  return (
    <article className="card review-card removed-review">
      <p>
        <Link to={`${paths.moderationLog()}#decision-${review.removed.decision}`}>{review.removed.marker}</Link>
      </p>
    </article>
  );
}

export function CompanyReview({ review }: { review: CompanyReviewItem }) {
  if ("removed" in review) return <RemovedMarker review={review} />;
  return <SubjectReview review={review} groups={companyCriteriaGroups} verifiedDomain={review.verifiedDomain} />;
}

export function ManagerReview({ review }: { review: ManagerReviewItem }) {
  if ("removed" in review) return <RemovedMarker review={review} />;
  return (
    <SubjectReview
      review={review}
      groups={managerCriteriaGroups}
      flags={managerYesNo}
      verifiedDomain={review.verifiedDomain}
    />
  );
}

/**
 * A subject's page of reviews, newest first: `empty` when there are none, and a link to the older ones (the page's
 * own address with the cursor) when more follow.
 */
export function ReviewList<R extends { id: string }>({
  reviews,
  card: Card,
  empty,
  olderHref,
}: {
  reviews: Page<R>;
  card: (props: { review: R }) => ReactNode;
  empty: ReactNode;
  olderHref: (before: string) => string;
}) {
  return (
    <>
      {reviews.items.length === 0 ? (
        empty
      ) : (
        <ol className="review-list">
          {reviews.items.map((review) => (
            <li key={review.id}>
              <Card review={review} />
            </li>
          ))}
        </ol>
      )}
      {reviews.next ? (
        <Link className="more-link" to={olderHref(reviews.next)}>
          Older reviews
        </Link>
      ) : null}
    </>
  );
}
