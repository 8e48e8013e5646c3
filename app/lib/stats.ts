/**
 * The statistics behind a headline (docs/decisions/0021-an-honest-headline.md): the mean of the reviews' overall
 * scores with a 95% Student's t interval, read from stored sums, never from the reviews themselves.
 */

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
