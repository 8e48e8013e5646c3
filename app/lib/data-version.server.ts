/**
 * A counter of committed writes to public data (companies, managers, reviews). server/page-cache.ts keeps a
 * rendered page only while the counter still has the value it had when the page's request began.
 */
let version = 0;

export function dataVersion(): number {
  return version;
}

/** Called after every committed contribution: every cached page may now be out of date. */
export function publicDataChanged(): void {
  version += 1;
}
