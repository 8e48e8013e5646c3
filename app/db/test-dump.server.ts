import { type Kysely, sql } from "kysely";
import type { Engine } from "./connection.server.ts";

/** Reading a whole test database, as an operator with full access could: for tests that look for what must not be. */

type Db = Kysely<any>;
type Row = Record<string, unknown>;

export async function tableNames(db: Db, engine: Engine): Promise<string[]> {
  const query =
    engine === "sqlite"
      ? sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`
      : sql<{ name: string }>`select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = current_schema() and c.relkind = 'r'`;
  return (await query.execute(db)).rows.map((row) => row.name).sort();
}

export async function columnNames(db: Db, engine: Engine, table: string): Promise<string[]> {
  const query =
    engine === "sqlite"
      ? sql<{ name: string }>`select name from pragma_table_info(${table})`
      : sql<{ name: string }>`select a.attname as name from pg_attribute a
          join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = current_schema() and c.relname = ${table} and a.attnum > 0 and not a.attisdropped`;
  return (await query.execute(db)).rows.map((row) => row.name);
}

function text(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return `${value.toString("hex")} ${value.toString("utf8")}`;
  return String(value);
}

/** Every row of every table, each value as text. */
export async function dump(db: Db, engine: Engine): Promise<Map<string, Record<string, string>[]>> {
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
