import { describe, expect, it } from "vitest";
import {
  chiSquareHomogeneity,
  chiSquareSurvival,
  gammaP,
  gammaQ,
  jaccard,
  meanWithInterval,
  percent,
  poissonUpperTail,
  shingles,
  tQuantile975,
} from "./statistics.ts";

/** P(X >= k) for Poisson(mean), summed term by term: the reference the gamma-function route must agree with. */
function poissonTailBySum(k: number, mean: number): number {
  let term = Math.exp(-mean);
  let below = 0;
  for (let i = 0; i < k; i++) {
    below += term;
    term *= mean / (i + 1);
  }
  return 1 - below;
}

describe("tail probabilities", () => {
  it("agrees with the Poisson upper tail summed term by term", () => {
    for (const [k, mean] of [
      [1, 0.5],
      [3, 2],
      [5, 1],
      [10, 4.2],
      [20, 15],
    ] as const) {
      expect(poissonUpperTail(k, mean)).toBeCloseTo(poissonTailBySum(k, mean), 12);
    }
    expect(poissonUpperTail(0, 3)).toBe(1);
    expect(poissonUpperTail(2, 0)).toBe(0);
  });

  it("keeps tails far below 1e-6 precise: 12 events where 0.5 were expected", () => {
    // Dominated by its first term, e^-0.5 · 0.5^12 / 12!, about 3.11e-13.
    const first = (Math.exp(-0.5) * 0.5 ** 12) / 479_001_600;
    const tail = poissonUpperTail(12, 0.5);
    expect(tail).toBeGreaterThan(first);
    expect(tail).toBeLessThan(first * 1.05);
  });

  it("matches the chi-square table: 3.841 at one degree of freedom and 9.488 at four are p = 0.05", () => {
    expect(chiSquareSurvival(3.841, 1)).toBeCloseTo(0.05, 4);
    expect(chiSquareSurvival(9.488, 4)).toBeCloseTo(0.05, 4);
    expect(chiSquareSurvival(13.277, 4)).toBeCloseTo(0.01, 4);
    expect(gammaP(2.5, 1.3) + gammaQ(2.5, 1.3)).toBeCloseTo(1, 14);
  });

  it("finds two samples from one distribution alike, and a reversed one different", () => {
    const same = chiSquareHomogeneity([2, 4, 10, 20, 14], [4, 8, 20, 40, 28]);
    expect(same.statistic).toBeCloseTo(0, 10);
    expect(same.p).toBeCloseTo(1, 10);
    const reversed = chiSquareHomogeneity([20, 0, 0, 0, 0], [1, 2, 5, 20, 30]);
    expect(reversed.df).toBe(4);
    expect(reversed.p).toBeLessThan(1e-6);
    expect(chiSquareHomogeneity([0, 0, 3, 0, 0], [0, 0, 9, 0, 0]).p).toBe(1);
    expect(chiSquareHomogeneity([0, 0, 0, 0, 0], [1, 2, 3, 4, 5]).p).toBe(1);
  });
});

describe("near-duplicate texts", () => {
  it("scores a lightly edited copy high and an unrelated text low", () => {
    const original = shingles("Great manager, always listens and gives clear feedback on every project we ship.");
    const edited = shingles("Great manager! Always listens and gives clear feedback on every project we ship");
    const other = shingles("The office is far from the station and the parking is expensive for everyone here.");
    expect(jaccard(original, edited)).toBe(1);
    expect(jaccard(original, other)).toBe(0);
    const oneWord = shingles("Great manager, always listens and gives useful feedback on every project we ship.");
    expect(jaccard(original, oneWord)).toBeGreaterThan(0.5);
    expect(jaccard(original, oneWord)).toBeLessThan(1);
  });
});

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
