import { logger } from "./logger.server.ts";

/**
 * Work that must never delay or shape an answer, such as a password reset, whose mail (and whether there is one)
 * would otherwise show in the answer's timing. A task starts once `after` resolves (a request's answer is complete:
 * app/http/request-context.server.ts), and never in the current turn of the event loop; a failure is logged, never
 * answered. Shutdown waits for what is still waiting or running.
 */
const running = new Set<Promise<void>>();

export function runInBackground(what: string, task: () => Promise<unknown>, after?: Promise<void>): void {
  const done: Promise<void> = Promise.resolve(after)
    .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
    .then(task)
    .then(
      () => undefined,
      (error: unknown) => logger.error({ err: error, task: what }, "background task failed"),
    )
    .finally(() => running.delete(done));
  running.add(done);
}

/** Resolves once every task started so far, and any they started, has finished. */
export async function backgroundSettled(): Promise<void> {
  while (running.size > 0) await Promise.all([...running]);
}
