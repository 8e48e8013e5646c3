import { Counter, Gauge, Registry } from "prom-client";

/**
 * The publication's figures, in a registry of their own kept by one process per machine: the only process, or the
 * cluster's primary (server/metrics.ts), which the worker that ran a scheduled publication tells of it. The queue's
 * depth is the figure the run left, never one read at a scrape: a scrape would date a submission to its interval
 * (docs/anonymity.md).
 */
export type PublicationRecord = { failed: true } | { failed: false; published: number; held: number };

/** The message a worker sends its primary after each scheduled publication run. */
export const publicationMessage = "candor:publication";

export function publicationMetrics(): { registry: Registry; apply: (record: PublicationRecord) => void } {
  const registry = new Registry();
  const runs = new Counter({
    name: "candor_publication_runs_total",
    help: "Scheduled publication runs that ended, whatever they published.",
    registers: [registry],
  });
  const failures = new Counter({
    name: "candor_publication_failures_total",
    help: "Scheduled publication runs that failed (the queue is kept for the next run).",
    registers: [registry],
  });
  const published = new Counter({
    name: "candor_publication_published_total",
    help: "Reviews published by scheduled runs.",
    registers: [registry],
  });
  const depth = new Gauge({
    name: "candor_publication_queue_depth",
    help: "Reviews left waiting by the last scheduled publication: sampled at publication only, never at a scrape.",
    registers: [registry],
  });
  return {
    registry,
    apply(record) {
      if (record.failed) {
        failures.inc();
        return;
      }
      runs.inc();
      published.inc(record.published);
      depth.set(record.held);
    },
  };
}
