import { signalMessages } from "#app/lib/moderation.ts";

/**
 * The notice on a company's or manager's page while a manipulation alert on it waits for a moderator. It flags the
 * subject, never a review.
 */
export function UnusualActivityNotice({ show }: { show: boolean }) {
  if (!show) return null;
  return (
    <section className="unusual-activity" aria-labelledby="unusual-activity-title">
      <h2 id="unusual-activity-title">{signalMessages.unusualActivityTitle}</h2>
      <p>{signalMessages.unusualActivity}</p>
    </section>
  );
}
