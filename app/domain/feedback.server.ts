import { z } from "zod";
import { env } from "#app/lib/env.server.ts";
import { sendMail } from "#app/lib/mail.server.ts";
import { contributionMessages as m } from "#app/lib/messages.ts";
import { feedbackLengths } from "#app/lib/limits.ts";

export const feedbackMessages = {
  sent: "Your message has been sent!",
  failed: "Your message could not be sent, please try again.",
  subjectRequired: "Enter a subject.",
  messageRequired: "Enter your message.",
  emailInvalid: "Enter a valid e-mail address, or leave it empty.",
} as const;

/** An e-mail address (optional, for a reply), a subject and a message (both required), a comment. */
export const feedbackSchema = z.object({
  email: z
    .string()
    .trim()
    .max(feedbackLengths.email)
    .transform((value) => value || undefined)
    .pipe(z.email(feedbackMessages.emailInvalid).optional()),
  subject: z
    .string()
    .trim()
    .min(1, feedbackMessages.subjectRequired)
    .max(feedbackLengths.subject, m.tooLong)
    // A subject becomes a mail header: no line breaks, so nothing can be injected after it.
    .refine((value) => !/[\r\n]/.test(value), m.singleLine),
  message: z.string().trim().min(1, feedbackMessages.messageRequired).max(feedbackLengths.message, m.textTooLong),
  comment: z.string().trim().max(feedbackLengths.comment, m.tooLong).default(""),
});
export type Feedback = z.infer<typeof feedbackSchema>;

/** Sends the message to the site owner (CONTACT_EMAIL); a reply goes to the sender's address when given. */
export async function sendFeedback(feedback: Feedback): Promise<void> {
  const body = [
    feedback.message,
    feedback.comment ? `\nComment:\n${feedback.comment}` : "",
    `\nFrom: ${feedback.email ?? "(no address given)"}`,
  ].join("\n");
  await sendMail({
    to: env().CONTACT_EMAIL,
    subject: `[Candor feedback] ${feedback.subject}`,
    text: body,
    ...(feedback.email ? { replyTo: feedback.email } : {}),
  });
}
