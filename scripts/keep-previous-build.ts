// Part of `npm run build`: `start` before React Router's build, `end` after it (scripts/build-files.ts).
import path from "node:path";
import { keepThisAndPreviousBuild, markBuildStart } from "./build-files.ts";

const buildDir = path.resolve(import.meta.dirname, "../build");
const step = process.argv[2];
if (step === "start") markBuildStart(buildDir);
else if (step === "end") keepThisAndPreviousBuild(buildDir);
else {
  console.error("Usage: node scripts/keep-previous-build.ts start|end");
  process.exit(2);
}
