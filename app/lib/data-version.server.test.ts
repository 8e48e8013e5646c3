import { describe, expect, it } from "vitest";
import { coalesced } from "./data-version.server.ts";

describe("coalesced announcements", () => {
  it("sends once for a signal, and once more (not once each) for signals that came while it was sending", async () => {
    let sends = 0;
    let release: () => void = () => {};
    const signal = coalesced(
      () =>
        new Promise<void>((resolve) => {
          sends += 1;
          release = resolve;
        }),
      () => {},
    );
    signal();
    expect(sends).toBe(1);
    for (let index = 0; index < 50; index += 1) signal();
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sends).toBe(2);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sends).toBe(2);
  });
});
