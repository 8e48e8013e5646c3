/** A positive integer id from a URL, or undefined for anything else ("12abc", "-1", "1e3", too large). */
export function parseId(value: string | null | undefined): number | undefined {
  if (!value || !/^[1-9]\d{0,9}$/.test(value)) return undefined;
  const id = Number(value);
  return id <= 2_147_483_647 ? id : undefined;
}
