import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gatheredPerTurn } from "./logger.server.ts";

describe("the request log", () => {
  it("hands the lines of one turn of the event loop to its destination in one write, in order", async () => {
    const writes: string[] = [];
    const destination = { destroyed: false, write: (text: string) => writes.push(text), flushSync: () => {} };
    const gathered = gatheredPerTurn(destination);
    gathered.write("one\n");
    gathered.write("two\n");
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    gathered.write("three\n");
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(["one\ntwo\n", "three\n"]);
  });

  it("writes every line logged before the process exits, however soon it exits", () => {
    const logger = JSON.stringify(path.resolve(import.meta.dirname, "logger.server.ts"));
    const script = `import { requestLogger } from ${logger};
      for (let n = 0; n < 2000; n++) requestLogger.info({ n }, "request");
      process.exit(0);`;
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, LOG_LEVEL: "info" },
      encoding: "utf8",
    });
    const lines = output
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { n: number; msg: string });
    expect(lines.map((line) => line.n)).toEqual(Array.from({ length: 2000 }, (_, n) => n));
    expect(lines.every((line) => line.msg === "request")).toBe(true);
  });
});
