import { useEffect } from "react";
import { Link, useRouteLoaderData } from "react-router";
import { reviewKeyTexts } from "#app/lib/messages.ts";
import { paths } from "#app/lib/paths.ts";
import { settleInFlight } from "#app/lib/verification-storage.ts";
import type { loader } from "#app/root.tsx";

/** After a submission that waits for the next batch: when it will appear, and why (stays until the next page). */
export function PublicationNote() {
  const root = useRouteLoaderData<typeof loader>("root");
  const note = root?.publicationNote ?? null;
  const badge = root?.badgeNote ?? null;
  const shown = root?.badgeShown ?? null;
  useEffect(() => {
    // The token sent with the review: spent with the badge, or given back to this browser when it was withheld.
    if (shown !== null) settleInFlight(!shown);
  }, [shown]);
  if (!note && !badge) return null;
  return (
    <p className="publication-note" role="status">
      {[note, badge].filter(Boolean).join(" ")} <Link to={paths.privacy()}>What we store</Link>
    </p>
  );
}

/** After a submission: the review's one-time key, shown this once (it is stored only as a hash). */
export function ReviewKeyNote() {
  const key = useRouteLoaderData<typeof loader>("root")?.reviewKey ?? null;
  if (!key) return null;
  return (
    <section className="review-key-note" aria-labelledby="review-key-title">
      <h2 id="review-key-title">{reviewKeyTexts.title}</h2>
      <p>
        <code className="review-key">{key}</code>
      </p>
      <p>
        {reviewKeyTexts.keep} <Link to={paths.reviewKey()}>{reviewKeyTexts.page}</Link>
        {reviewKeyTexts.after}
      </p>
    </section>
  );
}
