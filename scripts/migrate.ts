// `npm run db:migrate`: applies pending migrations to DATABASE_URL (the app also does this at start).
import { parseArgs } from "node:util";
import { openDatabase } from "#app/db/connection.server.ts";
import { migrateToLatest } from "#app/db/migrate.server.ts";
import { env } from "#app/lib/env.server.ts";

const { values } = parseArgs({ options: { help: { type: "boolean", short: "h" } } });
if (values.help) {
  console.log("Usage: npm run db:migrate\n\nApplies every pending migration to the database named by DATABASE_URL.");
  process.exit(0);
}

const handle = openDatabase(env().DATABASE_URL);
try {
  const { results = [] } = await migrateToLatest(handle.db);
  if (results.length === 0) console.log(`The ${handle.engine} database is up to date.`);
  for (const result of results) console.log(`${result.status}: ${result.migrationName}`);
} finally {
  await handle.close();
}
