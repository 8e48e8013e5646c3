import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { accountKey, hashIdentifier } from "./client.server.ts";

const reference = (secret: string, message: string) =>
  createHmac("sha256", secret).update(message).digest("base64url").slice(0, 32);

describe("the keys of rate limits", () => {
  it("key an account by its address as typed, case and surrounding spaces ignored", () => {
    const secret = "a".repeat(64);
    const key = accountKey(secret, "  Someone@Example.com ");
    expect(key).toBe(accountKey(secret, "someone@example.com"));
    expect(key).toBe(reference(secret, "email\u0000someone@example.com"));
    expect(key).not.toBe(accountKey(secret, "someone.else@example.com"));
  });

  it("differ by purpose and by secret, so neither an address nor an account can be matched across them", () => {
    const secret = "b".repeat(64);
    expect(hashIdentifier(secret, "ip", "10.0.0.1")).not.toBe(hashIdentifier(secret, "email", "10.0.0.1"));
    expect(hashIdentifier(secret, "ip", "10.0.0.1")).not.toBe(hashIdentifier(`${secret}c`, "ip", "10.0.0.1"));
  });
});
