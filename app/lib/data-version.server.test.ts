import { describe, expect, it } from "vitest";
import {
  type ChangeScope,
  changeStamp,
  changedElsewhere,
  coalesced,
  dataVersion,
  decodeScope,
  encodeScope,
  publicDataChanged,
  unchangedSince,
} from "./data-version.server.ts";

/** A coalesced signal whose sends wait until `release` is called; `sent` lists the scopes sent. */
function recordingSignal() {
  const sent: Array<ChangeScope | undefined> = [];
  const control = { release: () => {} };
  const signal = coalesced(
    (scope) =>
      new Promise<void>((resolve) => {
        sent.push(scope);
        control.release = resolve;
      }),
    () => {},
  );
  return { sent, signal, release: () => control.release() };
}

describe("coalesced announcements", () => {
  it("sends once for a signal, and once more (not once each) for signals that came while it was sending", async () => {
    const { sent, signal, release } = recordingSignal();
    signal({ companies: [1], managers: [] });
    expect(sent).toHaveLength(1);
    for (let index = 2; index < 52; index += 1) signal({ companies: [index], managers: [index] });
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toHaveLength(2);
    // The second send carries every scope signalled meanwhile.
    expect(sent[1]!.companies).toHaveLength(50);
    expect(sent[1]!.managers).toHaveLength(50);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toHaveLength(2);
  });

  it("sends a change of everything when any signal meanwhile was one", async () => {
    const { sent, signal, release } = recordingSignal();
    signal({ companies: [1], managers: [] });
    signal({ companies: [2], managers: [] });
    signal(undefined);
    signal({ companies: [3], managers: [] });
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual([{ companies: [1], managers: [] }, undefined]);
  });
});

describe("narrow invalidation", () => {
  it("makes stale the changed subjects' tags and lists, and nothing else", () => {
    const version = dataVersion();
    const since = changeStamp();
    publicDataChanged({ companies: [41], managers: [7] });
    expect(dataVersion()).toBe(version);
    expect(unchangedSince(since, ["company:41"])).toBe(false);
    expect(unchangedSince(since, ["manager:7"])).toBe(false);
    expect(unchangedSince(since, ["lists"])).toBe(false);
    expect(unchangedSince(since, ["company:42"])).toBe(true);
    expect(unchangedSince(since, ["manager:41"])).toBe(true);
    // An answer made after the change is current again.
    expect(unchangedSince(changeStamp(), ["company:41", "lists"])).toBe(true);
  });

  it("makes stale what shows any subject only when a subject is added", () => {
    const since = changeStamp();
    publicDataChanged({ companies: [8], managers: [] });
    expect(unchangedSince(since, ["subjects", "company:9"])).toBe(true);
    publicDataChanged({ companies: [10], managers: [], added: true });
    expect(unchangedSince(since, ["subjects", "company:9"])).toBe(false);
  });

  it("counts a change of everything, here or elsewhere, in the version", () => {
    const version = dataVersion();
    publicDataChanged();
    expect(dataVersion()).toBe(version + 1);
    changedElsewhere(decodeScope("*"));
    expect(dataVersion()).toBe(version + 2);
    const since = changeStamp();
    changedElsewhere(decodeScope("c5;m"));
    expect(dataVersion()).toBe(version + 2);
    expect(unchangedSince(since, ["company:5"])).toBe(false);
  });

  it("carries a scope through the channel's text and falls back to everything when it is too long", () => {
    expect(decodeScope(encodeScope({ companies: [1, 22], managers: [333] }))).toEqual({
      companies: [1, 22],
      managers: [333],
    });
    expect(decodeScope(encodeScope({ companies: [], managers: [] }))).toEqual({ companies: [], managers: [] });
    expect(decodeScope(encodeScope({ companies: [5], managers: [], added: true }))).toEqual({
      companies: [5],
      managers: [],
      added: true,
    });
    expect(encodeScope(undefined)).toBe("*");
    expect(decodeScope("*")).toBeUndefined();
    expect(decodeScope("garbage")).toBeUndefined();
    const many = Array.from({ length: 5_000 }, (_, index) => index + 1_000_000);
    expect(encodeScope({ companies: many, managers: [] })).toBe("*");
  });
});
