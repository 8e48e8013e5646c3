import { createHmac, randomBytes } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "#app/db/connection.server.ts";
import { migrateToLatest } from "#app/db/migrate.server.ts";
import { deleteAccount } from "#app/domain/accounts.server.ts";
import { reviewKeyHash } from "#app/domain/contributions.server.ts";
import { withdrawReview } from "#app/domain/moderation.server.ts";
import { addressLimitKey, challengeDigest } from "#app/domain/verification.server.ts";
import { hashIdentifier } from "#app/http/client.server.ts";
import { startVerification } from "#app/http/verification.server.ts";
import { keepRateLimitsIn } from "#app/lib/rate-limit.server.ts";
import { quarterOf } from "#app/lib/verification-token.ts";
import { createTestAuth, signUpAccount, withAuthTables } from "#tests/support/test-accounts.ts";
import type { TestDatabase } from "#tests/support/test-database.ts";
import { insertCompany, insertCompanyReview } from "#tests/support/test-fixtures.ts";
import { filesHolding, type PrivatePostgres, startPrivatePostgres } from "#tests/support/private-postgres.ts";
import { backgroundSettled } from "#app/lib/background.server.ts";
import { eraseDeleted, removeWrittenWal } from "./erase.server.ts";

/**
 * What a copy of a PostgreSQL server holds after an account is deleted or a review withdrawn: every file of its data
 * directory (heap and index files, pg_wal, the rest) read raw, before and after, on a cluster of this test's own
 * with the settings docs/deploy.md asks for. Each test first proves its check can fail: the traces are found in the
 * files before, and after the plain deletion (or overwrite), and only eraseDeleted takes them out. Proven live, each
 * plant making all three tests fail: without the VACUUM FULL the traces stayed in heap and index files
 * (base/5/16586, 16595, 16614, ...); without pg_switch_wal and CHECKPOINT, in pg_wal/000000010000000000000001; with
 * wal_recycle = on, in the recycled segment renamed 000000010000000000000003.
 */
describe("erasing deleted rows on PostgreSQL", () => {
  let cluster: PrivatePostgres;
  let database: TestDatabase;

  const open = () => {
    const handle = openDatabase(cluster.url, { poolSize: 2 });
    database = { ...handle, url: cluster.url, schema: undefined, drop: () => handle.close() };
  };

  beforeAll(async () => {
    cluster = await startPrivatePostgres({ wal_recycle: "off", wal_keep_size: "0" });
    open();
    await migrateToLatest(database.db);
  }, 120_000);

  afterAll(async () => {
    await database?.drop();
    await cluster?.stop();
  });

  it("leaves no copy of a deleted account's e-mail, id or password hash in heap, index or pg_wal files, also after a restart", async () => {
    const auth = createTestAuth(database);
    const email = `erased-${randomBytes(6).toString("hex")}@example.com`;
    const account = await signUpAccount(auth, email);
    const { password: hash } = await withAuthTables(database.db)
      .selectFrom("accounts")
      .select("password")
      .where("userId", "=", account.userId)
      .executeTakeFirstOrThrow();
    const traces = { email, id: account.userId, hash: hash! };
    await sql`checkpoint`.execute(database.db);
    const where = async () => {
      const files = await cluster.files();
      return Object.fromEntries(Object.entries(traces).map(([name, trace]) => [name, filesHolding(files, trace)]));
    };
    // The witness: each trace is in the table's heap file and in pg_wal before deletion.
    const before = await where();
    for (const [name, paths] of Object.entries(before)) {
      expect(
        paths.some((file) => file.startsWith("./base/")),
        name,
      ).toBe(true);
      expect(
        paths.some((file) => file.startsWith("./pg_wal/")),
        name,
      ).toBe(true);
    }

    // The deletion alone (better-auth's), then the erasure as deleteAccount runs it.
    await auth.api.deleteUser({ body: { password: account.password }, headers: account.headers });
    expect(await database.db.selectFrom("users").select("id").execute()).toEqual([]);
    const deletedOnly = await where();
    for (const [name, paths] of Object.entries(deletedOnly)) expect(paths.length, name).toBeGreaterThan(0);

    await eraseDeleted(database.db, ["users", "accounts", "sessions", "verifications", "vote_keys"]);
    await backgroundSettled();
    expect(await removeWrittenWal(database.db)).toBe(true);
    expect(await where()).toEqual({ email: [], id: [], hash: [] });
    await database.drop();
    await cluster.restart();
    open();
    expect(await where()).toEqual({ email: [], id: [], hash: [] });
  }, 120_000);

  it("erases through deleteAccount itself", async () => {
    const auth = createTestAuth(database);
    const email = `through-${randomBytes(6).toString("hex")}@example.com`;
    const account = await signUpAccount(auth, email);
    await sql`checkpoint`.execute(database.db);
    expect(filesHolding(await cluster.files(), email).length).toBeGreaterThan(0);
    expect((await deleteAccount(auth, database.db, account.password, account.headers)).ok).toBe(true);
    await backgroundSettled();
    expect(filesHolding(await cluster.files(), email)).toEqual([]);
    expect(filesHolding(await cluster.files(), account.userId)).toEqual([]);
  }, 120_000);

  // Proven live: with "verificationCodeAccount" taken out of the memory-only counters, the account's hash is found in
  // the rate_limits heap and index files (base/5/16907, base/5/16911) of the copy taken after the stop.
  it("writes nothing a copy of the files could tie to the account that asked for a work-address code", async () => {
    keepRateLimitsIn({ kind: "postgres", pool: database.pool });
    try {
      const secret = "candor-erase-test-secret-0123456789abcdef";
      const [userId, email] = [`user-${randomBytes(8).toString("hex")}`, "ann.lee@rawfiles-example.com"];
      const started = await startVerification("client-address-key", userId, { email }, { db: database.db, secret });
      // A copy after the server stopped: only the shutdown writes an UNLOGGED table's pages (rate_limits) to its file.
      keepRateLimitsIn({ kind: "memory" });
      await database.drop();
      await cluster.restart();
      open();
      const files = await cluster.files();
      const quarter = quarterOf(new Date());
      const traces = {
        accountKey: hashIdentifier(secret, "verification-account", userId),
        addressKey: addressLimitKey(secret, email),
        addressHash: createHmac("sha256", secret)
          .update(`verification-address\u0000${quarter}\u0000${email}`)
          .digest("base64url"),
        address: email,
        challenge: started.challenge,
        userId,
      };
      expect(
        Object.fromEntries(Object.entries(traces).map(([name, trace]) => [name, filesHolding(files, trace)])),
      ).toEqual({ accountKey: [], addressKey: [], addressHash: [], address: [], challenge: [], userId: [] });
      // The witness that the files were read: the waiting row's id is in them.
      expect(filesHolding(files, challengeDigest(started.challenge)).length).toBeGreaterThan(0);
    } finally {
      keepRateLimitsIn({ kind: "memory" });
    }
  }, 120_000);

  it("leaves no copy of a withdrawn review's text: no dead tuple, no TOAST, no WAL record", async () => {
    const companyId = await insertCompany(database.db, { name: "Erasure Example Ltd" });
    const short = `withdrawn words ${randomBytes(8).toString("hex")}`;
    // Long enough to be stored out of line, in the TOAST table (compression off: the bytes are the text).
    await sql`alter table company_reviews alter column review_text set storage external`.execute(database.db);
    const long = `${short} ${randomBytes(1400).toString("hex")}`;
    const reviewId = await insertCompanyReview(database.db, companyId, { review_text: long });
    const key = randomBytes(16).toString("base64url");
    await database.db
      .insertInto("review_keys")
      .values({ key_hash: reviewKeyHash(key), review_id: reviewId })
      .execute();
    const kept = await insertCompanyReview(database.db, companyId, { review_text: "A review that stays published." });
    await sql`checkpoint`.execute(database.db);
    const before = filesHolding(await cluster.files(), short);
    expect(before.some((file) => file.startsWith("./base/"))).toBe(true);
    expect(before.some((file) => file.startsWith("./pg_wal/"))).toBe(true);

    // Proven live: overwriting the text first leaves the old version in a dead tuple, in TOAST and in pg_wal.
    await database.db
      .updateTable("company_reviews")
      .set({ review_text: "An overwritten text, in a new version of the row." })
      .where("id", "=", reviewId)
      .execute();
    expect(filesHolding(await cluster.files(), short).length).toBeGreaterThan(0);

    await withdrawReview(database.db, key);
    await backgroundSettled();
    expect(await database.db.selectFrom("company_reviews").select("id").execute()).toEqual([{ id: kept }]);
    expect(filesHolding(await cluster.files(), short)).toEqual([]);
    expect(filesHolding(await cluster.files(), reviewKeyHash(key))).toEqual([]);
  }, 120_000);
});
