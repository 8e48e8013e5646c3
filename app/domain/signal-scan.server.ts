import type { Kysely } from "kysely";
import type { Database } from "#app/db/schema.ts";
import { publicDataChanged } from "#app/lib/data-version.server.ts";
import { type PublicationSettings, withPublicationLock } from "./publication.server.ts";
import { checkSubject, claimScanDay, recentlyReviewedSubjects, todayUtc } from "./signals.server.ts";

/**
 * The daily scan of the manipulation signals (docs/moderation.md): every company and manager with reviews published
 * in the window is tested against its history, and an alert opens for each signal that fires. It runs inside the
 * publication lock and claims its day first, so however many processes run it, each day's scan runs once. Answers
 * undefined when it did not run (another process holds the lock, or the day's scan is done).
 */
export async function scanForManipulation(
  db: Kysely<Database>,
  settings: PublicationSettings,
  today = todayUtc(),
): Promise<{ scanned: number; raised: number } | undefined> {
  const outcome = await withPublicationLock(db, settings, async (trx) => {
    if (!(await claimScanDay(trx, today))) return undefined;
    const subjects = await recentlyReviewedSubjects(trx, today);
    let raised = 0;
    for (const subject of subjects) raised += (await checkSubject(trx, subject.kind, subject.id, [], today)).raised;
    return { scanned: subjects.length, raised };
  });
  if (outcome && outcome.raised > 0) publicDataChanged();
  return outcome;
}
