// `node bench/peer-ranking.ts [--size 100000] [--runs 3] [--all]`: times the peer-ranking job (rankPeers) on a copy
// of a benchmark dataset and the longest the event loop went without a turn meanwhile, the stall every request of the
// server would see. See docs/performance.md.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { openDatabase } from "#app/db/connection.server.ts";
import { rankAllPeers, rankPeers } from "#app/domain/percentiles.server.ts";
import { copyDataset, ensureDataset } from "./dataset.ts";

const { values } = parseArgs({
  options: {
    size: { type: "string", default: "100000" },
    runs: { type: "string", default: "3" },
    all: { type: "boolean", default: false },
  },
});
const size = Number(values.size);
const runs = Number(values.runs);

const { file } = await ensureDataset(size);
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "candor-peer-ranking-"));
const handle = openDatabase(copyDataset(file, workDir));

/**
 * Runs `work` while a 1 ms timer measures the longest gap between its turns (less the 1 ms it asked for): the
 * longest a request would have waited for the event loop (monitorEventLoopDelay's maximum if that is longer). On a
 * loaded machine that gap includes time the process waited for a core, so the largest CPU time the process spent
 * between two turns is given too: the work of the longest step itself.
 */
async function watched<T>(work: () => Promise<T>) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let longest = 0;
  let longestCpu = 0;
  const tick = () => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    longest = Math.max(longest, now - last - 1);
    longestCpu = Math.max(longestCpu, (cpu.user + cpu.system) / 1000);
    last = now;
    lastCpu = process.cpuUsage();
  };
  const ticker = setInterval(tick, 1);
  const started = performance.now();
  const startedCpu = process.cpuUsage();
  const result = await work();
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(startedCpu);
  tick();
  clearInterval(ticker);
  histogram.disable();
  return {
    result,
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    longestStallMs: Math.max(longest, histogram.max / 1e6),
    longestCpuMs: longestCpu,
  };
}

const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(", ");
const describe = ({ result, ms, cpuMs, longestStallMs, longestCpuMs }: Awaited<ReturnType<typeof watched>>) =>
  `${JSON.stringify(result)} in ${ms.toFixed(0)} ms (${cpuMs.toFixed(0)} ms of CPU), longest event-loop stall ${longestStallMs.toFixed(1)} ms, ` +
  `longest CPU between two turns ${longestCpuMs.toFixed(1)} ms`;
console.log(`${size.toLocaleString("en")} companies, SQLite, Node ${process.version}`);
try {
  for (let run = 1; run <= runs; run++) {
    const loadBefore = load();
    const watch = await watched(() => rankPeers(handle.db));
    console.log(`run ${run}: ${describe(watch)} (load average ${loadBefore} before, ${load()} after)`);
  }
  if (values.all) {
    const loadBefore = load();
    const watch = await watched(() => rankAllPeers(handle.db));
    console.log(`every group: ${describe(watch)} (load average ${loadBefore} before, ${load()} after)`);
  }
} finally {
  await handle.close();
  fs.rmSync(workDir, { recursive: true, force: true });
}
