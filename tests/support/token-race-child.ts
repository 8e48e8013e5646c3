// One of the processes of app/domain/publication-race.server.test.ts: sends the same one-review token ATTEMPTS times,
// four at a time, while publishing the queue over and over, and prints what it saw as one line of JSON. Honours
// DATABASE_URL, QUEUE_KEY_DIR, AUTH_SECRET, TOKEN, MANAGER_ID and ATTEMPTS.
import { openDatabase } from "#app/db/connection.server.ts";
import { contributionPublisher } from "#app/domain/contributions.server.ts";
import { type PublicationSettings, publishQueued } from "#app/domain/publication.server.ts";
import { recordTokenReview } from "#app/domain/review-tokens.server.ts";
import { VerificationError } from "#app/domain/verification.server.ts";
import { managerReview } from "./test-contributions.ts";

const { DATABASE_URL, QUEUE_KEY_DIR, AUTH_SECRET, TOKEN, MANAGER_ID, ATTEMPTS } = process.env;
const settings: PublicationSettings = {
  intervalSeconds: 1800,
  managerMinReviews: 1,
  minAuthors: 1,
  keyDir: QUEUE_KEY_DIR!,
};
const handle = openDatabase(DATABASE_URL!, { poolSize: 6 });
const secret = AUTH_SECRET!;
const managerId = Number(MANAGER_ID);
const seen = {
  accepted: 0,
  refused: 0,
  otherErrors: [] as string[],
  publications: 0,
  publicationFailures: [] as string[],
};
let attemptsLeft = Number(ATTEMPTS);

async function submitter() {
  while (attemptsLeft > 0) {
    attemptsLeft -= 1;
    try {
      await recordTokenReview(handle.db, secret, managerId, managerReview(), TOKEN!, settings);
      seen.accepted += 1;
    } catch (error) {
      if (error instanceof VerificationError && error.kind === "review-token-spent") seen.refused += 1;
      else seen.otherErrors.push(String(error));
    }
  }
}

async function publisher() {
  while (attemptsLeft > 0) {
    try {
      await publishQueued(handle.db, contributionPublisher(secret), { settings, wait: true });
      seen.publications += 1;
    } catch (error) {
      seen.publicationFailures.push(String(error));
    }
  }
}

try {
  await Promise.all([submitter(), submitter(), submitter(), submitter(), publisher(), publisher()]);
} finally {
  await handle.close();
}
console.log(JSON.stringify(seen));
