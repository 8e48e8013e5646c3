// `npm run queue:identity -- --new` or `-- --claim`: settles which database owns the publication queue's keys in
// QUEUE_KEY_DIR, when a server refused to start because another database has the same queue (a copy of it).
// --new gives this database a queue of its own (what `npm run db:restore` does): the copy's queued reviews are sealed
// again under its own key when the original's keys are in QUEUE_KEY_DIR (only read), or dropped when they are not.
// --claim makes this database the owner of the queue it has: only when the database it was copied from will never run
// again (it was moved here, or lost), since the owner destroys the queue's old keys.
import { parseArgs } from "node:util";
import { openDatabase } from "#app/db/connection.server.ts";
import { migrateToLatest } from "#app/db/migrate.server.ts";
import { claimQueueForThisDatabase, newQueueIdentity, publicationSettings } from "#app/domain/publication.server.ts";
import { env } from "#app/lib/env.server.ts";

const usage = `Usage: npm run queue:identity -- --new     gives the database of DATABASE_URL a publication queue of its own
       npm run queue:identity -- --claim   makes it the owner of its queue's keys in QUEUE_KEY_DIR (the database
                                            it was copied from must never run again)`;

const { values } = parseArgs({
  options: { help: { type: "boolean", short: "h" }, new: { type: "boolean" }, claim: { type: "boolean" } },
});
if (values.help || values.new === values.claim) {
  console.log(usage);
  process.exit(values.help ? 0 : 2);
}

const handle = openDatabase(env().DATABASE_URL);
try {
  await migrateToLatest(handle.db);
  if (values.new) {
    const { kept, dropped } = await newQueueIdentity(handle.db, publicationSettings());
    console.log(
      `The database has a publication queue of its own: ${kept} queued reviews sealed again under its key, ` +
        `${dropped} dropped (their key is not in QUEUE_KEY_DIR).`,
    );
  } else {
    const queueId = await claimQueueForThisDatabase(handle.db, publicationSettings());
    console.log(`This database now owns the keys of the publication queue ${queueId} in QUEUE_KEY_DIR.`);
  }
} finally {
  await handle.close();
}
