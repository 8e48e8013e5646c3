import { describe, expect, it } from "vitest";
import { averageScore, nestedBarPercent, overviewBarPercent } from "./ratings.ts";

describe("averageScore", () => {
  it("floors the mean of the rating fields", () => {
    expect(averageScore([5, 4, 4])).toBe(4);
    expect(averageScore([1, 2])).toBe(1);
  });

  it("is 0 without ratings", () => {
    expect(averageScore([])).toBe(0);
  });
});

describe("bar widths", () => {
  it("overview bars grow with the square root and fill at 5", () => {
    expect(overviewBarPercent(5)).toBe(100);
    expect(overviewBarPercent(1)).toBeCloseTo(44.72, 1);
    expect(overviewBarPercent(0)).toBe(0);
  });

  it("nested bars are the value relative to 5", () => {
    expect(nestedBarPercent(4)).toBe(80);
    expect(nestedBarPercent(9)).toBe(100);
  });
});
