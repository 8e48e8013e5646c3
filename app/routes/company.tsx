import { CompanyNotFound } from "#app/components/not-found-states.tsx";
import { data, Link } from "react-router";
import type { Route } from "./+types/company.ts";
import { DemoBadge } from "#app/components/demo-badge.tsx";
import { UnusualActivityNotice } from "#app/components/unusual-activity.tsx";
import { RatingsInDetail, ReviewFilters, SubjectReviews, SummaryPanel } from "#app/components/subject-summary.tsx";
import { isNarrowed, newestFirst } from "#app/domain/reviews.server.ts";
import { companyTags } from "#app/lib/tags.ts";
import { CompanyReview } from "#app/components/review-card.tsx";
import { companyReviewListSchema, companyReviews, findCompany } from "#app/domain/companies.server.ts";
import { formatDay } from "#app/lib/format.ts";
import { feedMessages, messages } from "#app/lib/messages.ts";
import { FeedLinks } from "#app/components/feed-links.tsx";
import { parseId } from "#app/lib/params.ts";
import { paths } from "#app/lib/paths.ts";
import { companyCountedYesNo, companyCriteria, companyCriteriaGroups, companyShareLabels } from "#app/lib/ratings.ts";
import { useSignedIn } from "#app/components/use-signed-in.ts";
import { readerFor } from "#app/http/read-database.server.ts";
import { PeerComparisons, PeerHeadline, TrendChart } from "#app/components/trends-and-peers.tsx";
import { rankedMinReviews } from "#app/domain/percentiles.server.ts";
import { loadingOr } from "#app/http/load-failure.server.ts";
import { voteStateOf } from "#app/http/vote-key.server.ts";

export function loader(args: Route.LoaderArgs) {
  return loadingOr("companies", () => companyPage(args));
}

async function companyPage({ context, params, request, url: address }: Route.LoaderArgs) {
  const id = parseId(params.companyId);
  const db = readerFor(request, context);
  const company = id === undefined ? undefined : await findCompany(db, id);
  if (!company)
    return data(
      { company: null, reviews: null, list: newestFirst, listError: undefined, narrowed: false, votes: null },
      { status: 404 },
    );
  const url = new URL(request.url);
  const parsed = companyReviewListSchema.safeParse(Object.fromEntries(url.searchParams));
  const list = parsed.success ? parsed.data : newestFirst;
  const listError = parsed.success ? undefined : parsed.error.issues[0]?.message;
  const reviews = await companyReviews(db, company.id, url.searchParams.get("before"), list);
  const votes = await voteStateOf({ context, request, url: address, db }, reviews.items);
  return data(
    {
      company,
      reviews,
      list,
      listError,
      narrowed: isNarrowed(list),
      votes,
      rankedMinimum: rankedMinReviews("company"),
    },
    { status: listError ? 400 : 200 },
  );
}

export default function CompanyPage({ loaderData }: Route.ComponentProps) {
  const { company, reviews, list, listError, narrowed, votes } = loaderData;
  const rankedMinimum = "rankedMinimum" in loaderData ? loaderData.rankedMinimum : 0;
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
      </header>
      <UnusualActivityNotice show={company.unusualActivity} />

      <SummaryPanel
        summary={company}
        shares={companyCountedYesNo.map((key) => ({
          label: companyShareLabels[key],
          percent: company.yesPercent[key],
        }))}
      />

      <PeerHeadline peers={company.peers} kind="company" compareHref={paths.compare("company", [company.id])} />

      <div className="profile-columns">
        <SubjectReviews
          reviews={reviews}
          votes={votes}
          card={CompanyReview}
          writeHref={paths.reviewCompany(company.id)}
          addLabel={messages.addReview}
          signedIn={signedIn}
          emptySignedOut={messages.noCompanyReviews}
          olderHref={(before) => paths.company(company.id, before, list)}
          filters={
            company.reviewCount > 0
              ? {
                  form: (
                    <ReviewFilters
                      action={paths.company(company.id)}
                      tags={companyTags}
                      list={list}
                      error={listError}
                    />
                  ),
                  narrowed,
                }
              : undefined
          }
        />

        <RatingsInDetail summary={company} groups={companyCriteriaGroups}>
          <TrendChart trend={company.trend} criteria={companyCriteria} />
          <PeerComparisons
            peers={company.peers}
            kind="company"
            criteria={companyCriteria}
            averages={company.averages}
            rankedMinimum={rankedMinimum}
          />
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
              <dt>Follow</dt>
              <dd>
                <FeedLinks kind="company" subjectKey={company.id} title={feedMessages.title(company.name)} />
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
        </RatingsInDetail>
      </div>
    </article>
  );
}
