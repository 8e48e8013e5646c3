import { describe, expect, it } from "vitest";
import {
  chiSquareHomogeneity,
  chiSquareSurvival,
  gammaP,
  gammaQ,
  jaccard,
  poissonUpperTail,
  shingles,
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
