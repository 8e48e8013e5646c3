import { describe, expect, it } from "vitest";
import { preferredCountry } from "./preferred-country.ts";

const known = new Set(["DE", "US", "FR", "AT"]);

describe("the country a search starts with", () => {
  it("is the last choice when it is a known country", () => {
    expect(preferredCountry(known, { stored: "FR", languages: ["de-DE"] })).toBe("FR");
  });

  it("is the region of the first language that names a known country, without a usable last choice", () => {
    expect(preferredCountry(known, { stored: "XX", languages: ["de-AT", "en-US"] })).toBe("AT");
    expect(preferredCountry(known, { stored: null, languages: ["ja-JP", "en-US"] })).toBe("US");
  });

  it("reads a bare language as its most likely region", () => {
    expect(preferredCountry(known, { stored: null, languages: ["de"] })).toBe("DE");
  });

  it("is none when nothing names a known country, and skips what is not a language tag", () => {
    expect(preferredCountry(known, { stored: null, languages: ["not a tag!", "ja-JP"] })).toBeUndefined();
    expect(preferredCountry(known, { stored: null, languages: [] })).toBeUndefined();
  });
});
