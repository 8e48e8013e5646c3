import { describe, expect, it } from "vitest";
import { countryList, countryName, isCountryCode } from "./countries.server.ts";

describe("countryList", () => {
  it("starts with United States, then is alphabetical", () => {
    expect(countryList[0]).toEqual({ code: "US", name: "United States" });
    const rest = countryList.slice(1).map((country) => country.name);
    expect(rest).toEqual([...rest].sort(new Intl.Collator("en").compare));
  });

  it("holds about 195 countries, each once", () => {
    expect(countryList.length).toBeGreaterThanOrEqual(190);
    expect(countryList.length).toBeLessThanOrEqual(200);
    expect(new Set(countryList.map((country) => country.code)).size).toBe(countryList.length);
  });

  it("knows codes and names", () => {
    expect(isCountryCode("DE")).toBe(true);
    expect(isCountryCode("PR")).toBe(false);
    expect(countryName("DE")).toBe("Germany");
  });
});
