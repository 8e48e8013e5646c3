import { type Kysely, sql } from "kysely";
import type { Engine } from "#app/db/connection.server.ts";
import type { Database } from "#app/db/schema.ts";
import { tableNames } from "./test-database.ts";

/** Reading a whole test database, as an operator with full access could: for tests that look for what must not be. */

type Row = Record<string, unknown>;

function text(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return `${value.toString("hex")} ${value.toString("utf8")}`;
  return String(value);
}

/** Every row of every table, each value as text. */
export async function dump(db: Kysely<Database>, engine: Engine): Promise<Map<string, Record<string, string>[]>> {
  const tables = new Map<string, Record<string, string>[]>();
  for (const name of await tableNames(db, engine)) {
    const { rows } = await sql<Row>`select * from ${sql.table(name)}`.execute(db);
    tables.set(
      name,
      rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, text(value)]))),
    );
  }
  return tables;
}
