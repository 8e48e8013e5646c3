import { Link, useRouteLoaderData } from "react-router";
import { paths } from "#app/lib/paths.ts";
import type { loader } from "#app/root.tsx";

/** After a submission that waits for the next batch: when it will appear, and why (stays until the next page). */
export function PublicationNote() {
  const note = useRouteLoaderData<typeof loader>("root")?.publicationNote ?? null;
  if (!note) return null;
  return (
    <p className="publication-note" role="status">
      {note} <Link to={paths.privacy()}>What we store</Link>
    </p>
  );
}
