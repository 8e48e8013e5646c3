/** A task refused because as many as the limit allows wait already. */
export class QueueFullError extends Error {
  constructor() {
    super("too many tasks waiting");
    this.name = "QueueFullError";
  }
}

/**
 * Runs at most `max` of the tasks given to it at once; the others wait, in the order they came, and are started
 * (their function called) only when their turn comes, so nothing a task allocates as it starts is held while it
 * waits. Past `maxWaiting` waiting tasks, a new one is refused at once with QueueFullError.
 */
export function concurrencyLimit(
  max: number,
  maxWaiting = Number.POSITIVE_INFINITY,
): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  const next = () => {
    running -= 1;
    waiting.shift()?.();
  };
  return <T>(task: () => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      const start = () => {
        running += 1;
        // A task that throws at once fails its own promise, and frees its place like any other.
        Promise.resolve().then(task).then(resolve, reject).finally(next);
      };
      if (running < max) start();
      else if (waiting.length < maxWaiting) waiting.push(start);
      else reject(new QueueFullError());
    });
}
