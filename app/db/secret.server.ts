import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { engineOf } from "#app/db/connection.server.ts";
import { env } from "#app/lib/env.server.ts";

/**
 * The server secret: AUTH_SECRET, or for the embedded database a random secret made on the first start and kept in a
 * file beside it (mode 600), so `npm start` needs no configuration. Several processes on PostgreSQL must share one
 * secret, so there it must be configured.
 */
let cached: string | undefined;

export function serverSecret(): string {
  cached ??= resolveSecret();
  return cached;
}

function resolveSecret(): string {
  const { AUTH_SECRET, DATABASE_URL } = env();
  if (AUTH_SECRET) return AUTH_SECRET;
  if (engineOf(DATABASE_URL) === "postgres") {
    throw new Error("Invalid configuration:\n  AUTH_SECRET: required when DATABASE_URL is a PostgreSQL URL");
  }
  const file = DATABASE_URL === ":memory:" ? undefined : `${path.resolve(DATABASE_URL.replace(/^file:/, ""))}.secret`;
  if (!file) return randomBytes(32).toString("base64url");
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch {
    const secret = randomBytes(32).toString("base64url");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    try {
      fs.writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
      return secret;
    } catch {
      // Another process made it first: use theirs.
      return fs.readFileSync(file, "utf8").trim();
    }
  }
}
