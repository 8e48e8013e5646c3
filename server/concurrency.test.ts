import { describe, expect, it } from "vitest";
import { QueueFullError, concurrencyLimit } from "./concurrency.ts";

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("a concurrency limit", () => {
  it("starts at most `max` tasks at once, the others in turn as places free up", async () => {
    const limit = concurrencyLimit(2);
    const tasks = Array.from({ length: 5 }, () => deferred());
    const started: number[] = [];
    const results = tasks.map((task, index) =>
      limit(async () => {
        started.push(index);
        await task.promise;
        return index;
      }),
    );
    // Its failure is asserted at the end; handled from the start, it is no unhandled rejection meanwhile.
    results[0]!.catch(() => undefined);
    await settle();
    expect(started).toEqual([0, 1]);

    tasks[1]!.resolve();
    await settle();
    expect(started).toEqual([0, 1, 2]);

    tasks[0]!.reject(new Error("failed"));
    await settle();
    expect(started).toEqual([0, 1, 2, 3]);

    for (const task of tasks.slice(2)) task.resolve();
    await expect(results[0]).rejects.toThrow("failed");
    expect(await Promise.all(results.slice(1))).toEqual([1, 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it("refuses a task at once when as many as allowed wait already, and takes one again once there is room", async () => {
    const limit = concurrencyLimit(1, 2);
    const first = deferred();
    const results = [limit(() => first.promise), limit(async () => "second"), limit(async () => "third")];
    await expect(limit(async () => "fourth")).rejects.toBeInstanceOf(QueueFullError);

    first.resolve();
    expect(await Promise.all(results)).toEqual([undefined, "second", "third"]);
    await expect(limit(async () => "fifth")).resolves.toBe("fifth");
  });

  it("frees the place of a task that throws before it returns a promise", async () => {
    const limit = concurrencyLimit(1);
    const failed = limit(() => {
      throw new Error("at once");
    });
    await expect(failed).rejects.toThrow("at once");
    await expect(limit(async () => "next")).resolves.toBe("next");
  });
});
