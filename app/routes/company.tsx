import { CompanyNotFound } from "#app/components/not-found-states.tsx";
import { data, Link } from "react-router";
import type { Route } from "./+types/company.ts";
import { DemoBadge } from "#app/components/demo-badge.tsx";
import { UnusualActivityNotice } from "#app/components/unusual-activity.tsx";
import { AddPrompt, EmptyState } from "#app/components/empty-state.tsx";
import { AverageBars, ScaleLegend } from "#app/components/rating-bars.tsx";
import { RatingFace } from "#app/components/rating-face.tsx";
import { CompanyReview, ReviewList } from "#app/components/review-card.tsx";
import { companyReviews, findCompany } from "#app/domain/companies.server.ts";
import { formatDay, plural } from "#app/lib/format.ts";
import { messages } from "#app/lib/messages.ts";
import { parseId } from "#app/lib/params.ts";
import { paths } from "#app/lib/paths.ts";
import { companyCriteriaGroups } from "#app/lib/ratings.ts";
import { useSignedIn } from "#app/components/use-signed-in.ts";
import { readerFor } from "#app/http/read-database.server.ts";

export async function loader({ params, request }: Route.LoaderArgs) {
  const id = parseId(params.companyId);
  const db = readerFor(request);
  const company = id === undefined ? undefined : await findCompany(db, id);
  if (!company) return data({ company: null, reviews: null }, { status: 404 });
  const before = new URL(request.url).searchParams.get("before");
  return { company, reviews: await companyReviews(db, company.id, before) };
}

export default function CompanyPage({ loaderData }: Route.ComponentProps) {
  const { company, reviews } = loaderData;
  const signedIn = useSignedIn();
  if (!company || !reviews) {
    return <CompanyNotFound />;
  }
  const place = [company.city, company.state, company.countryName].filter(Boolean).join(", ");
  return (
    <article className="page">
      <title>{`${company.name} · ${messages.siteName}`}</title>
      <meta name="description" content={`Anonymous reviews of ${company.name}, ${place}.`} />
      <header className="profile-head">
        <div>
          <h1>
            <a href={company.website} rel="noopener noreferrer nofollow" target="_blank">
              {company.name}
              <span className="visually-hidden"> (website, opens in a new tab)</span>
            </a>{" "}
            <DemoBadge show={company.isDemo} />
          </h1>
          <p className="muted">
            {company.industry} · {place}
          </p>
        </div>
        <div className="score">
          <RatingFace score={company.score} />
          <p>
            <strong>{company.score}</strong> of 5 · {plural(company.reviewCount, "review", "reviews")}
          </p>
        </div>
      </header>
      <UnusualActivityNotice show={company.unusualActivity} />

      <dl className="facts">
        <div>
          <dt>On-call</dt>
          <dd>{company.hasOncall ? "Yes" : "No"}</dd>
        </div>
        <div>
          <dt>Recent layoffs</dt>
          <dd>{company.recentLayoffs ? formatDay(company.recentLayoffs) : "None reported"}</dd>
        </div>
        <div>
          <dt>Managers</dt>
          <dd>
            <Link to={paths.companyManagers(company.id)}>See the managers of {company.name}</Link>
          </dd>
        </div>
        <div>
          <dt>Elsewhere</dt>
          <dd>
            <a href={company.glassdoorUrl} rel="noopener noreferrer nofollow" target="_blank">
              Reviews on another site<span className="visually-hidden"> (opens in a new tab)</span>
            </a>
          </dd>
        </div>
      </dl>

      <section aria-labelledby="ratings-heading">
        <h2 id="ratings-heading">Ratings</h2>
        <ScaleLegend />
        <AverageBars groups={companyCriteriaGroups} averages={company.averages} />
      </section>

      <section aria-labelledby="reviews-heading" className="reviews">
        <h2 id="reviews-heading">Reviews</h2>
        {signedIn ? (
          <p>
            <Link to={paths.reviewCompany(company.id)} className="button">
              Add review
            </Link>
          </p>
        ) : null}
        <ReviewList
          reviews={reviews}
          card={CompanyReview}
          empty={
            <EmptyState title={signedIn ? messages.noReviewsYet : messages.noCompanyReviews}>
              {signedIn ? null : (
                <AddPrompt
                  to={paths.reviewCompany(company.id)}
                  label="Add review"
                  signedOutAction="write the first review"
                />
              )}
            </EmptyState>
          }
          olderHref={(before) => paths.company(company.id, before)}
        />
      </section>
    </article>
  );
}
