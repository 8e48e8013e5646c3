import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { linkIn, type OutboxMail, parseMail } from "./outbox.ts";

/**
 * A private mail outbox for one test file. Load it before anything else, through vi.hoisted:
 *
 *   const outbox = await vi.hoisted(() => import("#tests/support/test-outbox.ts"));
 *
 * env() parses the environment once and logger.server.ts calls it on import, so OUTBOX_DIR must be set before any
 * module that reads it is loaded; a plain import could be reordered after them.
 */
export const outboxDirectory = fs.mkdtempSync(path.join(os.tmpdir(), "candor-outbox-"));
process.env.OUTBOX_DIR = outboxDirectory;
delete process.env.SMTP_URL;

export type SentMail = OutboxMail;

/** The messages written to the outbox so far, oldest first. */
export function sentMails(): SentMail[] {
  return fs
    .readdirSync(outboxDirectory)
    .filter((name) => name.endsWith(".eml"))
    .sort()
    .map((name) => parseMail(name, fs.readFileSync(path.join(outboxDirectory, name), "utf8")));
}

export function clearOutbox(): void {
  for (const name of fs.readdirSync(outboxDirectory)) fs.rmSync(path.join(outboxDirectory, name));
}

export function removeOutbox(): void {
  fs.rmSync(outboxDirectory, { recursive: true, force: true });
}

/** The `token` parameter of the one link to `pathname` in a mail; throws when the mail has no such link. */
export function linkToken(mail: SentMail, pathname: string): string {
  const token = linkIn(mail, pathname).searchParams.get("token");
  if (!token) throw new Error(`No ${pathname}?token=... link in the mail "${mail.subject}".`);
  return token;
}
