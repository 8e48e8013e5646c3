import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { root, serverNodeFlags } from "#tests/support/server.ts";

// The server's memory limits (docs/performance.md, "Memory") are node flags, so they live on every command line that
// starts it: `npm start`, which tests and the benchmark copy, and the systemd unit of docs/deploy.md.
describe("the server's node flags", () => {
  it("caps the young and the old generation in npm start", () => {
    expect(serverNodeFlags).toEqual(["--max-semi-space-size=16", "--max-old-space-size=256"]);
  });

  it("are the same in the systemd unit", () => {
    const unit = fs.readFileSync(path.join(root, "deploy/systemd/candor.service"), "utf8");
    const execStart = /^ExecStart=(.*)$/m.exec(unit)?.[1]?.split(/\s+/) ?? [];
    expect(execStart.filter((word) => word.startsWith("--max-"))).toEqual(serverNodeFlags);
  });
});
