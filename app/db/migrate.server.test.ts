import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { type Kysely, sql } from "kysely";
import { Migrator } from "kysely/migration";
import { afterEach, describe, expect, it } from "vitest";
import { companyCriteria, managerCriteria } from "#app/lib/ratings.ts";
import { openDatabase } from "./connection.server.ts";
import { fold } from "#app/lib/fold.ts";
import { cleanName, nameSkeleton } from "#app/lib/names.server.ts";
import { currentSchema, migrateToLatest, migrations } from "./migrate.server.ts";
import * as initial from "./migrations/0001-initial.ts";
import * as accounts from "./migrations/0002-accounts.ts";
import * as apiTokens from "./migrations/0003-api-tokens.ts";
import * as nameSearch from "./migrations/0004-name-search.ts";
import * as nameSkeletons from "./migrations/0005-name-skeletons.ts";
import * as publicationQueue from "./migrations/0006-publication-queue.ts";
import * as industrySectionsMigration from "./migrations/0012-industry-sections.ts";
import * as queueSlots from "./migrations/0024-queue-rows-in-random-slots.ts";
import * as oneOpenAppeal from "./migrations/0034-one-open-appeal.ts";
import * as lookalikeIdentity from "./migrations/0035-lookalike-company-identity.ts";
import { websiteKey } from "#app/lib/urls.ts";
import { industrySections } from "#app/lib/industries.ts";
import type { Database } from "./schema.ts";
import {
  type TestDatabase,
  createTestDatabase,
  describeEachEngine,
  whileNoSchemaIsDropped,
} from "#tests/support/test-database.ts";
import {
  companyReviewRow,
  countRows,
  insertCompany,
  insertManager,
  managerReviewRow,
} from "#tests/support/test-fixtures.ts";

const tables = [
  "companies",
  "company_reviews",
  "managers",
  "manager_companies",
  "manager_reviews",
  "review_receipts",
] as const;

/** Migrates as the test databases do, so no other test file drops its schema meanwhile (test-database.ts). */
const migrate = (db: Kysely<any>) => whileNoSchemaIsDropped(() => migrateToLatest(db));

async function appliedMigrations(db: Kysely<any>): Promise<string[]> {
  const rows = await db.selectFrom("kysely_migration").select("name").orderBy("name").execute();
  return rows.map((row) => String(row.name));
}

describeEachEngine(
  "migrations",
  (database) => {
    it("creates every table on an empty database", async () => {
      const { db } = database();
      const { results = [] } = await migrate(db);

      expect(results.length).toBeGreaterThan(0);
      expect(results.every((result) => result.status === "Success")).toBe(true);
      expect(await appliedMigrations(db)).toEqual(results.map((result) => result.migrationName).sort());
      for (const table of tables) expect(await countRows(db, table), table).toBe(0);
    });

    it("does nothing when run a second time", async () => {
      const { db } = database();
      await migrate(db);
      const before = await appliedMigrations(db);

      const second = await migrate(db);

      expect(second.results).toEqual([]);
      expect(await appliedMigrations(db)).toEqual(before);
    });

    it("applies a migration numbered below one the database already holds", async () => {
      const { db } = database();
      // A database migrated before 0012 existed, up to 0014: as a server of that time left it (later migrations, such
      // as 0016 which indexes 0012's column, did not exist either).
      const { error } = await new Migrator({
        db,
        provider: {
          getMigrations: async () =>
            Object.fromEntries(
              Object.entries(migrations).filter(([name]) => name !== "0012-industry-sections" && name < "0015"),
            ),
        },
        migrationTableSchema: await currentSchema(db),
      }).migrateToLatest();
      expect(error).toBeUndefined();

      const { results = [] } = await migrateToLatest(db);

      expect(results.map((result) => [result.migrationName, result.status])).toEqual([
        ["0012-industry-sections", "Success"],
        ...Object.keys(migrations)
          .filter((name) => name >= "0015")
          .sort()
          .map((name) => [name, "Success"]),
      ]);
      const company = db.selectFrom("companies").select("industry_section");
      await expect(company.execute()).resolves.toEqual([]);
    });
  },
  { migrate: false },
);

describe("the latest name skeleton migration's frozen functions", () => {
  it("give what the live code gives today, for every character of the Basic Multilingual Plane in a name", () => {
    const differing: string[] = [];
    let compared = 0;
    for (let code = 0; code <= 0xffff; code += 1) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const character = String.fromCharCode(code);
      const name = `Ac${character}me \u200b GmbH  Straße ${character}`;
      const same =
        nameSkeletons.fold(name) === fold(name) &&
        nameSkeletons.cleanName(name) === cleanName(name) &&
        lookalikeIdentity.fold(name) === fold(name) &&
        lookalikeIdentity.nameSkeleton(name) === nameSkeleton(name);
      if (!same) differing.push(`U+${code.toString(16).padStart(4, "0")}`);
      compared += 1;
    }
    expect(compared).toBe(0x10000 - 0x800);
    expect(differing.length, `they differ at ${differing.slice(0, 10).join(", ")}…`).toBe(0);
  });
});

describeEachEngine(
  "the name skeleton migration",
  (database) => {
    function companyRow(id: number, name: string, website_key: string) {
      return {
        id,
        name,
        folded_name: name.toLowerCase(),
        country: "DE",
        state: "Bavaria",
        city: "Munich",
        website: `https://${website_key}`,
        glassdoor_url: "https://reviews.example/acme",
        website_key,
        industry: "Software",
        created_on: "2025-06-01",
      };
    }

    it("fills the skeletons, cleans stored names and keeps earlier lookalikes apart under the new unique index", async () => {
      const db = database().db as Kysely<any>;
      // As the migrator runs them on PostgreSQL: in a transaction (the trigram index uses savepoints).
      await db.transaction().execute(async (trx) => {
        for (const migration of [initial, accounts, apiTokens, nameSearch]) await migration.up(trx);
      });
      await db
        .insertInto("companies")
        .values([
          companyRow(1, "ACME GmbH", "acme.com"),
          companyRow(2, "Acm\u0435 GmbH", "acme.com"),
          companyRow(3, "\u202EAc\u200Bme GmbH", "acme.de"),
        ])
        .execute();
      await db
        .insertInto("managers")
        .values({
          id: 1,
          first_name: "J\u200Bane",
          last_name: "\u202EDoe",
          folded_name: "jane doe",
          country: "DE",
          state: "Bavaria",
          city: "Munich",
          title: "Engineering Manager",
          linkedin_url: "https://linkedin.com/in/jane-doe",
          created_on: "2025-06-01",
        })
        .execute();

      await nameSkeletons.up(db);

      const skeleton = nameSkeletons.nameSkeleton("Acme GmbH");
      expect(
        await db.selectFrom("companies").select(["id", "name", "folded_name", "name_skeleton"]).orderBy("id").execute(),
      ).toEqual([
        { id: 1, name: "ACME GmbH", folded_name: "acme gmbh", name_skeleton: skeleton },
        { id: 2, name: "Acm\u0435 GmbH", folded_name: "acm\u0435 gmbh", name_skeleton: `${skeleton}\u00012` },
        { id: 3, name: "Acme GmbH", folded_name: "acme gmbh", name_skeleton: skeleton },
      ]);
      expect(await db.selectFrom("managers").select(["first_name", "last_name", "name_skeleton"]).execute()).toEqual([
        { first_name: "Jane", last_name: "Doe", name_skeleton: nameSkeletons.nameSkeleton("Jane Doe") },
      ]);
      await expect(
        db
          .insertInto("companies")
          .values({ ...companyRow(4, "ACME GMBH", "acme.com"), name_skeleton: skeleton })
          .execute(),
      ).rejects.toThrow(/unique|UNIQUE/);
    });
  },
  { migrate: false },
);

describeEachEngine(
  "the industry sections migration",
  (database) => {
    it("gives each company the section its industry names, keeping every typed industry as it was", async () => {
      const db = database().db as Kysely<any>;
      await db.transaction().execute(async (trx) => {
        for (const migration of [initial, accounts, apiTokens, nameSearch, nameSkeletons, publicationQueue]) {
          await migration.up(trx);
        }
      });
      const typed = ["Software", "  BANKING ", "Education", "Basket weaving", "Information and communication", ""];
      await db
        .insertInto("companies")
        .values(
          typed.map((industry, index) => ({
            id: index + 1,
            name: `Company ${index}`,
            folded_name: `company ${index}`,
            name_skeleton: `company ${index}`,
            country: "DE",
            state: "Bavaria",
            city: "Munich",
            website: `https://company-${index}.example`,
            glassdoor_url: "https://reviews.example/company",
            website_key: `company-${index}.example`,
            industry,
            created_on: "2025-06-01",
          })),
        )
        .execute();

      await industrySectionsMigration.up(db);

      expect(await db.selectFrom("companies").select(["industry", "industry_section"]).orderBy("id").execute()).toEqual(
        [
          { industry: "Software", industry_section: "J" },
          { industry: "  BANKING ", industry_section: "K" },
          { industry: "Education", industry_section: "P" },
          { industry: "Basket weaving", industry_section: null },
          { industry: "Information and communication", industry_section: "J" },
          { industry: "", industry_section: null },
        ],
      );
    });

    it("knows the sections by the same letters and titles as the application", () => {
      for (const { code, title } of industrySections) {
        expect(industrySectionsMigration.sectionOfIndustry(title), title).toBe(code);
      }
    });
  },
  { migrate: false },
);

describeEachEngine(
  "the queue slots migration",
  (database, engine) => {
    it("keeps every queued row as it was and gives each a random slot, the table's key on SQLite", async () => {
      const db = database().db as Kysely<any>;
      await db.transaction().execute(async (trx) => {
        for (const migration of [initial, accounts, apiTokens, nameSearch, nameSkeletons, publicationQueue]) {
          await migration.up(trx);
        }
      });
      const rows = Array.from({ length: 8 }, (_, index) => ({
        id: `queued-row-${index}`,
        key_id: index < 4 ? "old-key" : "new-key",
        sealed: Buffer.alloc(32_768, index),
      }));
      await db.insertInto("pending_reviews").values(rows).execute();

      await db.transaction().execute((trx) => queueSlots.up(trx));

      const after = await db.selectFrom("pending_reviews").selectAll().orderBy("id").execute();
      expect(after.map(({ id, key_id, sealed }) => ({ id, key_id, sealed: Buffer.from(sealed) }))).toEqual(rows);
      expect(new Set(after.map((row) => row.slot)).size).toBe(8);
      for (const { slot } of after) expect(Number.isSafeInteger(slot) && slot >= 0).toBe(true);
      if (engine === "sqlite") {
        const { rows: scanned } = await sql<{ place: number; slot: number }>`
          select rowid as place, slot from pending_reviews`.execute(db);
        for (const row of scanned) expect(row.place).toBe(row.slot);
      }
      await expect(
        db
          .insertInto("pending_reviews")
          .values({ ...rows[0], slot: 1 })
          .execute(),
        "the id stays unique",
      ).rejects.toThrow(/unique|UNIQUE/);
    });
  },
  { migrate: false },
);

describe("the lookalike identity migration's website key", () => {
  it("gives what the live code gives", () => {
    for (const href of [
      "https://www.acme.com/",
      "https://careers.eu.acme.co.uk/jobs?x=1",
      "http://acme.github.io/about",
      "https://1.2.3.4/",
      "https://www.acme-12.example/",
    ]) {
      expect(lookalikeIdentity.websiteKey(href), href).toBe(websiteKey(href));
    }
  });
});

describeEachEngine(
  "the lookalike identity migration",
  (database) => {
    it("computes every identity again, keeping companies that became lookalikes apart under the unique index", async () => {
      const db = database().db as Kysely<any>;
      await migrate(db);
      const row = (id: number, name: string, website: string) => ({
        id,
        name,
        folded_name: fold(name),
        name_skeleton: `old ${id}`,
        country: "DE",
        state: "Bavaria",
        city: "Munich",
        website,
        glassdoor_url: "https://reviews.example/acme",
        website_key: `old ${id}`,
        industry: "Software",
        created_on: "2025-06-01",
      });
      await db
        .insertInto("companies")
        .values([
          row(1, "Acme Inc", "https://acme.com/"),
          row(2, "Acme Inc.", "https://acme.com/about"),
          row(3, "ΑΘΗΝΑΣ", "https://athinas.gr/"),
          row(4, "Acme Inc", "https://acme.de/"),
        ])
        .execute();

      await lookalikeIdentity.up(db);

      expect(
        await db.selectFrom("companies").select(["id", "name_skeleton", "website_key"]).orderBy("id").execute(),
      ).toEqual([
        { id: 1, name_skeleton: nameSkeleton("Acme Inc"), website_key: "acme.com" },
        { id: 2, name_skeleton: `${nameSkeleton("Acme Inc")}\u00012`, website_key: "acme.com" },
        { id: 3, name_skeleton: nameSkeleton("Αθηνασ"), website_key: "athinas.gr" },
        { id: 4, name_skeleton: nameSkeleton("Acme Inc"), website_key: "acme.de" },
      ]);
      await expect(
        db
          .insertInto("companies")
          .values({
            ...row(5, "ACME, INC", "https://www.acme.com"),
            name_skeleton: nameSkeleton("ACME, INC"),
            website_key: "acme.com",
          })
          .execute(),
      ).rejects.toThrow(/unique|UNIQUE/);
    });
  },
  { migrate: false },
);

describeEachEngine(
  "the one-open-appeal migration",
  (database) => {
    it("keeps the first of a review's waiting appeals, decided ones all, and refuses a second waiting one", async () => {
      const db = database().db as Kysely<any>;
      await migrate(db);
      await oneOpenAppeal.down(db);
      const appeal = (id: number, review_id: string, decision_id: number | null) => ({
        id,
        review_id,
        statement: `appeal ${id}`,
        received_on: "2026-11-30",
        decision_id,
      });
      await db
        .insertInto("review_appeals")
        .values([
          appeal(1, "review-a", 7),
          appeal(2, "review-a", null),
          appeal(3, "review-a", null),
          appeal(4, "review-b", null),
          appeal(5, "review-a", null),
          appeal(6, "review-a", 7),
        ])
        .execute();

      await oneOpenAppeal.up(db);

      const left = await db.selectFrom("review_appeals").select(["id", "decision_id"]).orderBy("id").execute();
      expect(left.map((row) => row.id)).toEqual([1, 2, 4, 6]);
      await expect(
        db
          .insertInto("review_appeals")
          .values(appeal(8, "review-b", null))
          .execute(),
      ).rejects.toThrow(/unique|UNIQUE/);
      await db
        .insertInto("review_appeals")
        .values(appeal(9, "review-b", 8))
        .execute();
    });
  },
  { migrate: false },
);

describeEachEngine("schema constraints", (database) => {
  async function companyId(db: Kysely<Database>) {
    return insertCompany(db, { name: "Constraint Check GmbH" });
  }

  it("accepts a review with ratings from 1 to 5, five tags and 5000 characters of text", async () => {
    const { db } = database();
    const id = await companyId(db);
    const tags = JSON.stringify(["Fair Pay", "Hybrid", "Stable", "Inclusive", "Mentorship"]);

    await db
      .insertInto("company_reviews")
      .values(companyReviewRow(id, { reputation: 1, culture: 5, again: 1, review_text: "x".repeat(5000), tags }))
      .execute();

    expect(await countRows(db, "company_reviews")).toBe(1);
  });

  it("refuses a company rating of 0 or 6", async () => {
    const { db } = database();
    const id = await companyId(db);
    for (const value of [0, 6]) {
      for (const criterion of [companyCriteria[0], companyCriteria.at(-1)!]) {
        await expect(
          db
            .insertInto("company_reviews")
            .values(companyReviewRow(id, { [criterion]: value }))
            .execute(),
        ).rejects.toThrow(/check constraint/i);
      }
    }
  });

  it("refuses a manager rating of 0 or 6", async () => {
    const { db } = database();
    const id = await insertManager(db, { first_name: "Ada", last_name: "Check" });
    for (const value of [0, 6]) {
      await expect(
        db
          .insertInto("manager_reviews")
          .values(managerReviewRow(id, { [managerCriteria[0]]: value }))
          .execute(),
      ).rejects.toThrow(/check constraint/i);
    }
  });

  it("refuses a yes/no answer of 2", async () => {
    const { db } = database();
    const id = await companyId(db);
    for (const question of ["again", "recommend", "has_oncall"] as const) {
      await expect(
        db
          .insertInto("company_reviews")
          .values(companyReviewRow(id, { [question]: 2 }))
          .execute(),
      ).rejects.toThrow(/check constraint/i);
    }
  });

  it("refuses review text longer than 5000 characters", async () => {
    const { db } = database();
    const id = await companyId(db);
    await expect(
      db
        .insertInto("company_reviews")
        .values(companyReviewRow(id, { review_text: "x".repeat(5001) }))
        .execute(),
    ).rejects.toThrow(/check constraint/i);
  });

  it("refuses a review with six tags", async () => {
    const { db } = database();
    const id = await companyId(db);
    const tags = JSON.stringify(["Fair Pay", "Hybrid", "Stable", "Inclusive", "Mentorship", "Toxic"]);
    await expect(db.insertInto("company_reviews").values(companyReviewRow(id, { tags })).execute()).rejects.toThrow(
      /check constraint/i,
    );
  });

  it("refuses a review of a company that does not exist", async () => {
    const { db } = database();
    await expect(db.insertInto("company_reviews").values(companyReviewRow(424242)).execute()).rejects.toThrow(
      /foreign key constraint/i,
    );
  });
});

describe("migrations on PostgreSQL", () => {
  const opened: TestDatabase[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((database) => database.drop()));
  });

  async function freshSchema(options: { migrate: boolean }): Promise<TestDatabase> {
    const database = await createTestDatabase("postgres", options);
    opened.push(database);
    return database;
  }

  it("runs every pooled connection in the test's own schema", async () => {
    const { db, schema } = await freshSchema({ migrate: false });
    const rows = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const { rows } = await sql<{ schema: string; pid: number }>`
          select current_schema() as schema, pg_backend_pid() as pid from pg_sleep(0.1)`.execute(db);
        return rows[0]!;
      }),
    );

    expect(new Set(rows.map((row) => row.pid)).size).toBe(4);
    expect(rows.map((row) => row.schema)).toEqual([schema, schema, schema, schema]);
  });

  it("migrates a schema while another schema of the same database is already migrated", async () => {
    const first = await freshSchema({ migrate: true });
    const second = await freshSchema({ migrate: false });

    const { results = [] } = await migrate(second.db);

    expect(results.map((result) => result.status)).toEqual(results.map(() => "Success"));
    expect(await appliedMigrations(second.db)).toEqual(await appliedMigrations(first.db));
    await expect(second.db.selectFrom("companies").select("id").execute()).resolves.toEqual([]);
  });

  it("applies each migration exactly once when five pools migrate at once", async () => {
    const { url, db } = await freshSchema({ migrate: false });
    const pools = Array.from({ length: 5 }, () => openDatabase(url, { poolSize: 2 }));
    try {
      const outcomes = await whileNoSchemaIsDropped(() => Promise.all(pools.map((pool) => migrateToLatest(pool.db))));
      const applied = outcomes.flatMap(({ results = [] }) => results.map((result) => result.migrationName));

      expect(outcomes.every((outcome) => outcome.error === undefined)).toBe(true);
      expect(applied.sort()).toEqual(await appliedMigrations(db));
      expect(applied.length).toBeGreaterThan(0);
    } finally {
      await Promise.all(pools.map((pool) => pool.close()));
    }
  });

  it("applies each migration exactly once when five processes run db:migrate at once", async () => {
    const { url, db } = await freshSchema({ migrate: false });
    const script = fileURLToPath(new URL("../../scripts/migrate.ts", import.meta.url));
    const runs = await whileNoSchemaIsDropped(() =>
      Promise.all(
        Array.from({ length: 5 }, () =>
          promisify(execFile)(process.execPath, [script], { env: { ...process.env, DATABASE_URL: url } }),
        ),
      ),
    );
    const applied = runs.flatMap(({ stdout }) => [...stdout.matchAll(/^Success: (\S+)$/gm)].map((match) => match[1]!));

    expect(applied.length).toBeGreaterThan(0);
    expect(applied.sort()).toEqual(await appliedMigrations(db));
    expect(runs.filter(({ stdout }) => stdout.includes("up to date"))).toHaveLength(4);
  });
});
