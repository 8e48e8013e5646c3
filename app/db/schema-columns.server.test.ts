import { expect, it } from "vitest";
import { migrateToLatest } from "./migrate.server.ts";
import { columnNames, describeEachEngine, tableNames } from "#tests/support/test-database.ts";

/**
 * The tables and columns a fresh database has after every migration, committed here. Migrations are frozen: when
 * this list has to change, the change belongs in a new migration (and then here), never in an old one. The name
 * search's index tables differ by engine (an FTS5 table on SQLite, trigram indexes on PostgreSQL) and are left out.
 * PostgreSQL alone keeps the rate-limit counters in a table (SQLite, one process, keeps them in memory).
 */
const committedColumns: Record<string, string[]> = {
  accounts: [
    "id",
    "accountId",
    "providerId",
    "userId",
    "accessToken",
    "refreshToken",
    "idToken",
    "accessTokenExpiresAt",
    "refreshTokenExpiresAt",
    "scope",
    "password",
    "createdAt",
    "updatedAt",
  ],
  api_tokens: ["token_hash", "session_id", "kind", "expires_at", "used"],
  companies: [
    "id",
    "name",
    "folded_name",
    "country",
    "state",
    "city",
    "website",
    "glassdoor_url",
    "website_key",
    "industry",
    "recent_layoffs",
    "is_demo",
    "created_on",
    "review_count",
    "sum_reputation",
    "sum_opportunities",
    "sum_facilities",
    "sum_engagement",
    "sum_social",
    "sum_location",
    "sum_culture",
    "sum_leadership",
    "sum_balance",
    "sum_growth",
    "sum_stability",
    "sum_innovation",
    "sum_transparency",
    "again_yes",
    "recommend_yes",
    "latest_has_oncall",
    "name_skeleton",
  ],
  company_reviews: [
    "id",
    "company_id",
    "reputation",
    "opportunities",
    "facilities",
    "engagement",
    "social",
    "location",
    "culture",
    "leadership",
    "balance",
    "growth",
    "stability",
    "innovation",
    "transparency",
    "again",
    "recommend",
    "has_oncall",
    "review_text",
    "tags",
    "created_on",
  ],
  manager_companies: ["manager_id", "company_id"],
  manager_reviews: [
    "id",
    "manager_id",
    "empathy",
    "reputation",
    "coaching",
    "decision_making",
    "trust",
    "conflict_resolution",
    "adaptability",
    "advocacy",
    "knowledge",
    "transparency",
    "time_management",
    "vision",
    "recommended",
    "invested",
    "communication",
    "gives_credit",
    "again",
    "review_text",
    "tags",
    "created_on",
  ],
  managers: [
    "id",
    "first_name",
    "last_name",
    "folded_name",
    "country",
    "state",
    "city",
    "title",
    "department",
    "linkedin_url",
    "is_demo",
    "created_on",
    "review_count",
    "sum_empathy",
    "sum_reputation",
    "sum_coaching",
    "sum_decision_making",
    "sum_trust",
    "sum_conflict_resolution",
    "sum_adaptability",
    "sum_advocacy",
    "sum_knowledge",
    "sum_transparency",
    "sum_time_management",
    "sum_vision",
    "recommended_yes",
    "invested_yes",
    "communication_yes",
    "gives_credit_yes",
    "again_yes",
    "name_skeleton",
  ],
  pending_receipts: ["key"],
  pending_reviews: ["id", "key_id", "sealed"],
  queue_state: ["id", "queue_id", "key_id"],
  review_receipts: ["receipt"],
  scheduled_jobs: ["name", "next_run_ms"],
  sessions: ["id", "expiresAt", "token", "createdAt", "updatedAt", "ipAddress", "userAgent", "userId"],
  two_factors: ["id", "secret", "backupCodes", "userId", "verified", "failedVerificationCount", "lockedUntil"],
  users: ["id", "name", "email", "emailVerified", "image", "createdAt", "updatedAt", "twoFactorEnabled"],
  verifications: ["id", "identifier", "value", "expiresAt", "createdAt", "updatedAt"],
};

const isBookkeeping = (table: string) => table.startsWith("kysely_migration") || /_search($|_)/.test(table);

describeEachEngine(
  "a freshly migrated database",
  (database, engine) => {
    it("has exactly the committed tables, each with the committed columns in order", async () => {
      const { db } = database();
      await migrateToLatest(db);

      const tables = (await tableNames(db, engine)).filter((table) => !isBookkeeping(table));
      const columns = Object.fromEntries(
        await Promise.all(tables.map(async (table) => [table, await columnNames(db, engine, table)] as const)),
      );

      expect(columns).toEqual(
        engine === "postgres" ? { ...committedColumns, rate_limits: ["key", "points", "expire"] } : committedColumns,
      );
    });
  },
  { migrate: false },
);
