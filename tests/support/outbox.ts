// Reading the .eml files the mailer writes when no SMTP_URL is set: the built server's (browser and HTTP tests)
// and, through test-outbox.ts, the Vitest suites'.
import fs from "node:fs/promises";
import path from "node:path";

/** One message the server's mailer wrote into its outbox (OUTBOX_DIR) as an .eml file. */
export type OutboxMail = { file: string; to: string; subject: string; text: string };

/** Undoes the transfer encoding nodemailer chose for a plain-text body. */
function decodeBody(body: string, encoding: string): string {
  if (encoding === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (encoding !== "quoted-printable") return body;
  const bytes = body
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

export function parseMail(file: string, source: string): OutboxMail {
  const split = source.search(/\r?\n\r?\n/);
  const head = source.slice(0, split).replace(/\r?\n[ \t]+/g, " ");
  const header = (name: string) => new RegExp(`^${name}: *(.*)$`, "im").exec(head)?.[1]?.trim() ?? "";
  const body = source.slice(split).replace(/^\r?\n\r?\n/, "");
  return {
    file,
    to: header("To"),
    subject: header("Subject"),
    text: decodeBody(body, header("Content-Transfer-Encoding").toLowerCase()),
  };
}

/** Every message in the outbox, oldest first (the file names start with the time they were written). */
export async function readOutbox(outboxDir: string): Promise<OutboxMail[]> {
  const names = await fs.readdir(outboxDir).catch(() => [] as string[]);
  const mails: OutboxMail[] = [];
  for (const name of names.filter((name) => name.endsWith(".eml")).sort()) {
    mails.push(parseMail(name, await fs.readFile(path.join(outboxDir, name), "utf8")));
  }
  return mails;
}

/**
 * Waits until the outbox holds `count` messages to `to` whose subject matches, and returns them, oldest first.
 * Mail may be sent after the response that caused it, so this polls for a few seconds.
 */
export async function waitForMails(
  outboxDir: string,
  { to, subject, count = 1 }: { to: string; subject: RegExp; count?: number },
): Promise<OutboxMail[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const mails = (await readOutbox(outboxDir)).filter((mail) => mail.to === to && subject.test(mail.subject));
    if (mails.length >= count) return mails;
    if (Date.now() > deadline) {
      throw new Error(`expected ${count} mail(s) to ${to} with a subject like ${subject}, found ${mails.length}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The newest message to `to` with a matching subject. */
export async function waitForMail(outboxDir: string, query: { to: string; subject: RegExp }): Promise<OutboxMail> {
  const mails = await waitForMails(outboxDir, query);
  return mails.at(-1)!;
}

/** The one link in the mail's text that leads to `pathname` on the site. */
export function linkIn(mail: OutboxMail, pathname: string): URL {
  const links = (mail.text.match(/https?:\/\/\S+/g) ?? []).map((link) => new URL(link));
  const matching = links.filter((link) => link.pathname === pathname);
  if (matching.length !== 1) throw new Error(`expected one link to ${pathname} in:\n${mail.text}`);
  return matching[0]!;
}
