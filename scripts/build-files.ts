import fs from "node:fs";
import path from "node:path";

/**
 * The files of a build, and the previous build's, kept together (docs/deploy.md, upgrades): the build no longer
 * empties its folder, so each build's files are told apart by when they were written. Whatever neither this build
 * nor the one before wrote is removed. A page rendered by a worker of the previous build, while a rolling restart
 * replaces it, names that build's scripts and styles; they answer until the next build.
 */
const startedFile = ".build-started";
const listFile = ".build-files.json";

/** Before the build: when it started. */
export function markBuildStart(buildDir: string, now = Date.now()): void {
  fs.mkdirSync(buildDir, { recursive: true });
  fs.writeFileSync(path.join(buildDir, startedFile), String(now));
}

function filesUnder(dir: string, base = dir): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full, base);
    return [path.relative(base, full)];
  });
}

/**
 * After the build: the files written since it started are this build's; those of the build before stay; any
 * other file goes. Answers how many were removed.
 */
export function keepThisAndPreviousBuild(buildDir: string): number {
  const started = Number(fs.readFileSync(path.join(buildDir, startedFile), "utf8"));
  const all = filesUnder(buildDir).filter((file) => file !== startedFile && file !== listFile);
  const current = all.filter((file) => fs.statSync(path.join(buildDir, file)).mtimeMs >= started);
  let previous: string[] = [];
  try {
    previous = JSON.parse(fs.readFileSync(path.join(buildDir, listFile), "utf8")) as string[];
  } catch {
    // The first build that keeps a list: everything older than it goes.
  }
  const keep = new Set([...current, ...previous]);
  let removed = 0;
  for (const file of all) {
    if (keep.has(file)) continue;
    fs.rmSync(path.join(buildDir, file));
    removed += 1;
  }
  fs.writeFileSync(path.join(buildDir, listFile), JSON.stringify(current));
  fs.rmSync(path.join(buildDir, startedFile));
  return removed;
}
