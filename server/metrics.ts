import cluster from "node:cluster";
import { once } from "node:events";
import http from "node:http";
import type { Logger } from "pino";
import { AggregatorRegistry } from "prom-client";
import { type PublicationRecord, publicationMessage, publicationMetrics } from "#app/lib/publication-metrics.server.ts";

/**
 * Serves the metrics (Prometheus text format) on METRICS_ADDRESS, an address of its own: never the site's port, so
 * the proxy in front does not publish them. `text` gives them: the only process's, or, in the cluster's primary, the
 * workers' summed (AggregatorRegistry) with the publication's figures it keeps. Answers what stops it.
 */
export async function serveMetrics(
  address: string,
  text: () => Promise<string>,
  logger: Logger,
): Promise<{ stop: () => Promise<void> }> {
  const at = address.lastIndexOf(":");
  const host = address.slice(0, at).replace(/^\[|\]$/g, "");
  const port = Number(address.slice(at + 1));
  const server = http.createServer((req, res) => {
    if (req.method !== "GET" || (req.url ?? "/").split("?")[0] !== "/metrics") {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("Not found: the metrics are at /metrics.\n");
      return;
    }
    text().then(
      (body) => res.writeHead(200, { "Content-Type": AggregatorRegistry.PROMETHEUS_CONTENT_TYPE }).end(body),
      (error: unknown) => {
        logger.warn({ err: error }, "could not gather the metrics");
        res.writeHead(500, { "Content-Type": "text/plain" }).end("The metrics could not be gathered.\n");
      },
    );
  });
  server.listen(port, host);
  await once(server, "listening");
  logger.info({ address }, "metrics served");
  return { stop: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** In the cluster's primary: the workers' figures summed, and the publication's, which the workers report here. */
export function clusterMetrics(): () => Promise<string> {
  const aggregator = new AggregatorRegistry();
  const publication = publicationMetrics();
  cluster.on("message", (_worker, received: { type?: string; record?: PublicationRecord }) => {
    if (received?.type === publicationMessage && received.record) publication.apply(received.record);
  });
  return async () => (await aggregator.clusterMetrics()) + (await publication.registry.metrics());
}
