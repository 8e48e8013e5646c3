import { describe, expect, it } from "vitest";
import { formatDay, formatMonth, plural } from "./format.ts";

describe("format", () => {
  it("shows a review month as month and year only", () => {
    expect(formatMonth("2026-11")).toBe("November 2026");
  });

  it("shows a layoffs date as a day", () => {
    expect(formatDay("2026-03-14")).toBe("March 14, 2026");
  });

  it("pluralises counts", () => {
    expect(plural(1, "review", "reviews")).toBe("1 review");
    expect(plural(1200, "review", "reviews")).toBe("1,200 reviews");
  });
});
