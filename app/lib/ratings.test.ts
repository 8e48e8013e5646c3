import { describe, expect, it } from "vitest";
import { averageScore, barPercent } from "./ratings.ts";

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
  it("are linear in the value: 5 fills the bar, 3 fills 60%, an average of 3.0 as much as a single 3", () => {
    expect(barPercent(5)).toBe(100);
    expect(barPercent(3)).toBe(60);
    expect(barPercent(1)).toBe(20);
    expect(barPercent(2.6)).toBeCloseTo(52, 6);
  });

  it("stay within the track for nothing and for values past the scale", () => {
    expect(barPercent(0)).toBe(0);
    expect(barPercent(Number.NaN)).toBe(0);
    expect(barPercent(9)).toBe(100);
  });
});
