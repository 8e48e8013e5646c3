/**
 * How finely what is stored about an account is dated (decision 0050): a day. A stamp to the millisecond (when a
 * session was opened, when a password changed) could be laid beside the request log or a transaction's commit time to
 * tell what that account did next; a day's stamp is shared by everybody who did anything that day.
 */
export const dayMs = 86_400_000;
export const minuteMs = 60_000;

/** The start (00:00 UTC) of the day of `at`. */
export function dayOf(at: Date | number): Date {
  const ms = typeof at === "number" ? at : at.getTime();
  return new Date(ms - (((ms % dayMs) + dayMs) % dayMs));
}

/**
 * A moment of expiry rounded up to the whole minute: for the short-lived (a reset link, a second-factor challenge,
 * an API access token), whose expiry would otherwise tell the millisecond it was made.
 */
export function minuteAfter(at: Date | number): Date {
  const ms = typeof at === "number" ? at : at.getTime();
  return new Date(Math.ceil(ms / minuteMs) * minuteMs);
}

/**
 * A stored row's stamps made coarse as they are written: `createdAt` and `updatedAt` to the day, `expiresAt` to the
 * day when it lies at least a day ahead (a session) and otherwise up to the minute (a link or a challenge). Fields
 * that are not dates are left as they are; a row created or changed without `updatedAt` (or created without
 * `createdAt`) gets today's.
 */
export function coarseStamps<Row extends Record<string, unknown>>(
  row: Row,
  kind: "create" | "update",
  now = Date.now(),
): Row {
  const coarse: Record<string, unknown> = { ...row };
  for (const field of ["createdAt", "updatedAt"]) {
    const value = coarse[field];
    if (value instanceof Date) coarse[field] = dayOf(value);
  }
  // A stamp the row's writer left out would be filled in afterwards, to the millisecond, by the database layer.
  if (kind === "create") coarse.createdAt ??= dayOf(now);
  coarse.updatedAt ??= dayOf(now);
  const expiresAt = coarse.expiresAt;
  if (expiresAt instanceof Date) {
    coarse.expiresAt = expiresAt.getTime() - now >= dayMs ? dayOf(expiresAt) : minuteAfter(expiresAt);
  }
  return coarse as Row;
}
