import cluster from "node:cluster";
import { AggregatorRegistry, Counter, Gauge, Histogram, register } from "prom-client";
import { type PublicationRecord, publicationMessage, publicationMetrics } from "./publication-metrics.server.ts";

/**
 * The server's metrics in the Prometheus text format (prom-client), served on METRICS_ADDRESS only (server/metrics.ts).
 * Each worker process keeps its own request, cache, pool and replica figures, which the metrics address sums (lag:
 * the largest). Publication figures are kept by one process (the cluster's primary, or the only process), told by
 * the worker that ran each scheduled publication.
 *
 * Nothing here may date a submission finer than its batch (docs/anonymity.md): only reads (GET and HEAD) are counted
 * and timed, never a write, and the queue's depth is the figure the last publication left, never one read at a
 * scrape. Durations and cache results are taken from requests without cookies only, as the request log does.
 */

/** What a request asked for, in a few kinds: never its path, which would name a subject or an account's page. */
export type RouteKind = "page" | "api" | "asset" | "health" | "other";

export function routeKindOf(path: string): RouteKind {
  if (path === "/healthz" || path === "/readyz") return "health";
  if (path.startsWith("/api/")) return "api";
  if (path.startsWith("/assets/") || /^\/[^/]+\.(?:ico|txt|png|svg|webmanifest|xml)$/.test(path)) return "asset";
  if (path.startsWith("/")) return "page";
  return "other";
}

const requests = new Counter({
  name: "candor_http_requests_total",
  help: "Reads (GET and HEAD) answered, by route kind and status. Writes are never counted.",
  labelNames: ["kind", "status"] as const,
});

const durations = new Histogram({
  name: "candor_http_request_duration_seconds",
  help: "How long reads without cookies took to answer, by route kind.",
  labelNames: ["kind"] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
});

const pageCache = new Counter({
  name: "candor_page_cache_requests_total",
  help: "Reads without cookies by what the page cache did (hit, miss, or none when it did not apply).",
  labelNames: ["result"] as const,
});

/** One answered request: counted and timed only when it is a read (docs/anonymity.md). */
export function recordRequest(request: {
  method: string;
  path: string;
  status: number;
  seconds: number | undefined;
  cache: string | undefined;
}): void {
  if (request.method !== "GET" && request.method !== "HEAD") return;
  const kind = routeKindOf(request.path);
  requests.inc({ kind, status: String(request.status) });
  if (request.seconds === undefined) return;
  durations.observe({ kind }, request.seconds);
  pageCache.inc({ result: request.cache ?? "none" });
}

type Pool = { totalCount: number; idleCount: number; waitingCount: number };
const pools: Array<{ role: "primary" | "replica"; pool: Pool }> = [];
new Gauge({
  name: "candor_db_pool_connections",
  help: "PostgreSQL pool connections by role (primary, replica) and state (open, idle, waiting clients).",
  labelNames: ["role", "state"] as const,
  collect() {
    this.reset();
    for (const { role, pool } of pools) {
      this.set({ role, state: "open" }, pool.totalCount);
      this.set({ role, state: "idle" }, pool.idleCount);
      this.set({ role, state: "waiting" }, pool.waitingCount);
    }
  },
});

/** Reports this pool's connections in the metrics. */
export function watchPool(role: "primary" | "replica", pool: Pool): void {
  pools.push({ role, pool });
}

const replicaLag = new Gauge({
  name: "candor_replica_lag_seconds",
  help: "How far the read replica is behind the primary, as last measured (-1: it did not answer).",
  aggregator: "max",
});

const replicaFallbacks = new Counter({
  name: "candor_replica_fallback_reads_total",
  help: "Reads of anonymous readers sent to the primary because the replica was down or too far behind.",
});

export function setReplicaLag(seconds: number): void {
  replicaLag.set(seconds);
}

export function countReplicaFallback(): void {
  replicaFallbacks.inc();
}

const publication = publicationMetrics();

/** This process's figures: its own (a worker's, summed by the primary) then the publication's, when it keeps them. */
export async function metricsText(): Promise<string> {
  return (await register.metrics()) + (await publication.registry.metrics());
}

/** One scheduled publication run: counted here, or told to the cluster's primary, which keeps these figures. */
export function recordPublication(record: PublicationRecord): void {
  if (cluster.isWorker && process.send) {
    process.send({ type: publicationMessage, record });
    return;
  }
  publication.apply(record);
}

/** In a worker: answers the primary's requests for this process's figures (prom-client's cluster aggregation). */
export function answerMetricsRequests(): void {
  if (cluster.isWorker) new AggregatorRegistry();
}
