import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["app/**/*.test.{ts,tsx}", "server/**/*.test.ts", "scripts/**/*.test.ts", "eslint/**/*.test.ts"],
    // The data-layer suites share one PostgreSQL database; each suite works in its own schema.
    pool: "forks",
    globalSetup: ["tests/support/vitest-global-setup.ts"],
    setupFiles: ["tests/support/vitest-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Suites see a review right after writing it: each submission is published at once. The publication queue's
    // own suite passes its settings explicitly. Key files are named by each database's queue id, so one directory
    // serves every suite.
    env: {
      PUBLISH_INTERVAL: "0",
      MANAGER_MIN_REVIEWS: "1",
      PUBLISH_MIN_AUTHORS: "1",
      QUEUE_KEY_DIR: path.join(os.tmpdir(), "candor-test-queue-keys"),
    },
  },
});
