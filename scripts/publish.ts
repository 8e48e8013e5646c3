// `npm run reviews:publish`: publishes the queued reviews that are publishable now (the server does this on its own
// schedule, PUBLISH_INTERVAL). Honours DATABASE_URL, QUEUE_KEY_DIR, MANAGER_MIN_REVIEWS and PUBLISH_MIN_AUTHORS.
// `--forget-unreadable` instead empties a queue whose key is lost from QUEUE_KEY_DIR (nobody can ever open it).
import { parseArgs } from "node:util";
import { openDatabase } from "#app/db/connection.server.ts";
import { migrateToLatest } from "#app/db/migrate.server.ts";
import { contributionPublisher } from "#app/domain/contributions.server.ts";
import { forgetUnreadableQueue, publicationSettings, publishQueued } from "#app/domain/publication.server.ts";
import { env } from "#app/lib/env.server.ts";
import { serverSecret } from "#app/db/secret.server.ts";
import { announceChange } from "#server/shared-state.ts";

const { values } = parseArgs({
  options: { help: { type: "boolean", short: "h" }, "forget-unreadable": { type: "boolean" } },
});
if (values.help) {
  console.log(
    "Usage: npm run reviews:publish\n\nPublishes the queued reviews of DATABASE_URL that the minimum rules allow now, as one batch,\nand prints how many were published and how many are held.\n\n--forget-unreadable  empties the queue instead when its key is not in QUEUE_KEY_DIR (lost keys:\n                     those reviews can never be opened), and prints how many were dropped.",
  );
  process.exit(0);
}

const handle = openDatabase(env().DATABASE_URL);
try {
  await migrateToLatest(handle.db);
  if (values["forget-unreadable"]) {
    const dropped = await forgetUnreadableQueue(handle.db, publicationSettings());
    console.log(
      dropped > 0
        ? `Dropped ${dropped} queued reviews: their key is not in QUEUE_KEY_DIR.`
        : "No queued review was dropped: none waits under a key missing from QUEUE_KEY_DIR.",
    );
    process.exit(0);
  }
  const result = await publishQueued(handle.db, contributionPublisher(serverSecret()), {
    settings: publicationSettings(),
    wait: true,
  });
  console.log(`Published ${result?.published ?? 0} reviews; ${result?.held ?? 0} held.`);
  if (result && result.setAsideTotal > 0) {
    console.error(
      `${result.setAsideTotal} queued reviews are set aside (${result.setAside} by this run): npm run admin -- set-aside`,
    );
  }
  // The running servers' page caches let go of the pages this batch changed.
  if (result && result.published > 0) await announceChange(handle, env().REDIS_URL, result.scope);
} finally {
  await handle.close();
}
