import type { NextFunction, Request, Response } from "express";
import { LRUCache } from "lru-cache";
import { cacheUsable, dataVersion } from "#app/lib/data-version.server.ts";
import { consumeApi, RateLimitedError } from "#app/lib/rate-limit.server.ts";

/**
 * Rendered public pages and API reads for visitors without cookies or credentials, kept in memory so the next
 * visitor gets them without a render or a query (docs/architecture.md, the page cache). A page is kept only while no contribution
 * has been committed since its request began (app/lib/data-version.server.ts), here or in another process (the change
 * channel tells every process within a second), and at most `ttlMs`. A cached page gets the current request's CSP nonce.
 */

type Entry = {
  status: number;
  headers: Array<[string, string]>;
  /** The body cut where the render's CSP nonce was: each request's own nonce goes between the pieces. */
  pieces: Buffer[];
  size: number;
  version: number;
  etag: string | undefined;
};

// Public pages whose content depends on nothing but the address (and the data) when no cookie is sent.
const cacheablePaths = [
  /^\/$/,
  /^\/search$/,
  /^\/company\/\d+$/,
  /^\/managers$/,
  /^\/manager-profile\/\d+$/,
  /^\/guidelines$/,
  /^\/privacy$/,
  /^\/landing$/,
  /^\/api\/v1\/(countries|tags|companies|managers)$/,
  /^\/api\/v1\/companies\/\d+(\/reviews|\/managers)?$/,
  /^\/api\/v1\/managers\/\d+(\/reviews)?$/,
];

// Headers that belong to one response only (compression encodes each response anew; the CSP carries its nonce).
const perResponseHeaders = new Set([
  "content-security-policy",
  "x-cache",
  "set-cookie",
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "date",
  "ratelimit-remaining",
  "ratelimit-reset",
]);

function splitAt(body: Buffer, separator: Buffer): Buffer[] {
  const pieces: Buffer[] = [];
  let start = 0;
  for (let at = body.indexOf(separator); at !== -1; at = body.indexOf(separator, start)) {
    pieces.push(body.subarray(start, at));
    start = at + separator.length;
  }
  pieces.push(body.subarray(start));
  return pieces;
}

export type PageCache = {
  middleware: (req: Request, res: Response, next: NextFunction) => void;
};

type Options = {
  /** The client's rate-limit key (an HMAC of its IP), as the API's own handlers compute it. */
  clientKey: (req: Request) => string;
  maxBytes?: number;
  ttlMs?: number;
};

export function createPageCache({ clientKey, maxBytes = 64 * 1024 * 1024, ttlMs = 60_000 }: Options): PageCache {
  const entries = new LRUCache<string, Entry>({
    maxSize: maxBytes,
    sizeCalculation: (entry) => entry.size + 512,
    ttl: ttlMs,
  });
  async function serveHit(req: Request, res: Response, entry: Entry, isApi: boolean): Promise<boolean> {
    if (isApi) {
      // Cached API reads count against the client's rate limit like any other read.
      try {
        const state = await consumeApi("apiRead", clientKey(req));
        res.setHeader("RateLimit-Remaining", String(state.remaining));
        res.setHeader("RateLimit-Reset", String(state.resetSeconds));
      } catch (error) {
        if (error instanceof RateLimitedError) return false;
        throw error;
      }
    }
    for (const [name, value] of entry.headers) res.setHeader(name, value);
    res.setHeader("X-Cache", "hit");
    if (entry.etag && req.headers["if-none-match"] === entry.etag) {
      res.status(304).end();
      return true;
    }
    const nonce = Buffer.from(String(res.locals.cspNonce));
    const body = Buffer.concat(entry.pieces.flatMap((piece, index) => (index === 0 ? [piece] : [nonce, piece])));
    // end(), not send(): send() would hash the body for an ETag of its own on every hit.
    res.statusCode = entry.status;
    res.setHeader("Content-Length", body.length);
    res.end(body);
    return true;
  }

  function capture(req: Request, res: Response, key: string): void {
    const version = dataVersion();
    const nonce = String(res.locals.cspNonce);
    const chunks: Buffer[] = [];
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === "function") return;
      chunks.push(
        typeof chunk === "string"
          ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8")
          : Buffer.from(chunk as Uint8Array),
      );
    };
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return write(chunk, ...rest);
    }) as Response["write"];
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return end(chunk, ...rest);
    }) as Response["end"];
    res.on("finish", () => {
      if (res.statusCode !== 200 || res.hasHeader("set-cookie") || dataVersion() !== version) return;
      const cacheControl = String(res.getHeader("cache-control") ?? "");
      if (/no-store|private/.test(cacheControl)) return;
      const headers: Array<[string, string]> = [];
      for (const [name, value] of Object.entries(res.getHeaders())) {
        if (perResponseHeaders.has(name)) continue;
        if (value !== undefined) headers.push([name, Array.isArray(value) ? value.join(", ") : String(value)]);
      }
      const body = Buffer.concat(chunks);
      const etag = res.getHeader("etag");
      entries.set(key, {
        status: 200,
        headers,
        pieces: splitAt(body, Buffer.from(nonce)),
        size: body.length,
        version,
        etag: etag === undefined ? undefined : String(etag),
      });
    });
  }

  return {
    middleware(req, res, next) {
      if (req.method !== "GET" || req.headers.cookie || req.headers.authorization) return next();
      if (!cacheablePaths.some((pattern) => pattern.test(req.path))) return next();
      // React Router's data requests (.data) and the like never match the patterns above.
      const key = req.originalUrl;
      const entry = entries.get(key);
      if (entry && entry.version === dataVersion() && cacheUsable()) {
        serveHit(req, res, entry, req.path.startsWith("/api/")).then(
          (served) => {
            if (!served) next();
          },
          (error: unknown) => next(error),
        );
        return;
      }
      res.setHeader("X-Cache", "miss");
      capture(req, res, key);
      next();
    },
  };
}
