import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { root, serverStart } from "#tests/support/server.ts";

// The server's memory limits (docs/performance.md, "Memory") are set where the process starts: `npm start`, which
// tests and the benchmark copy, and the systemd unit of docs/deploy.md.
describe("the server's memory settings", () => {
  it("are npm start's malloc environment and V8 flags", () => {
    expect(serverStart).toEqual({
      env: { MALLOC_ARENA_MAX: "2", MALLOC_TRIM_THRESHOLD_: "131072", MALLOC_MMAP_THRESHOLD_: "65536" },
      nodeFlags: ["--max-semi-space-size=8", "--max-old-space-size=256"],
    });
  });

  it("are the same in the systemd unit", () => {
    const unit = fs.readFileSync(path.join(root, "deploy/systemd/candor.service"), "utf8");
    const line = (key: string) => new RegExp(`^${key}=(.*)$`, "m").exec(unit)?.[1]?.split(/\s+/) ?? [];
    expect(line("ExecStart").filter((word) => word.startsWith("--max-"))).toEqual(serverStart.nodeFlags);
    expect(Object.fromEntries(line("Environment").map((word) => word.split("=", 2)))).toEqual(serverStart.env);
  });
});
