import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import nodemailer, { type Transporter } from "nodemailer";
import { env } from "./env.server.ts";

export type Mail = {
  to: string;
  subject: string;
  text: string;
  replyTo?: string;
};

/** Header values never carry line breaks: a CR or LF in a subject or address could inject headers. */
function singleLine(value: string): string {
  if (/[\r\n]/.test(value)) throw new Error("Mail header values must be a single line.");
  return value;
}

let transporter: Transporter | undefined;

function transport(): Transporter {
  const { SMTP_URL } = env();
  transporter ??= SMTP_URL
    ? nodemailer.createTransport(SMTP_URL)
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return transporter;
}

/**
 * Sends through SMTP_URL, or, by default, writes the message as an .eml file into OUTBOX_DIR (./data/outbox),
 * where a developer or a test can read it.
 */
export async function sendMail(mail: Mail): Promise<void> {
  const { MAIL_FROM, SMTP_URL, OUTBOX_DIR } = env();
  const info = await transport().sendMail({
    from: MAIL_FROM,
    to: singleLine(mail.to),
    subject: singleLine(mail.subject),
    text: mail.text,
    ...(mail.replyTo ? { replyTo: singleLine(mail.replyTo) } : {}),
  });
  if (SMTP_URL) return;
  await fs.mkdir(OUTBOX_DIR, { recursive: true });
  const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(4).toString("hex")}.eml`;
  await fs.writeFile(path.join(OUTBOX_DIR, name), info.message as Buffer, { mode: 0o600 });
}
