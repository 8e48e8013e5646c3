import { ManagerNotFound } from "#app/components/not-found-states.tsx";
import { data, Link } from "react-router";
import type { Route } from "./+types/manager-profile.ts";
import { DemoBadge } from "#app/components/demo-badge.tsx";
import { UnusualActivityNotice } from "#app/components/unusual-activity.tsx";
import { AddPrompt, EmptyState } from "#app/components/empty-state.tsx";
import { AverageBars, ScaleLegend } from "#app/components/rating-bars.tsx";
import { RatingFace } from "#app/components/rating-face.tsx";
import { ManagerReview, ReviewList } from "#app/components/review-card.tsx";
import { findManager, managerReviews } from "#app/domain/managers.server.ts";
import { plural } from "#app/lib/format.ts";
import { messages } from "#app/lib/messages.ts";
import { parseId } from "#app/lib/params.ts";
import { paths } from "#app/lib/paths.ts";
import { useSignedIn } from "#app/components/use-signed-in.ts";

const addReview = "Add a review";
import { managerCriteriaGroups, managerYesNo, yesNoFlags } from "#app/lib/ratings.ts";
import { readerFor } from "#app/http/read-database.server.ts";

export async function loader({ params, request }: Route.LoaderArgs) {
  const id = parseId(params.managerId);
  const db = readerFor(request);
  const manager = id === undefined ? undefined : await findManager(db, id);
  if (!manager) return data({ manager: null, reviews: null }, { status: 404 });
  const before = new URL(request.url).searchParams.get("before");
  return { manager, reviews: await managerReviews(db, manager.id, before) };
}

export default function ManagerProfilePage({ loaderData }: Route.ComponentProps) {
  const { manager, reviews } = loaderData;
  const signedIn = useSignedIn();
  if (!manager || !reviews) {
    return <ManagerNotFound />;
  }
  const name = `${manager.firstName} ${manager.lastName}`;
  const place = [manager.city, manager.state].filter(Boolean).join(", ");
  return (
    <article className="page">
      <title>{`${name} · ${messages.siteName}`}</title>
      <meta name="description" content={`Anonymous reviews of ${name}, ${manager.title}.`} />
      <header className="profile-head">
        <div>
          <h1>
            {name} <DemoBadge show={manager.isDemo} />
          </h1>
          {signedIn ? (
            <p>
              <Link to={paths.reviewManager(manager.id)} className="button">
                {addReview}
              </Link>
            </p>
          ) : null}
          <p className="muted">
            {manager.title}
            {manager.department ? ` · ${manager.department}` : ""}
          </p>
          <p className="muted">
            {place}
            {place ? ", " : ""}
            {manager.countryName}
          </p>
          {manager.companies.length > 0 ? (
            <p>
              Works at{" "}
              {manager.companies.map((company, index) => (
                <span key={company.id}>
                  {index > 0 ? ", " : ""}
                  <Link to={paths.company(company.id)}>{company.name}</Link>
                </span>
              ))}
            </p>
          ) : null}
          <p>
            <a href={manager.linkedinUrl} rel="noopener noreferrer nofollow" target="_blank">
              LinkedIn profile<span className="visually-hidden"> of {name} (opens in a new tab)</span>
            </a>
          </p>
        </div>
        <div className="score">
          <RatingFace score={manager.score} />
          <p>
            <strong>{manager.score}</strong> of 5 · {plural(manager.reviewCount, "review", "reviews")}
          </p>
        </div>
      </header>
      <UnusualActivityNotice show={manager.unusualActivity} />

      <section aria-labelledby="ratings-heading">
        <h2 id="ratings-heading">Ratings</h2>
        <ScaleLegend />
        <AverageBars groups={managerCriteriaGroups} averages={manager.averages} />
        {manager.reviewCount > 0 ? (
          <ul className="flags summary" aria-label="Share of yes answers">
            {managerYesNo.map((question) => (
              <li key={question} className="flag">
                {yesNoFlags[question]}: {Math.round((manager.yesCounts[question] / manager.reviewCount) * 100)}% yes
              </li>
            ))}
          </ul>
        ) : null}
      </section>

      <section aria-labelledby="reviews-heading" className="reviews">
        <h2 id="reviews-heading">Reviews</h2>
        <ReviewList
          reviews={reviews}
          card={ManagerReview}
          empty={
            <EmptyState title={signedIn ? messages.noReviewsYet : messages.noManagerReviews}>
              {signedIn ? null : (
                <AddPrompt
                  to={paths.reviewManager(manager.id)}
                  label={addReview}
                  signedOutAction="write the first review"
                />
              )}
            </EmptyState>
          }
          olderHref={(before) => paths.manager(manager.id, before)}
        />
        {signedIn ? (
          <p>
            <Link to={paths.reviewManager(manager.id)} className="button">
              {addReview}
            </Link>
          </p>
        ) : null}
      </section>
    </article>
  );
}
