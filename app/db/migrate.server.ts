import { type Kysely, sql } from "kysely";
import { type Migration, type MigrationResultSet, Migrator } from "kysely/migration";
import { isPostgres } from "./dialect.ts";
import * as initial from "./migrations/0001-initial.ts";
import * as accounts from "./migrations/0002-accounts.ts";
import * as apiTokens from "./migrations/0003-api-tokens.ts";
import * as nameSearch from "./migrations/0004-name-search.ts";
import * as nameSkeletons from "./migrations/0005-name-skeletons.ts";
import * as publicationQueue from "./migrations/0006-publication-queue.ts";
import * as moderation from "./migrations/0007-moderation.ts";
import * as reviewKeys from "./migrations/0008-review-keys.ts";
import * as manipulationSignals from "./migrations/0009-manipulation-signals.ts";
import * as ratingDistributions from "./migrations/0010-rating-distributions.ts";
import * as industrySections from "./migrations/0012-industry-sections.ts";
import * as sharedState from "./migrations/0013-shared-state.ts";
import * as verificationTokens from "./migrations/0014-verification-tokens.ts";
import * as helpfulVotes from "./migrations/0015-helpful-votes.ts";
import * as trendsAndPercentiles from "./migrations/0016-trends-and-percentiles.ts";
import * as managerReviewTokens from "./migrations/0018-manager-review-tokens.ts";
import * as searchLists from "./migrations/0019-search-lists.ts";
import * as compactNameSearch from "./migrations/0021-compact-name-search.ts";
import * as peerRankingInSlices from "./migrations/0023-peer-ranking-in-slices.ts";
import * as queueRowsInRandomSlots from "./migrations/0024-queue-rows-in-random-slots.ts";
import * as nameSearchByCountry from "./migrations/0025-name-search-by-country.ts";
import * as oneOpenAppeal from "./migrations/0034-one-open-appeal.ts";
import * as lookalikeCompanyIdentity from "./migrations/0035-lookalike-company-identity.ts";
import * as setAsideReviews from "./migrations/0036-set-aside-reviews.ts";
import * as changeGeneration from "./migrations/0037-change-generation.ts";
import * as accountKeyChecks from "./migrations/0038-account-key-checks.ts";
import * as accountStampsToTheDay from "./migrations/0041-account-stamps-to-the-day.ts";
import * as opaqueVerificationChallenges from "./migrations/0044-opaque-verification-challenges.ts";

/** Listed in code, not read from a folder, so the bundled server carries them. Names sort in order. */
export const migrations: Record<string, Migration> = {
  "0001-initial": initial,
  "0002-accounts": accounts,
  "0003-api-tokens": apiTokens,
  "0004-name-search": nameSearch,
  "0005-name-skeletons": nameSkeletons,
  "0006-publication-queue": publicationQueue,
  "0007-moderation": moderation,
  "0008-review-keys": reviewKeys,
  "0009-manipulation-signals": manipulationSignals,
  "0010-rating-distributions": ratingDistributions,
  "0012-industry-sections": industrySections,
  "0013-shared-state": sharedState,
  "0014-verification-tokens": verificationTokens,
  "0015-helpful-votes": helpfulVotes,
  "0016-trends-and-percentiles": trendsAndPercentiles,
  "0018-manager-review-tokens": managerReviewTokens,
  "0019-search-lists": searchLists,
  "0021-compact-name-search": compactNameSearch,
  "0023-peer-ranking-in-slices": peerRankingInSlices,
  "0024-queue-rows-in-random-slots": queueRowsInRandomSlots,
  "0025-name-search-by-country": nameSearchByCountry,
  "0034-one-open-appeal": oneOpenAppeal,
  "0035-lookalike-company-identity": lookalikeCompanyIdentity,
  "0036-set-aside-reviews": setAsideReviews,
  "0037-change-generation": changeGeneration,
  "0038-account-key-checks": accountKeyChecks,
  "0041-account-stamps-to-the-day": accountStampsToTheDay,
  "0044-opaque-verification-challenges": opaqueVerificationChallenges,
};

/**
 * Applies every pending migration. Kysely's migrator takes a lock (an advisory lock on PostgreSQL), so several
 * processes starting together apply each migration exactly once.
 */
export async function migrateToLatest(db: Kysely<any>): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableSchema: await currentSchema(db),
    // Branches take their numbers in parallel, so a database may already hold a later one (0013) when an earlier
    // one (0012) lands: it is applied then rather than refused. Each migration touches only its own tables.
    allowUnorderedMigrations: true,
  });
  for (let attempt = 1; ; attempt++) {
    const result = await migrator.migrateToLatest();
    if (!result.error) return result;
    if (attempt < 5 && result.results === undefined && isSchemaDroppedMeanwhile(result.error)) continue;
    throw result.error;
  }
}

/**
 * Before migrating, Kysely lists the tables of every schema (has_schema_privilege by name); when another schema
 * is dropped during that query, PostgreSQL fails it with 3F000 "schema does not exist". Nothing has run then, so
 * the migration is simply tried again.
 */
function isSchemaDroppedMeanwhile(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "3F000";
}

/**
 * Kysely, given no schema, takes a kysely_migration table in any schema as its own; pinned to the schema that
 * search_path selects, one PostgreSQL database can hold several Candor schemas (tests, staging).
 */
export async function currentSchema(db: Kysely<any>): Promise<string | undefined> {
  if (!isPostgres(db)) return undefined;
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema ?? undefined;
}
