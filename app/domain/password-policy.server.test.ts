import { describe, expect, it } from "vitest";
import { isCommonPassword, newPasswordSchema, passwordMessages } from "./password-policy.server.ts";

describe("newPasswordSchema", () => {
  it("refuses passwords shorter than 8 characters", () => {
    const result = newPasswordSchema.safeParse("Ab3$xyz");
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(passwordMessages.tooShort);
  });

  it("allows 64-character passwords and refuses more than 128", () => {
    expect(newPasswordSchema.safeParse("k".repeat(30) + "Q".repeat(34)).success).toBe(true);
    expect(newPasswordSchema.safeParse("k".repeat(129)).success).toBe(false);
  });

  it("refuses common passwords whatever their case", () => {
    expect(isCommonPassword("Password")).toBe(true);
    expect(isCommonPassword("sunshine")).toBe(true);
    const result = newPasswordSchema.safeParse("BASEBALL");
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(passwordMessages.common);
  });

  it("accepts an uncommon passphrase", () => {
    expect(newPasswordSchema.safeParse("violet tractor sings quietly").success).toBe(true);
  });
});
