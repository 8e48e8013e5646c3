import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const outbox = path.join(os.tmpdir(), `candor-outbox-${process.pid}`);

beforeAll(() => {
  process.env.OUTBOX_DIR = outbox;
  delete process.env.SMTP_URL;
});
afterAll(() => fs.rm(outbox, { recursive: true, force: true }));

describe("sendMail without SMTP_URL", () => {
  it("writes the message as an .eml file into the outbox", async () => {
    const { sendMail } = await import("./mail.server.ts");
    await sendMail({ to: "someone@example.com", subject: "Hello there", text: "Line one\nLine two" });
    const files = await fs.readdir(outbox);
    expect(files).toHaveLength(1);
    const message = await fs.readFile(path.join(outbox, files[0]!), "utf8");
    expect(message).toMatch(/^To: someone@example.com$/m);
    expect(message).toMatch(/^Subject: Hello there$/m);
    expect(message).toContain("Line one\nLine two");
  });

  it("refuses a line break in a header value, so headers cannot be injected", async () => {
    const { sendMail } = await import("./mail.server.ts");
    await expect(
      sendMail({ to: "someone@example.com", subject: "Hi\r\nBcc: victim@example.com", text: "x" }),
    ).rejects.toThrow(/single line/);
    await expect(
      sendMail({ to: "someone@example.com\nBcc: victim@example.com", subject: "Hi", text: "x" }),
    ).rejects.toThrow(/single line/);
  });
});
