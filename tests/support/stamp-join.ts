// The join of account stamps with the request log (docs/anonymity.md, "Account stamps and the request log"): whoever
// holds a copy of the server lays every stored stamp about an account (its sign-up, sign-ins, session refreshes,
// credential changes) beside the request log's lines, and where a stamp falls inside a contribution's request,
// names that account as its author. Test-only: used by tests/e2e/session-stamps-join.test.ts on the real run and on
// a planted one.

export const dayMs = 86_400_000;

/** A stored moment about an account: who, and milliseconds since the epoch. */
export type Stamp = { account: string; at: number };

/** A line of the request log: when it was written, how finely that is dated, how long the request took. */
export type LoggedRequest = { time: number; resolutionMs: number; durationMs: number; method: string; path: string };

/** A request whose line carries no duration is taken to have lasted at most this long (the attacker's bound). */
export const assumedDurationMs = 1000;

/** How finely a stamp dates its moment, judged as an attacker would: by the zeros it ends in. */
export function resolutionOf(at: number): number {
  if (at % dayMs === 0) return dayMs;
  if (at % 60_000 === 0) return 60_000;
  if (at % 1000 === 0) return 1000;
  return 1;
}

/** The request lines of a server's output (pino JSON lines with "msg":"request"), with their times read. */
export function requestLines(output: string): LoggedRequest[] {
  const lines: LoggedRequest[] = [];
  for (const text of output.split("\n")) {
    if (!text.includes('"msg":"request"')) continue;
    const line = JSON.parse(text) as { time: number | string; ms?: number; method: string; path: string };
    const minute = typeof line.time === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\dZ$/.test(line.time);
    const time = typeof line.time === "number" ? line.time : Date.parse(line.time);
    if (!Number.isFinite(time)) throw new Error(`a request line with an unreadable time: ${text}`);
    lines.push({
      time,
      resolutionMs: minute ? 60_000 : typeof line.time === "number" ? 1 : 1000,
      durationMs: line.ms ?? assumedDurationMs,
      method: line.method,
      path: line.path,
    });
  }
  return lines;
}

/** Whether a stamp may fall inside a logged request: their spans of uncertainty overlap. */
function overlaps(stamp: Stamp, line: LoggedRequest): boolean {
  const stampEnd = stamp.at + resolutionOf(stamp.at);
  const lineStart = line.time - line.durationMs;
  const lineEnd = line.time + line.resolutionMs;
  return stamp.at < lineEnd && lineStart < stampEnd;
}

/**
 * The accounts the join leaves as the author of the request of `line`: those with a stamp that may fall inside it;
 * every account where no stamp does (the join then tells nothing).
 */
export function candidatesOf(line: LoggedRequest, stamps: readonly Stamp[], accounts: readonly string[]): string[] {
  const joined = new Set(stamps.filter((stamp) => overlaps(stamp, line)).map((stamp) => stamp.account));
  return joined.size > 0 ? [...joined] : [...accounts];
}

export type JoinReport = {
  /** Contribution lines looked at. */
  lines: number;
  stamps: number;
  /** The fewest candidates any contribution line kept. */
  fewest: number;
  /** Lines left with fewer than `floor` candidates. */
  narrowed: number;
};

/** The join over every contribution line, against `floor` candidates (3: the promise of docs/anonymity.md). */
export function joinStamps(
  lines: readonly LoggedRequest[],
  stamps: readonly Stamp[],
  accounts: readonly string[],
  isContribution: (line: LoggedRequest) => boolean,
  floor = 3,
): JoinReport {
  const contributions = lines.filter(isContribution);
  const counts = contributions.map((line) => candidatesOf(line, stamps, accounts).length);
  return {
    lines: contributions.length,
    stamps: stamps.length,
    fewest: counts.length > 0 ? Math.min(...counts) : 0,
    narrowed: counts.filter((count) => count < floor).length,
  };
}
