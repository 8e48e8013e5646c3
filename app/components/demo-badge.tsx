import { messages } from "#app/lib/messages.ts";

/** Demo rows are labelled wherever they appear, so nobody mistakes them for real reviews. */
export function DemoBadge({ show }: { show: boolean }) {
  if (!show) return null;
  return (
    <span className="demo-badge" title="Generated example data, not a real company, person or review">
      {messages.demoData}
    </span>
  );
}
