import { Link, useRouteLoaderData } from "react-router";
import { paths } from "#app/lib/paths.ts";
import type { loader } from "#app/root.tsx";

/** After a submission that waits for the next batch: when it will appear, and why (stays until the next page). */
export function PublicationNote() {
  const root = useRouteLoaderData<typeof loader>("root");
  const note = root?.publicationNote ?? null;
  const badge = root?.badgeNote ?? null;
  if (!note && !badge) return null;
  return (
    <p className="publication-note" role="status">
      {[note, badge].filter(Boolean).join(" ")} <Link to={paths.privacy()}>What we store</Link>
    </p>
  );
}
