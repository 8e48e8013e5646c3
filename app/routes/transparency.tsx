import { Link } from "react-router";
import type { Route } from "./+types/transparency.ts";
import { database } from "#app/db/database.server.ts";
import { transparencyReport } from "#app/domain/moderation.server.ts";
import { formatMonth } from "#app/lib/format.ts";
import { messages } from "#app/lib/messages.ts";
import { reportReasonCodes, reportReasons } from "#app/lib/moderation.ts";
import { paths } from "#app/lib/paths.ts";

export async function loader() {
  return transparencyReport(database().db);
}

export default function TransparencyPage({ loaderData }: Route.ComponentProps) {
  const { months } = loaderData;
  return (
    <section className="page">
      <title>{`Transparency · ${messages.siteName}`}</title>
      <h1>Transparency</h1>
      <p>
        What readers reported, what moderators decided and how often the automatic checks flagged unusual activity,
        month by month, counted from the reports, the alerts and the{" "}
        <Link to={paths.moderationLog()}>moderation log</Link> as they are stored.
      </p>
      {months.length === 0 ? (
        <p>No reports yet.</p>
      ) : (
        <table className="schema-table">
          <caption className="visually-hidden">Moderation by month</caption>
          <thead>
            <tr>
              <th scope="col">Month</th>
              <th scope="col">Reports received</th>
              <th scope="col">Kept</th>
              <th scope="col">Removed</th>
              <th scope="col">Restored</th>
              <th scope="col">Removals by reason</th>
              <th scope="col">Median days to a decision</th>
              <th scope="col">Unusual-activity alerts</th>
            </tr>
          </thead>
          <tbody>
            {months.map((month) => (
              <tr key={month.month}>
                <th scope="row">{formatMonth(month.month)}</th>
                <td>{month.reportsReceived}</td>
                <td>{month.decisions.keep}</td>
                <td>{month.decisions.remove}</td>
                <td>{month.decisions.restore}</td>
                <td>
                  {reportReasonCodes
                    .filter((code) => month.removalsByReason[code])
                    .map((code) => `${reportReasons[code].label}: ${month.removalsByReason[code]}`)
                    .join(", ") || "—"}
                </td>
                <td>{month.medianDaysToDecision ?? "—"}</td>
                <td>{month.alertsRaised}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
