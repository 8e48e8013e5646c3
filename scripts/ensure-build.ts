// Runs before `npm start`: builds the app when there is no build yet, or when the sources are newer than it.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const marker = path.join(root, "build/server/index.js");

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (!entry.name.includes(".test.")) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

const built = fs.existsSync(marker) ? fs.statSync(marker).mtimeMs : 0;
const sources = Math.max(
  newestSource(path.join(root, "app")),
  newestSource(path.join(root, "server")),
  fs.statSync(path.join(root, "package-lock.json")).mtimeMs,
);
if (built < sources) {
  console.log(built ? "Sources changed since the last build: building…" : "First start: building the app…");
  execFileSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
}
