import fs from "node:fs";
import os from "node:os";
import path from "node:path";

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

export type SentMail = { to: string; subject: string; text: string };

function decodeQuotedPrintable(encoded: string): string {
  const bytes = encoded
    .replace(/=\r?\n/g, "")
    .split(/(=[0-9A-F]{2})/i)
    .flatMap((part) =>
      /^=[0-9A-F]{2}$/i.test(part) ? [Number.parseInt(part.slice(1), 16)] : [...Buffer.from(part, "utf8")],
    );
  return Buffer.from(bytes).toString("utf8");
}

function parseMail(message: string): SentMail {
  const split = message.indexOf("\n\n");
  const head = message.slice(0, split);
  const body = message.slice(split + 2);
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, "im").exec(head)?.[1]?.trim() ?? "";
  const encoding = header("Content-Transfer-Encoding").toLowerCase();
  const text =
    encoding === "quoted-printable"
      ? decodeQuotedPrintable(body)
      : encoding === "base64"
        ? Buffer.from(body, "base64").toString("utf8")
        : body;
  return { to: header("To"), subject: header("Subject"), text };
}

/** The messages written to the outbox so far, oldest first. */
export function sentMails(): SentMail[] {
  return fs
    .readdirSync(outboxDirectory)
    .filter((name) => name.endsWith(".eml"))
    .sort()
    .map((name) => parseMail(fs.readFileSync(path.join(outboxDirectory, name), "utf8")));
}

export function clearOutbox(): void {
  for (const name of fs.readdirSync(outboxDirectory)) fs.rmSync(path.join(outboxDirectory, name));
}

export function removeOutbox(): void {
  fs.rmSync(outboxDirectory, { recursive: true, force: true });
}

/** The `token` parameter of the link to `pathname` in a mail; throws when the mail has no such link. */
export function linkToken(mail: SentMail, pathname: string): string {
  for (const [link] of mail.text.matchAll(/https?:\/\/\S+/g)) {
    const url = new URL(link);
    const token = url.searchParams.get("token");
    if (url.pathname === pathname && token) return token;
  }
  throw new Error(`No ${pathname}?token=... link in the mail "${mail.subject}".`);
}
