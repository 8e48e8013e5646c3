import { Link } from "react-router";
import type { Route } from "./+types/transparency.ts";
import { database } from "#app/db/database.server.ts";
import { transparencyReport } from "#app/domain/moderation.server.ts";
import { MonthlyTable } from "#app/components/monthly-table.tsx";
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
        <MonthlyTable
          className="schema-table"
          caption="Moderation by month"
          captionHidden
          months={months}
          columns={[
            { key: "reports", label: "Reports received", cell: (month) => month.reportsReceived },
            { key: "kept", label: "Kept", cell: (month) => month.decisions.keep },
            { key: "removed", label: "Removed", cell: (month) => month.decisions.remove },
            { key: "restored", label: "Restored", cell: (month) => month.decisions.restore },
            {
              key: "reasons",
              label: "Removals by reason",
              cell: (month) =>
                reportReasonCodes
                  .filter((code) => month.removalsByReason[code])
                  .map((code) => `${reportReasons[code].label}: ${month.removalsByReason[code]}`)
                  .join(", ") || "—",
            },
            { key: "median", label: "Median days to a decision", cell: (month) => month.medianDaysToDecision ?? "—" },
            { key: "alerts", label: "Unusual-activity alerts", cell: (month) => month.alertsRaised },
          ]}
        />
      )}
    </section>
  );
}
