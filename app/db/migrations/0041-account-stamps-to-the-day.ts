import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * Account stamps to the day (decision 0050): what was stored to the millisecond about accounts, their sessions,
 * credentials and pending links is cut to the day it fell on (UTC); an expiry less than a day ahead is rounded up to
 * the minute instead, so that nothing expires earlier than it was meant to. A refresh token's expiry is cut to the day;
 * access tokens (15 minutes) end, as an access token now carries its own expiry and the stored row only the day. The application writes new rows so from now on.
 *
 * On PostgreSQL the old values stay in dead row versions until the table is vacuumed, and in the write-ahead log
 * until it is recycled (docs/anonymity.md).
 */
const dayColumns: Array<[table: string, columns: string[]]> = [
  ["users", ["createdAt", "updatedAt"]],
  ["sessions", ["createdAt", "updatedAt", "expiresAt"]],
  ["accounts", ["createdAt", "updatedAt"]],
  ["verifications", ["createdAt", "updatedAt"]],
];

const everyRow = sql<boolean>`true`;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  // SQLite holds better-auth's dates as ISO 8601 text ("2026-12-02T15:03:02.123Z"), PostgreSQL as timestamptz.
  const toDay = (column: string) =>
    postgres
      ? sql`date_trunc('day', ${sql.ref(column)}, 'UTC')`
      : sql`substr(${sql.ref(column)}, 1, 10) || 'T00:00:00.000Z'`;
  const toNextMinute = (column: string) =>
    postgres
      ? sql`date_trunc('minute', ${sql.ref(column)}, 'UTC') + case when ${sql.ref(column)} > date_trunc('minute', ${sql.ref(column)}, 'UTC') then interval '1 minute' else interval '0' end`
      : sql`strftime('%Y-%m-%dT%H:%M:00.000Z', ${sql.ref(column)}, case when substr(${sql.ref(column)}, 18) <> '00.000Z' then '+1 minute' else '+0 minute' end)`;
  for (const [table, columns] of dayColumns) {
    await db
      .updateTable(table)
      .set(Object.fromEntries(columns.map((column) => [column, toDay(column)])))
      .where(everyRow)
      .execute();
  }
  await db
    .updateTable("verifications")
    .set({ expiresAt: toNextMinute("expiresAt") })
    .where(everyRow)
    .execute();
  // Access tokens now carry their expiry themselves; the stored ones, which do not, end (a client refreshes).
  await db.deleteFrom("api_tokens").where("kind", "=", "access").execute();
  await db
    .updateTable("api_tokens")
    .set({ expires_at: sql`(expires_at / 86400000) * 86400000` })
    .where("kind", "=", "refresh")
    .execute();
}

export async function down(): Promise<void> {
  // The finer stamps are gone; there is nothing to restore.
}
