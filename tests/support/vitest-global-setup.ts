// Runs once per `vitest run`, before any test file: migrates the SQLite file that test-database.ts copies.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { openDatabase } from "#app/db/connection.server.ts";
import { migrateToLatest } from "#app/db/migrate.server.ts";

export default async function setup(project: TestProject) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "candor-template-"));
  const file = path.join(directory, "candor.sqlite");
  const handle = openDatabase(file);
  try {
    await migrateToLatest(handle.db);
  } finally {
    // Closing the last connection checkpoints the WAL into the file, so the file alone is the whole database.
    await handle.close();
  }
  project.provide("sqliteTemplate", file);
  return () => fs.rmSync(directory, { recursive: true, force: true });
}
