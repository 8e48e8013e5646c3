/**
 * Ids of companies and managers: positive integers up to PostgreSQL's integer range. Every path segment, query
 * parameter, JSON field or cursor that carries one is read through this module.
 */
export const maxId = 2_147_483_647;

/** The decimal digits of an id, as text: no sign, no leading zero, no exponent, no spaces. */
export const idPattern = /^[1-9]\d{0,9}$/;

/** A positive integer id from a URL, or undefined for anything else ("12abc", "-1", "1e3", too large). */
export function parseId(value: string | null | undefined): number | undefined {
  if (!value || !idPattern.test(value)) return undefined;
  const id = Number(value);
  return id <= maxId ? id : undefined;
}
