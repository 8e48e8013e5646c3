import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { keepThisAndPreviousBuild, markBuildStart } from "./build-files.ts";

describe("the files of this build and the previous one", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** One build at `at` (ms): writes `files`, dated then, and keeps what the build step keeps. */
  function build(dir: string, at: number, files: string[]) {
    markBuildStart(dir, at);
    for (const file of files) {
      const full = path.join(dir, file);
      fs.mkdirSync(path.dirname(full), { recursive: true });
      fs.writeFileSync(full, file);
      fs.utimesSync(full, new Date(at + 10), new Date(at + 10));
    }
    keepThisAndPreviousBuild(dir);
  }

  // Proved live: with `previous` left out of `keep`, the first build's chunk was gone after the second build.
  it("keeps the previous build's client files through the next build, and drops them after the one after", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-build-"));
    dirs.push(dir);
    const base = Date.now() - 60_000;
    build(dir, base, ["client/assets/entry-AAA.js", "client/favicon.svg", "server/index.js"]);
    build(dir, base + 10_000, ["client/assets/entry-BBB.js", "client/favicon.svg", "server/index.js"]);
    expect(fs.existsSync(path.join(dir, "client/assets/entry-AAA.js"))).toBe(true);
    expect(fs.existsSync(path.join(dir, "client/assets/entry-BBB.js"))).toBe(true);
    build(dir, base + 20_000, ["client/assets/entry-CCC.js", "client/favicon.svg", "server/index.js"]);
    expect(fs.existsSync(path.join(dir, "client/assets/entry-AAA.js"))).toBe(false);
    expect(fs.readdirSync(path.join(dir, "client/assets")).sort()).toEqual(["entry-BBB.js", "entry-CCC.js"]);
  });
});
