/**
 * Runs at most `max` of the tasks given to it at once; the others wait, in the order they came, and are started
 * (their function called) only when their turn comes, so nothing a task allocates as it starts is held while it
 * waits.
 */
export function concurrencyLimit(max: number): <T>(task: () => Promise<T>) => Promise<T> {
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
      else waiting.push(start);
    });
}
