/**
 * A test fails when something it ran wrote to console.error and the test did not say it expected that: an error
 * logged and carried on from is a failure nobody would otherwise see. A test that expects one replaces console.error
 * itself (vi.spyOn(console, "error").mockImplementation(…), or t.mock.method(console, "error") under node --test),
 * and so takes over what is written.
 */
const calls: string[] = [];
const original = console.error;

function watching(...args: unknown[]): void {
  calls.push(args.map((arg) => (arg instanceof Error ? (arg.stack ?? arg.message) : String(arg))).join(" "));
  original.apply(console, args);
}

/** Starts watching console.error (before each test). */
export function watchConsoleErrors(): void {
  calls.length = 0;
  console.error = watching;
}

/** Stops watching; throws, failing the test, when console.error was written to meanwhile. */
export function assertNoConsoleErrors(): void {
  if (console.error === watching) console.error = original;
  if (calls.length === 0) return;
  const written = calls.splice(0).map((call) => `  ${call.split("\n").slice(0, 6).join("\n    ")}`);
  throw new Error(`console.error was called during this test, which does not expect it:\n${written.join("\n")}`);
}
