import { describe, expect, it } from "vitest";
import { meanWithInterval, percent, tQuantile975 } from "./stats.ts";

describe("tQuantile975", () => {
  it("reads the table up to 30 degrees of freedom", () => {
    expect(tQuantile975(1)).toBe(12.706);
    expect(tQuantile975(9)).toBe(2.262);
    expect(tQuantile975(30)).toBe(2.042);
  });

  it("follows the expansion beyond, approaching the normal quantile", () => {
    // Published values: t(0.975; 40) = 2.021, t(0.975; 120) = 1.980.
    expect(tQuantile975(40)).toBeCloseTo(2.021, 3);
    expect(tQuantile975(120)).toBeCloseTo(1.98, 3);
    expect(tQuantile975(1e9)).toBeCloseTo(1.96, 3);
  });
});

describe("meanWithInterval", () => {
  const scale = { low: 1, high: 5 };

  it("gives Student's t interval of the mean from the stored sums", () => {
    // Three reviews with two criteria each: totals 4, 6, 8, so overall scores 2, 3, 4 (mean 3, sd 1).
    const result = meanWithInterval({ count: 3, sum: 18, sumOfSquares: 16 + 36 + 64, divisor: 2 }, scale);
    expect(result?.mean).toBe(3);
    const half = 4.303 * (1 / Math.sqrt(3));
    expect(result?.interval?.low).toBeCloseTo(Math.max(1, 3 - half), 9);
    expect(result?.interval?.high).toBeCloseTo(Math.min(5, 3 + half), 9);
  });

  it("narrows with more reviews of the same spread", () => {
    const few = meanWithInterval({ count: 4, sum: 2 * 4 + 4 * 4, sumOfSquares: 2 * 16 + 2 * 64, divisor: 2 }, scale);
    const many = meanWithInterval(
      { count: 40, sum: 20 * 4 + 20 * 8, sumOfSquares: 20 * 16 + 20 * 64, divisor: 2 },
      scale,
    );
    const width = (r: typeof few) => r!.interval!.high - r!.interval!.low;
    expect(few?.mean).toBe(3);
    expect(many?.mean).toBe(3);
    expect(width(many)).toBeLessThan(width(few) / 2);
  });

  it("has no interval for a single review and nothing without reviews", () => {
    expect(meanWithInterval({ count: 1, sum: 7, sumOfSquares: 49, divisor: 2 }, scale)).toEqual({
      mean: 3.5,
      interval: null,
    });
    expect(meanWithInterval({ count: 0, sum: 0, sumOfSquares: 0, divisor: 2 }, scale)).toBeNull();
  });

  it("stays within the scale", () => {
    const result = meanWithInterval({ count: 2, sum: 2 + 10, sumOfSquares: 4 + 100, divisor: 2 }, scale);
    expect(result?.interval).toEqual({ low: 1, high: 5 });
  });
});

describe("percent", () => {
  it("rounds a share to a whole percentage, null without a whole", () => {
    expect(percent(2, 3)).toBe(67);
    expect(percent(0, 4)).toBe(0);
    expect(percent(0, 0)).toBeNull();
  });
});
