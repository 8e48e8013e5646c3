import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { contributionMessages } from "#app/lib/messages.ts";
import * as outbox from "#tests/support/test-outbox.ts";
import { feedbackMessages, feedbackSchema, sendFeedback } from "./feedback.server.ts";

// Before env() is first read: the owner's address (the setup file has already pointed OUTBOX_DIR at a private outbox).
vi.hoisted(() => {
  process.env.CONTACT_EMAIL = "owner@candor-feedback.example";
});

/** The raw .eml files written so far. */
function rawMails(): string[] {
  return fs
    .readdirSync(outbox.outboxDirectory)
    .filter((name) => name.endsWith(".eml"))
    .map((name) => fs.readFileSync(path.join(outbox.outboxDirectory, name), "utf8"));
}

const header = (mail: string, name: string) => new RegExp(`^${name}: (.*)$`, "im").exec(mail.split("\n\n")[0]!)?.[1];

function firstProblem(input: Record<string, unknown>, field: string): string | undefined {
  const result = feedbackSchema.safeParse({ email: "", subject: "Hello", message: "A message.", ...input });
  return result.error?.issues.find((issue) => issue.path[0] === field)?.message;
}

describe("feedbackSchema", () => {
  it("requires a subject and a message", () => {
    expect(firstProblem({ subject: "" }, "subject")).toBe(feedbackMessages.subjectRequired);
    expect(firstProblem({ subject: "   " }, "subject")).toBe(feedbackMessages.subjectRequired);
    expect(firstProblem({ message: "" }, "message")).toBe(feedbackMessages.messageRequired);
    expect(firstProblem({ message: " \n " }, "message")).toBe(feedbackMessages.messageRequired);
  });

  it("refuses a subject with a line break, so no mail header can be injected", () => {
    for (const subject of ["Hello\r\nBcc: victim@example.com", "Hello\nBcc: victim@example.com", "Hi\rthere"]) {
      expect(firstProblem({ subject }, "subject"), JSON.stringify(subject)).toBe(contributionMessages.singleLine);
    }
  });

  it("accepts an empty e-mail address, and refuses one that is not an address", () => {
    const parsed = feedbackSchema.parse({ email: "", subject: "Hello", message: "A message.", comment: "" });
    expect(parsed.email).toBeUndefined();
    expect(firstProblem({ email: "not-an-address" }, "email")).toBe(feedbackMessages.emailInvalid);
    expect(firstProblem({ email: "a@b.example\r\nBcc: victim@example.com" }, "email")).toBe(
      feedbackMessages.emailInvalid,
    );
    expect(feedbackSchema.parse({ email: " ada@example.com ", subject: "Hi", message: "Text" }).email).toBe(
      "ada@example.com",
    );
  });
});

describe("sendFeedback", () => {
  it("mails the site owner with a prefixed subject and the sender as Reply-To", async () => {
    await sendFeedback(
      feedbackSchema.parse({
        email: "ada@example.com",
        subject: "Broken link on the search page",
        message: "The country list does not open.",
        comment: "Firefox on Linux",
      }),
    );

    const mails = outbox.sentMails();
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({
      to: "owner@candor-feedback.example",
      subject: "[Candor feedback] Broken link on the search page",
    });
    expect(mails[0]?.text).toContain("The country list does not open.");
    expect(mails[0]?.text).toContain("Firefox on Linux");
    expect(mails[0]?.text).toContain("ada@example.com");
    expect(header(rawMails()[0]!, "Reply-To")).toBe("ada@example.com");
  });

  it("sends without Reply-To when no address was given", async () => {
    await sendFeedback(feedbackSchema.parse({ email: "", subject: "Thanks", message: "Nice site." }));

    const [mail] = rawMails();
    expect(header(mail!, "To")).toBe("owner@candor-feedback.example");
    expect(header(mail!, "Reply-To")).toBeUndefined();
    expect(outbox.sentMails()[0]?.text).toContain("(no address given)");
  });

  it("refuses to send a subject with a line break that got past the schema", async () => {
    await expect(
      sendFeedback({ subject: "Hi\r\nBcc: victim@example.com", message: "x", comment: "", email: undefined }),
    ).rejects.toThrow(/single line/);
    expect(rawMails()).toEqual([]);
  });
});
