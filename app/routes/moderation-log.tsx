import { Link } from "react-router";
import type { Route } from "./+types/moderation-log.ts";
import { database } from "#app/db/database.server.ts";
import { moderationLog } from "#app/domain/moderation.server.ts";
import { formatMonth } from "#app/lib/format.ts";
import { messages } from "#app/lib/messages.ts";
import { reportReasons } from "#app/lib/moderation.ts";
import { parseId } from "#app/lib/params.ts";
import { paths } from "#app/lib/paths.ts";

export async function loader({ request }: Route.LoaderArgs) {
  const before = parseId(new URL(request.url).searchParams.get("before") ?? undefined);
  return moderationLog(database().db, before);
}

const actionWords = { keep: "Kept", remove: "Removed", restore: "Restored" } as const;

export default function ModerationLogPage({ loaderData }: Route.ComponentProps) {
  const { items, next } = loaderData;
  return (
    <section className="page">
      <title>{`Moderation log · ${messages.siteName}`}</title>
      <h1>Moderation log</h1>
      <p>
        Every decision moderators take on a reported review: when, on which page, why, and the statement of reasons. The
        text of a removed review is never shown here. Decisions apply the{" "}
        <Link to={paths.guidelines()}>posting guidelines</Link>. The author of a removed review can appeal with the key
        they were given, on the <Link to={paths.reviewKey()}>review key page</Link>. Monthly figures are on the{" "}
        <Link to={paths.transparency()}>transparency page</Link>.
      </p>
      {items.length === 0 ? (
        <p>No decisions yet.</p>
      ) : (
        <ol className="moderation-log">
          {items.map((entry) => (
            <li key={entry.decision} id={`decision-${entry.decision}`} className="card">
              <h2>
                Decision {entry.decision}: {actionWords[entry.action]}
                {entry.reason ? ` — ${reportReasons[entry.reason].label}` : ""}
              </h2>
              <p className="muted">
                {formatMonth(entry.month)} · <Link to={entry.subjectPath}>{entry.subjectName}</Link> · by{" "}
                {entry.moderator}
              </p>
              <p>{entry.statement}</p>
            </li>
          ))}
        </ol>
      )}
      {next ? (
        <Link className="more-link" to={paths.moderationLog(next)}>
          Older decisions
        </Link>
      ) : null}
    </section>
  );
}
