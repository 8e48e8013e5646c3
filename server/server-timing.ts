import type { RequestHandler } from "express";

/**
 * With SERVER_TIMING on, every answer carries `Server-Timing: cpu;dur=<ms>`: the CPU time (user and system, all of
 * the process's threads, so argon2's worker threads too) the process spent from the request's arrival until its
 * headers were written. Unlike the time a client waits, it does not grow when the machine is busy with other work,
 * so tests compare the work two kinds of request cost. Off by default: it tells a client how much work its request
 * caused, and the figure counts whatever else the process did meanwhile.
 */
export function serverTiming(): RequestHandler {
  return (_req, res, next) => {
    const started = process.cpuUsage();
    const writeHead = res.writeHead;
    // Node writes the headers through writeHead, called or implied by the first write, so this sees every answer.
    res.writeHead = function (this: typeof res, ...args: Parameters<typeof writeHead>) {
      const used = process.cpuUsage(started);
      if (!res.headersSent) res.setHeader("Server-Timing", `cpu;dur=${((used.user + used.system) / 1000).toFixed(3)}`);
      return writeHead.apply(this, args);
    } as typeof writeHead;
    next();
  };
}
