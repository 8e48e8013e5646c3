import { ManagerNotFound } from "#app/components/not-found-states.tsx";
import { data, Link } from "react-router";
import type { Route } from "./+types/manager-profile.ts";
import { DemoBadge } from "#app/components/demo-badge.tsx";
import { UnusualActivityNotice } from "#app/components/unusual-activity.tsx";
import { RatingsInDetail, ReviewFilters, SubjectReviews, SummaryPanel } from "#app/components/subject-summary.tsx";
import { isNarrowed, newestFirst } from "#app/domain/reviews.server.ts";
import { managerTags } from "#app/lib/tags.ts";
import { ManagerReview } from "#app/components/review-card.tsx";
import { findManager, managerReviewListSchema, managerReviews } from "#app/domain/managers.server.ts";
import { feedMessages, messages } from "#app/lib/messages.ts";
import { parseId } from "#app/lib/params.ts";
import { paths } from "#app/lib/paths.ts";
import { FeedLinks } from "#app/components/feed-links.tsx";
import { useSignedIn } from "#app/components/use-signed-in.ts";
import {
  managerCriteria,
  managerCriteriaGroups,
  managerShareLabels,
  managerYesNo,
  yesNoFlags,
} from "#app/lib/ratings.ts";
import { readerFor } from "#app/http/read-database.server.ts";
import { PeerComparisons, PeerHeadline, TrendChart } from "#app/components/trends-and-peers.tsx";
import { rankedMinReviews } from "#app/domain/percentiles.server.ts";
import { voteStateOf } from "#app/http/vote-key.server.ts";
import { loadingOr } from "#app/http/load-failure.server.ts";

export function loader(args: Route.LoaderArgs) {
  return loadingOr("managers", () => managerPage(args));
}

async function managerPage({ context, params, request, url: address }: Route.LoaderArgs) {
  const id = parseId(params.managerId);
  const db = readerFor(request, context);
  const manager = id === undefined ? undefined : await findManager(db, id);
  if (!manager)
    return data(
      { manager: null, reviews: null, list: newestFirst, listError: undefined, narrowed: false, votes: null },
      { status: 404 },
    );
  const url = new URL(request.url);
  const parsed = managerReviewListSchema.safeParse(Object.fromEntries(url.searchParams));
  const list = parsed.success ? parsed.data : newestFirst;
  const listError = parsed.success ? undefined : parsed.error.issues[0]?.message;
  const reviews = await managerReviews(db, manager.id, url.searchParams.get("before"), list);
  const votes = await voteStateOf({ context, request, url: address, db }, reviews.items);
  return data(
    {
      manager,
      reviews,
      list,
      listError,
      narrowed: isNarrowed(list),
      votes,
      rankedMinimum: rankedMinReviews("manager"),
    },
    { status: listError ? 400 : 200 },
  );
}

export default function ManagerProfilePage({ loaderData }: Route.ComponentProps) {
  const { manager, reviews, list, listError, narrowed, votes } = loaderData;
  const rankedMinimum = "rankedMinimum" in loaderData ? loaderData.rankedMinimum : 0;
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
        <h1>
          {name} <DemoBadge show={manager.isDemo} />
        </h1>
        <p className="muted">
          {manager.title}
          {manager.department ? ` · ${manager.department}` : ""} · {place}
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
      </header>
      <UnusualActivityNotice show={manager.unusualActivity} />

      <SummaryPanel
        summary={manager}
        shares={managerYesNo.map((key) => ({
          label: managerShareLabels[key],
          short: yesNoFlags[key],
          percent: manager.yesPercent[key],
        }))}
      />

      <PeerHeadline peers={manager.peers} kind="manager" compareHref={paths.compare("manager", [manager.id])} />

      <div className="profile-columns">
        <SubjectReviews
          reviews={reviews}
          votes={votes}
          card={ManagerReview}
          writeHref={paths.reviewManager(manager.id)}
          addLabel={messages.addManagerReview}
          signedIn={signedIn}
          emptySignedOut={messages.noManagerReviews}
          olderHref={(before) => paths.manager(manager.id, before, list)}
          filters={
            manager.reviewCount > 0
              ? {
                  form: (
                    <ReviewFilters
                      action={paths.manager(manager.id)}
                      tags={managerTags}
                      list={list}
                      error={listError}
                    />
                  ),
                  narrowed,
                }
              : undefined
          }
          writeBelow
        />

        <RatingsInDetail summary={manager} groups={managerCriteriaGroups}>
          <TrendChart trend={manager.trend} criteria={managerCriteria} />
          <PeerComparisons
            peers={manager.peers}
            kind="manager"
            criteria={managerCriteria}
            averages={manager.averages}
            rankedMinimum={rankedMinimum}
          />
          <p>
            <a href={manager.linkedinUrl} rel="noopener noreferrer nofollow" target="_blank">
              LinkedIn profile<span className="visually-hidden"> of {name} (opens in a new tab)</span>
            </a>
          </p>
        </RatingsInDetail>
      </div>
      {/* Below the reviews: on a phone the score and the first review come first. */}
      <p className="muted">
        <FeedLinks kind="manager" subjectKey={manager.id} title={feedMessages.title(name)} />
      </p>
    </article>
  );
}
