import { type Kysely, sql } from "kysely";
import { isPostgres } from "../dialect.ts";

/**
 * better-auth's tables (users, sessions, accounts, verifications, two_factors), as its own schema generator wrote them
 * for each engine with the options of app/domain/auth.server.ts, frozen here so a library upgrade never changes a
 * database behind our back. Sessions may never hold an IP address or a user agent (docs/data-model.md, what is never stored).
 */
const postgres = [
  `create table "users" ("id" text not null primary key, "name" text not null, "email" text not null unique, "emailVerified" boolean not null, "image" text, "createdAt" timestamptz default CURRENT_TIMESTAMP not null, "updatedAt" timestamptz default CURRENT_TIMESTAMP not null, "twoFactorEnabled" boolean)`,
  `create table "sessions" ("id" text not null primary key, "expiresAt" timestamptz not null, "token" text not null unique, "createdAt" timestamptz default CURRENT_TIMESTAMP not null, "updatedAt" timestamptz not null, "ipAddress" text check ("ipAddress" is null), "userAgent" text check ("userAgent" is null), "userId" text not null references "users" ("id") on delete cascade)`,
  `create table "accounts" ("id" text not null primary key, "accountId" text not null, "providerId" text not null, "userId" text not null references "users" ("id") on delete cascade, "accessToken" text, "refreshToken" text, "idToken" text, "accessTokenExpiresAt" timestamptz, "refreshTokenExpiresAt" timestamptz, "scope" text, "password" text, "createdAt" timestamptz default CURRENT_TIMESTAMP not null, "updatedAt" timestamptz not null)`,
  `create table "verifications" ("id" text not null primary key, "identifier" text not null, "value" text not null, "expiresAt" timestamptz not null, "createdAt" timestamptz default CURRENT_TIMESTAMP not null, "updatedAt" timestamptz default CURRENT_TIMESTAMP not null)`,
  `create table "two_factors" ("id" text not null primary key, "secret" text not null, "backupCodes" text not null, "userId" text not null references "users" ("id") on delete cascade, "verified" boolean, "failedVerificationCount" integer, "lockedUntil" timestamptz)`,
];

const sqlite = [
  `create table "users" ("id" text not null primary key, "name" text not null, "email" text not null unique, "emailVerified" integer not null, "image" text, "createdAt" date not null, "updatedAt" date not null, "twoFactorEnabled" integer)`,
  `create table "sessions" ("id" text not null primary key, "expiresAt" date not null, "token" text not null unique, "createdAt" date not null, "updatedAt" date not null, "ipAddress" text check ("ipAddress" is null), "userAgent" text check ("userAgent" is null), "userId" text not null references "users" ("id") on delete cascade)`,
  `create table "accounts" ("id" text not null primary key, "accountId" text not null, "providerId" text not null, "userId" text not null references "users" ("id") on delete cascade, "accessToken" text, "refreshToken" text, "idToken" text, "accessTokenExpiresAt" date, "refreshTokenExpiresAt" date, "scope" text, "password" text, "createdAt" date not null, "updatedAt" date not null)`,
  `create table "verifications" ("id" text not null primary key, "identifier" text not null, "value" text not null, "expiresAt" date not null, "createdAt" date not null, "updatedAt" date not null)`,
  `create table "two_factors" ("id" text not null primary key, "secret" text not null, "backupCodes" text not null, "userId" text not null references "users" ("id") on delete cascade, "verified" integer, "failedVerificationCount" integer, "lockedUntil" date)`,
];

const indexes = [
  `create index "sessions_userId_idx" on "sessions" ("userId")`,
  `create index "accounts_userId_idx" on "accounts" ("userId")`,
  `create index "verifications_identifier_idx" on "verifications" ("identifier")`,
  `create index "two_factors_secret_idx" on "two_factors" ("secret")`,
  `create index "two_factors_userId_idx" on "two_factors" ("userId")`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of [...(isPostgres(db) ? postgres : sqlite), ...indexes]) {
    await sql.raw(statement).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["two_factors", "verifications", "accounts", "sessions", "users"]) {
    await db.schema.dropTable(table).execute();
  }
}
