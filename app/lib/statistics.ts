/**
 * Every statistic the site computes, in one place:
 * - for headlines (docs/decisions/0021-an-honest-headline-and-distributions.md): the mean of the reviews' overall
 *   scores with a 95% Student's t interval, read from stored sums, never from the reviews themselves;
 * - for the manipulation signals (docs/moderation.md): a Poisson upper tail and a chi-square test of homogeneity, both
 *   from the regularized incomplete gamma function (series below a + 1, Lentz's continued fraction above, as in every
 *   numerical library), and a word-shingle similarity for near-duplicate texts.
 */

const epsilon = 1e-15;
const maxIterations = 1000;

function logGamma(x: number): number {
  // Lanczos approximation (g = 7, n = 9): about 15 significant digits for x > 0.
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const z = x - 1;
  let sum = c[0]!;
  for (let i = 1; i < 9; i++) sum += c[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** P(a, x), the regularized lower incomplete gamma function, for a > 0 and x >= 0. */
export function gammaP(a: number, x: number): number {
  if (x <= 0) return 0;
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < maxIterations; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * epsilon) break;
    }
    return Math.min(1, sum * Math.exp(-x + a * Math.log(x) - logGamma(a)));
  }
  return 1 - gammaQ(a, x);
}

/** Q(a, x) = 1 - P(a, x), computed directly where it is small, so tails far below 1e-6 keep their precision. */
export function gammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  if (x < a + 1) return 1 - gammaP(a, x);
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < maxIterations; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < epsilon) break;
  }
  return Math.max(0, Math.exp(-x + a * Math.log(x) - logGamma(a)) * h);
}

/** P(X >= k) for X ~ Poisson(mean): 1 for k <= 0. */
export function poissonUpperTail(k: number, mean: number): number {
  if (k <= 0) return 1;
  if (mean <= 0) return 0;
  return gammaP(k, mean);
}

/** P(X >= statistic) for X ~ chi-square with `df` degrees of freedom. */
export function chiSquareSurvival(statistic: number, df: number): number {
  if (df <= 0) return 1;
  return gammaQ(df / 2, statistic / 2);
}

/**
 * Pearson's chi-square test of homogeneity of two count vectors over the same categories (say, how many reviews
 * gave 1 to 5 stars recently and before). Categories empty in both are left out. Answers the statistic, the degrees
 * of freedom and the p-value; p is 1 when either side is empty or only one category is used.
 */
export function chiSquareHomogeneity(
  first: readonly number[],
  second: readonly number[],
): { statistic: number; df: number; p: number } {
  const used = first.map((count, index) => [count, second[index] ?? 0] as const).filter(([a, b]) => a + b > 0);
  const firstTotal = used.reduce((sum, [a]) => sum + a, 0);
  const secondTotal = used.reduce((sum, [, b]) => sum + b, 0);
  const total = firstTotal + secondTotal;
  const df = used.length - 1;
  if (firstTotal === 0 || secondTotal === 0 || df < 1) return { statistic: 0, df: Math.max(df, 0), p: 1 };
  let statistic = 0;
  for (const [a, b] of used) {
    const column = a + b;
    const expectedFirst = (column * firstTotal) / total;
    const expectedSecond = (column * secondTotal) / total;
    statistic += (a - expectedFirst) ** 2 / expectedFirst + (b - expectedSecond) ** 2 / expectedSecond;
  }
  return { statistic, df, p: chiSquareSurvival(statistic, df) };
}

/** The set of `size`-word shingles of a text, its words lower-cased and stripped of punctuation. */
export function shingles(text: string, size = 3): Set<string> {
  const words = text
    .toLowerCase()
    .normalize("NFKC")
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  const result = new Set<string>();
  if (words.length < size) {
    if (words.length > 0) result.add(words.join(" "));
    return result;
  }
  for (let i = 0; i + size <= words.length; i++) result.add(words.slice(i, i + size).join(" "));
  return result;
}

/** Jaccard similarity of two shingle sets: 1 for the same text, 0 for texts sharing no shingle. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const item of small) if (large.has(item)) shared += 1;
  return shared / (a.size + b.size - shared);
}

// ---------------------------------------------------------------------------------------------------------------
// Headlines: a mean and its interval from stored sums.

/** The 0.975 quantile of Student's t for 1 to 30 degrees of freedom (standard tables, three decimals). */
const t975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11,
  2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/**
 * The 0.975 quantile of Student's t with `df` degrees of freedom: from the table up to 30, beyond by the
 * Cornish-Fisher expansion around the normal quantile (off by less than 0.0002 there).
 */
export function tQuantile975(df: number): number {
  if (!(df >= 1)) return Number.NaN;
  if (df <= t975.length) return t975[Math.floor(df) - 1]!;
  const z = 1.959964;
  return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2);
}

/** Rounds to one decimal, the precision pages show. */
export function oneDecimal(value: number): number {
  return Math.round(value * 10) / 10;
}

/**
 * The mean of `count` values and its 95% confidence interval, from their sum and the sum of their squares, each value
 * being a total divided by `divisor` (a review's rating total over its number of criteria). The interval is Student's
 * t for the mean, clipped to the scale [low, high]; null below two values, where a spread cannot be estimated.
 */
export function meanWithInterval(
  stored: { count: number; sum: number; sumOfSquares: number; divisor: number },
  scale: { low: number; high: number },
): { mean: number; interval: { low: number; high: number } | null } | null {
  const { count, sum, sumOfSquares, divisor } = stored;
  if (count <= 0) return null;
  const mean = sum / (count * divisor);
  if (count < 2) return { mean, interval: null };
  // Sample variance of the totals, then of the values (totals / divisor); never below 0 despite rounding.
  const variance = Math.max(0, (sumOfSquares - (sum * sum) / count) / (count - 1)) / (divisor * divisor);
  const half = tQuantile975(count - 1) * Math.sqrt(variance / count);
  return {
    mean,
    interval: { low: Math.max(scale.low, mean - half), high: Math.min(scale.high, mean + half) },
  };
}

/** A share as a whole percentage, or null when there is nothing to share out. */
export function percent(part: number, whole: number): number | null {
  return whole > 0 ? Math.round((part / whole) * 100) : null;
}
