import type { CompanyReviewCard, ManagerReviewCard } from "#app/domain/reviews.server.ts";
import { formatMonth } from "#app/lib/format.ts";
import { verificationMessages } from "#app/lib/messages.ts";
import { companyCriteriaGroups, managerCriteriaGroups, managerYesNo, yesNoFlags } from "#app/lib/ratings.ts";
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

function CardFrame({ month, score, children }: { month: string; score: number; children: React.ReactNode }) {
  return (
    <article className="card review-card">
      <header className="review-head">
        <RatingFace score={score} />
        <SentimentSlider score={score} />
        <p className="review-date">
          <span className="visually-hidden">Posted in </span>
          {formatMonth(month)}
        </p>
      </header>
      {children}
    </article>
  );
}

export function CompanyReview({ review }: { review: CompanyReviewCard }) {
  return (
    <CardFrame month={review.month} score={review.score}>
      {review.verifiedDomain ? (
        <p className="verified-badge">{verificationMessages.badge(review.verifiedDomain)}</p>
      ) : null}
      <Tags tags={review.tags} />
      <p className="review-text">{review.text}</p>
      <details className="review-ratings">
        <summary>All ratings</summary>
        <ReviewBars groups={companyCriteriaGroups} ratings={review.ratings} />
      </details>
    </CardFrame>
  );
}

export function ManagerReview({ review }: { review: ManagerReviewCard }) {
  return (
    <CardFrame month={review.month} score={review.score}>
      <Tags tags={review.tags} />
      <p className="review-text">{review.text}</p>
      <ul className="flags" aria-label="Yes or no answers">
        {managerYesNo.map((question) => (
          <li key={question} className={review.answers[question] ? "flag yes" : "flag no"}>
            {yesNoFlags[question]}: {review.answers[question] ? "Yes" : "No"}
          </li>
        ))}
      </ul>
      <details className="review-ratings">
        <summary>All ratings</summary>
        <ReviewBars groups={managerCriteriaGroups} ratings={review.ratings} />
      </details>
    </CardFrame>
  );
}
