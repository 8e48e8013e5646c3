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

  it("cannot be off on a site served over https whatever the scheme's case", () => {
    // "HTTPS://" was not taken as https: RATE_LIMITS=off started, and cookies lost Secure and __Host- (checked).
    for (const url of ["HTTPS://reviews.example.org", "Https://reviews.example.org/", "hTtPs://Reviews.Example.org"]) {
      expect(() => parseEnv({ RATE_LIMITS: "off", PUBLIC_URL: url }), url).toThrow(/RATE_LIMITS: off is for test/);
      expect(parseEnv({ PUBLIC_URL: url }).PUBLIC_URL, url).toMatch(/^https:\/\//);
    }
    expect(parseEnv({ PUBLIC_URL: "HTTP://127.0.0.1:3000" }).PUBLIC_URL).toBe("http://127.0.0.1:3000");
    expect(parseEnv({ SMTP_URL: "SMTPS://mail.example.org" }).SMTP_URL).toBe("smtps://mail.example.org");
    expect(parseEnv({ REDIS_URL: "REDISS://cache.example.org" }).REDIS_URL).toBe("rediss://cache.example.org");
  });

  it("refuses anything but on and off", () => {
    expect(() => parseEnv({ RATE_LIMITS: "no" })).toThrow(/RATE_LIMITS/);
  });
});
