import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { expect, it } from "vitest";
import { describeEachEngine } from "#tests/support/test-database.ts";
import { countRows, insertCompany } from "#tests/support/test-fixtures.ts";
import { recordCompanyReview } from "#app/domain/contributions.server.ts";
import { author, companyReview, testReceiptSecret } from "#tests/support/test-contributions.ts";
import { jitteredWaitMs, startPublishing } from "./publisher.ts";

it("draws each wait uniformly from [0.5, 1.5] × the interval", () => {
  const waits = Array.from({ length: 2000 }, () => jitteredWaitMs(1800));
  for (const wait of waits) {
    expect(wait).toBeGreaterThanOrEqual(900_000);
    expect(wait).toBeLessThanOrEqual(2_700_000);
  }
  // Spread over the whole range, not a fixed rhythm: each third of it gets a fair share of 2000 draws.
  const thirds = [0, 0, 0];
  for (const wait of waits) thirds[Math.min(2, Math.floor((wait - 900_000) / 600_000))]! += 1;
  for (const third of thirds) expect(third).toBeGreaterThan(500);
});

describeEachEngine("the publication schedule", (database) => {
  it("publishes queued reviews on its own, and stops cleanly", async () => {
    const { db } = database();
    const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-schedule-keys-"));
    const settings = { intervalSeconds: 0.05, managerMinReviews: 3, minAuthors: 3, keyDir };
    try {
      const acme = await insertCompany(db, { name: "Acme" });
      for (const name of ["alice", "bob", "carol"]) {
        await recordCompanyReview(db, author(`user-${name}`), acme, companyReview(), settings);
      }
      expect(await countRows(db, "company_reviews")).toBe(0);

      const publishing = startPublishing({
        db,
        secret: testReceiptSecret,
        settings,
        logger: pino({ level: "silent" }),
      });
      await expect.poll(() => countRows(db, "company_reviews"), { timeout: 10_000 }).toBe(3);
      await publishing.stop();
      expect(await countRows(db, "pending_reviews")).toBe(0);
    } finally {
      fs.rmSync(keyDir, { recursive: true, force: true });
    }
  });
});
