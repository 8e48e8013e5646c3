import { describe, expect, it } from "vitest";
import { parseEnv } from "./env.server.ts";

describe("RATE_LIMITS", () => {
  it("is on unless a test suite switches it off", () => {
    expect(parseEnv({}).RATE_LIMITS).toBe("on");
    expect(parseEnv({ RATE_LIMITS: "off", PUBLIC_URL: "http://127.0.0.1:3000" }).RATE_LIMITS).toBe("off");
  });

  it("cannot be off on a site served over https", () => {
    expect(() => parseEnv({ RATE_LIMITS: "off", PUBLIC_URL: "https://reviews.example.org" })).toThrow(
      /RATE_LIMITS: off is for test suites only/,
    );
    expect(() => parseEnv({ RATE_LIMITS: "off", HSTS: "true" })).toThrow(/RATE_LIMITS/);
    expect(parseEnv({ RATE_LIMITS: "on", PUBLIC_URL: "https://reviews.example.org" }).RATE_LIMITS).toBe("on");
  });

  it("refuses anything but on and off", () => {
    expect(() => parseEnv({ RATE_LIMITS: "no" })).toThrow(/RATE_LIMITS/);
  });
});
