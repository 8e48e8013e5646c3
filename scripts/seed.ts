// `npm run db:seed -- --companies N`: fills DATABASE_URL with demo companies, managers and reviews.
import { parseArgs } from "node:util";
import cliProgress from "cli-progress";
import { openDatabase } from "#app/db/connection.server.ts";
import { generateDemoData } from "#app/db/demo-data.server.ts";
import { migrateToLatest } from "#app/db/migrate.server.ts";
import { env } from "#app/lib/env.server.ts";

const usage = `Usage: npm run db:seed -- [--companies N] [--seed S]

Adds N demo companies (default 50, from 10 to 1,000,000) with their managers and reviews to the database named by
DATABASE_URL, after applying pending migrations. Demo rows are labelled as such on every page. --seed makes the
data reproducible (default 20261121); run twice with different seeds to add more.`;

const { values } = parseArgs({
  options: {
    companies: { type: "string", default: "50" },
    seed: { type: "string", default: "20261121" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const companies = Number(values.companies);
const seed = Number(values.seed);
if (!Number.isInteger(companies) || companies < 10 || companies > 1_000_000) {
  console.error(`--companies must be a whole number from 10 to 1,000,000, not "${values.companies}".\n\n${usage}`);
  process.exit(2);
}
if (!Number.isInteger(seed)) {
  console.error(`--seed must be a whole number, not "${values.seed}".`);
  process.exit(2);
}

const handle = openDatabase(env().DATABASE_URL);
const bar = new cliProgress.SingleBar(
  { format: "Seeding |{bar}| {percentage}% · {value}/{total} companies · {eta_formatted} left", etaBuffer: 20 },
  cliProgress.Presets.shades_classic,
);
try {
  await migrateToLatest(handle.db);
  bar.start(companies, 0);
  const started = performance.now();
  const summary = await generateDemoData(handle.db, { companies, seed, onProgress: (done) => bar.update(done) });
  bar.stop();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `Added ${summary.companies} companies, ${summary.managers} managers, ${summary.companyReviews} company reviews ` +
      `and ${summary.managerReviews} manager reviews to the ${handle.engine} database in ${seconds} s.`,
  );
} catch (error) {
  bar.stop();
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await handle.close();
}
