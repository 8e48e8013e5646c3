import { createHash } from "node:crypto";
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { NextFunction, Request, Response } from "express";
import { LRUCache } from "lru-cache";
import { cacheUsable, changeStamp, dataVersion, unchangedSince } from "#app/lib/data-version.server.ts";
import { consumeApi, RateLimitedError } from "#app/lib/rate-limit.server.ts";
import type { SharedReader } from "#app/http/session.server.ts";
import { concurrencyLimit } from "./concurrency.ts";

/**
 * Rendered public pages and API reads for visitors without cookies or credentials, kept in memory so the next
 * visitor gets them without a render or a query (docs/architecture.md, the page cache; decisions 0012 and 0018).
 *
 * A kept answer is fully static: its inline scripts are allowed by their SHA-256 hashes in its own CSP header instead
 * of a per-response nonce, so it is stored once as it is, gzipped and brotli-compressed, with an ETag, and every hit
 * is a copy of stored bytes (or a 304). A page is kept only while nothing it shows has been published since its
 * request began (app/lib/data-version.server.ts: a company's pages go stale when that company changes, lists when
 * anything does; the change channel tells every process within a second), and at most `ttlMs`.
 */

type Encoding = "br" | "gzip" | "identity";

type Entry = {
  status: number;
  /**
   * The headers every hit sends, as writeHead takes them ([name, value, name, value, …]): the stored ones, the CSP of
   * the kept body (the request's nonce replaced by the hashes of its inline scripts), X-Cache and Vary. Made once,
   * when the answer is kept: a hit only adds what depends on the client (its rate limit, the form it accepts).
   */
  headers: readonly string[];
  bodies: Partial<Record<Encoding, Buffer>> & { identity: Buffer };
  /** The quoted ETag of each form: the identity body's, and the compressed bodies' with `-br` or `-gzip`. */
  etags: Readonly<Record<Encoding, string>>;
  tags: string[];
  version: number;
  stamp: number;
  /** The compressed forms are being made (compress()). */
  compressing?: boolean;
  /** A page kept for every signed-in reader: the reviews it shows, whose votes make a reader's view their own. */
  shownReviews?: readonly string[];
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
  /^\/api\/v1\/(companies|managers)\/top$/,
  /^\/api\/v1\/companies\/\d+(\/reviews|\/managers)?$/,
  /^\/api\/v1\/managers\/\d+(\/reviews)?$/,
  /^\/feeds\/(company|manager|country|industry)\/[A-Za-z0-9]+\.(atom|json)$/,
];

/**
 * Pages also kept for signed-in readers (decision 0034): one copy per address for all of them, rendered without
 * any reader's cookies, beside the copy for readers without cookies.
 */
/** Answers per query: most are asked once. */
const perQuery = /^\/(?:search$|api\/)/;

const signedInPaths = [/^\/company\/\d+$/, /^\/manager-profile\/\d+$/];
const signedInCacheControl = "private, no-cache";

/**
 * What an answer shows, for invalidation (app/lib/data-version.server.ts): a company's or a manager's own pages
 * and API reads show that subject; every other kept answer (search, lists, the home page) may show any subject.
 */
export function tagsOf(path: string): string[] {
  const company = /^(?:\/company|\/api\/v1\/companies|\/feeds\/company)\/(\d+)/.exec(path);
  if (company) return [`company:${company[1]}`];
  const manager = /^(?:\/manager-profile|\/api\/v1\/managers|\/feeds\/manager)\/(\d+)/.exec(path);
  if (manager) return [`manager:${manager[1]}`];
  return ["lists"];
}

/**
 * The tags of a search answer of the API, which shows exactly its items: it goes stale when one of them changes or
 * a subject is added (`subjects`), not with every publication. Undefined for any other answer.
 */
export function searchTags(path: string, body: Buffer): string[] | undefined {
  const list = /^\/api\/v1\/(companies|managers)$/.exec(path);
  if (!list) return undefined;
  try {
    const page = JSON.parse(body.toString("utf8")) as { items?: Array<{ id?: unknown }> };
    if (!Array.isArray(page.items) || page.items.some((item) => !Number.isInteger(item?.id))) return undefined;
    const kind = list[1] === "companies" ? "company" : "manager";
    return ["subjects", ...page.items.map((item) => `${kind}:${String(item.id)}`)];
  } catch {
    return undefined;
  }
}

// Headers that belong to one response only (the encoding and length depend on what the client accepts; the CSP of a
// kept answer is its own).
const perResponseHeaders = new Set([
  "content-security-policy",
  "x-cache",
  "set-cookie",
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "date",
  "etag",
  "vary",
  "ratelimit-remaining",
  "ratelimit-reset",
]);

const inlineScript = /<script\b([^>]*)>([\s\S]*?)<\/script>/g;

/**
 * The body without its nonce attributes, and the CSP's script source list with the hashes of the inline scripts in
 * place of the nonce. Undefined when the nonce is anywhere else in the body (nothing static can be made of it).
 */
export function withoutNonce(
  body: Buffer,
  nonce: string,
  policy: string | undefined,
): { body: Buffer; policy: string | undefined } | undefined {
  const text = body.toString("utf8");
  if (!text.includes(nonce)) return { body, policy: policy?.replace(` 'nonce-${nonce}'`, "") };
  const stripped = text.replaceAll(` nonce="${nonce}"`, "");
  if (stripped.includes(nonce)) return undefined;
  const hashes = new Set<string>();
  for (const [, attributes, content] of stripped.matchAll(inlineScript)) {
    if (/\bsrc=/.test(attributes!)) continue;
    hashes.add(`'sha256-${createHash("sha256").update(content!, "utf8").digest("base64")}'`);
  }
  return {
    body: Buffer.from(stripped, "utf8"),
    policy: policy?.replace(`'nonce-${nonce}'`, [...hashes].join(" ")),
  };
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * A body's brotli and gzip forms, each in memory of its own (`ownBytes`). Brotli at quality 5 with a window of
 * 256 KB: within 1% of quality 9's size for a page, at a tenth of its CPU and a fraction of its memory.
 */
export async function compressedForms(body: Buffer): Promise<{ br: Buffer; gzip: Buffer }> {
  const params = {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
    [zlib.constants.BROTLI_PARAM_LGWIN]: 18,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
  };
  const [br, gz] = await Promise.all([brotli(body, { params }), gzip(body, { level: 6 })]);
  return { br: ownBytes(br), gzip: ownBytes(gz) };
}

/**
 * `bytes` in memory of their own size. A kept body lives for minutes, and a slice holds all of what it was cut
 * from: zlib answers with a slice of its 64 KB output chunk, and Node cuts every buffer under 32 KB from a shared
 * 64 KB pool, so each compressed form of a company page (brotli's 11 KB) held 64 KB and a 2 KB search answer
 * could hold as much, where the cache's bound counted their length (docs/performance.md, "The kept search API's
 * tail, and memory the page cache did not count").
 */
export function ownBytes(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.length === bytes.buffer.byteLength) return bytes;
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  copy.set(bytes);
  return copy;
}

/**
 * Compressions of kept bodies run two at a time, each zlib stream made when its turn comes. Started all at once,
 * 500 kept pages first asked for compressed made 1,000 streams within seconds for libuv's four threads, and the
 * server's resident memory rose from 330 to 520 MB; two at a time, from 330 to 343 MB (docs/performance.md, "Memory").
 * At most 1,000 wait (each holds its body): past that a body goes out uncompressed, and a later hit tries again.
 */
const compressionLimit = concurrencyLimit(2, 1000);
// Smaller than this, compression saves less than its headers cost (the compression middleware's own threshold).
const compressAbove = 1024;

/** The encoding to send: br, then gzip, when the client accepts it (a q of 0 refuses) and it is stored. */
export function chooseEncoding(accept: string | undefined, stored: Partial<Record<Encoding, Buffer>>): Encoding {
  if (!accept) return "identity";
  const accepted = new Set<string>();
  for (const part of accept.split(",")) {
    const [name, ...parameters] = part.trim().toLowerCase().split(";");
    const refused = parameters.some((parameter) => /^\s*q=0(\.0*)?\s*$/.test(parameter));
    if (name && !refused) accepted.add(name);
  }
  if (stored.br && (accepted.has("br") || accepted.has("*"))) return "br";
  if (stored.gzip && (accepted.has("gzip") || accepted.has("*"))) return "gzip";
  return "identity";
}

const encodings = ["identity", "br", "gzip"] as const satisfies Encoding[];

const etagsOf = (etag: string): Record<Encoding, string> => ({
  identity: `"${etag}"`,
  br: `"${etag}-br"`,
  gzip: `"${etag}-gzip"`,
});

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  return ifNoneMatch.split(",").some((candidate) => candidate.trim().replace(/^W\//, "") === etag);
}

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

export type PageCache = {
  /**
   * Answers a kept page or API read to a request without cookies, credentials or a body, and passes on every other
   * request. It goes before the middleware that a kept answer does not need (security headers, compression: its
   * stored headers came through them when it was kept), so a hit costs only its own work; `middleware` then keeps
   * what is rendered.
   */
  hits: Middleware;
  /** Keeps rendered answers that may be kept, and serves those `hits` did not look at (signed-in readers). */
  middleware: Middleware;
};

/** What a lookup found (serveKept): nothing kept (render and keep it), or kept but the client is rate-limited. */
type Looked = "miss" | "limited";

/** What the cache asks of the app about a signed-in reader (app/http/vote-key.server.ts). */
export type SignedInReaders = {
  /** The reader of a page view with these cookies when the kept signed-in page may answer it, else null. */
  readerOf: (cookie: string) => Promise<SharedReader | null>;
  /** Whether the holder of the vote key marked any of these reviews helpful. */
  votedForAny: (voteKey: string, reviewIds: readonly string[]) => Promise<boolean>;
};

type Options = {
  /** The client's rate-limit key (an HMAC of its IP), as the API's own handlers compute it. */
  clientKey: (req: Request) => string;
  /** Without it, every request with a cookie is rendered. */
  signedInReaders?: SignedInReaders;
  maxBytes?: number;
  ttlMs?: number;
};

/** Says "miss" to the client and to the request log (which reads `res.locals.cache`, set for hits too). */
function markMiss(res: Response): void {
  res.setHeader("X-Cache", "miss");
  res.locals.cache = "miss";
}

export function createPageCache({
  clientKey,
  signedInReaders,
  maxBytes = 64 * 1024 * 1024,
  ttlMs = 60_000,
}: Options): PageCache {
  const entries = new LRUCache<string, Entry>({
    maxSize: maxBytes,
    sizeCalculation: (entry) =>
      entry.bodies.identity.length + (entry.bodies.br?.length ?? 0) + (entry.bodies.gzip?.length ?? 0) + 1024,
    ttl: ttlMs,
  });
  const fresh = (entry: Entry) =>
    entry.version === dataVersion() && unchangedSince(entry.stamp, entry.tags) && cacheUsable();

  async function serveHit(req: Request, res: Response, key: string, entry: Entry, isApi: boolean): Promise<boolean> {
    // Every header in one writeHead: a hit before helmet has none set yet, so none is stored twice.
    let limits: string[] = [];
    if (isApi) {
      // Cached API reads count against the client's rate limit like any other read.
      try {
        const state = await consumeApi("apiRead", clientKey(req));
        limits = ["RateLimit-Remaining", String(state.remaining), "RateLimit-Reset", String(state.resetSeconds)];
      } catch (error) {
        if (error instanceof RateLimitedError) return false;
        throw error;
      }
    }
    // A signed-in reader's hit comes after helmet, whose policy carries a nonce the kept page does not.
    res.removeHeader("Content-Security-Policy");
    res.locals.cache = "hit";
    const accept = req.headers["accept-encoding"];
    const encoding = chooseEncoding(accept, entry.bodies);
    // The compressed forms are made once per kept body, when it is kept for a client that accepts them or at the
    // first hit that does (an answer asked for once, like most searches, never costs a compression). The
    // few hits that come while they are being made get the identity body as it is: compressing it for each of them
    // on the fly cost more CPU than all the other work of a hit.
    if (accept !== undefined) compress(key, entry);
    if (encoding === "identity") res.locals.uncompressed = true;
    // A client (or a shared cache) holding any form of this content may keep it: the 304 names the form it holds.
    const ifNoneMatch = req.headers["if-none-match"];
    const held = ifNoneMatch && encodings.find((form) => matches(ifNoneMatch, entry.etags[form]));
    if (held) {
      res.writeHead(304, [...limits, ...entry.headers, "ETag", entry.etags[held]]).end();
      return true;
    }
    const body = entry.bodies[encoding]!;
    // A Content-Encoding set here makes the compression middleware leave the stored bytes as they are.
    const encoded = encoding === "identity" ? [] : ["Content-Encoding", encoding];
    res
      .writeHead(entry.status, [
        ...limits,
        ...entry.headers,
        "ETag",
        entry.etags[encoding],
        ...encoded,
        "Content-Length",
        String(body.length),
      ])
      .end(body);
    return true;
  }

  /** Stores the compressed forms beside the kept body, in zlib's threads, unless the entry was replaced meanwhile. */
  function compress(key: string, entry: Entry): void {
    if (entry.compressing || entry.bodies.identity.length < compressAbove) return;
    entry.compressing = true;
    compressionLimit(async () =>
      // Replaced or dropped while it waited: nothing to do.
      entries.peek(key) === entry ? compressedForms(entry.bodies.identity) : undefined,
    ).then(
      (compressed) => {
        if (!compressed || entries.peek(key) !== entry) return;
        entry.bodies.br = compressed.br;
        entry.bodies.gzip = compressed.gzip;
        // Set again so that the LRU counts the compressed bodies' size.
        entries.set(key, entry);
      },
      () => {
        // Sent as kept meanwhile; a later hit tries again.
        entry.compressing = false;
      },
    );
  }

  /**
   * Captures the answer being rendered and keeps it when it may be. `shared`: the page for every signed-in reader,
   * kept only when the reader voted for none of its reviews (then it is the same for all of them).
   */
  function capture(req: Request, res: Response, key: string, shared?: SharedReader): void {
    const version = dataVersion();
    const stamp = changeStamp();
    let tags = tagsOf(req.path);
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
      // Kept before the last bytes go out, not on "finish": that event can come after the client has read the whole
      // answer and sent its next request on the same connection, which would then find nothing kept. The body is
      // whole here: a render that fails destroys the response instead of ending it.
      res.end = end as Response["end"];
      keepAnswer();
      return end(chunk, ...rest);
    }) as Response["end"];
    const keepAnswer = () => {
      if (res.statusCode !== 200 || res.hasHeader("set-cookie")) return;
      if (shared && (shared.personal || !shared.shownReviews)) return;
      if (dataVersion() !== version || !unchangedSince(stamp, tags)) return;
      // The page for every signed-in reader is private to them as a group: kept here, never by a shared cache.
      const cacheControl = String(res.getHeader("cache-control") ?? "");
      if (/no-store/.test(cacheControl) || (!shared && /private/.test(cacheControl))) return;
      const headers: string[] = [];
      for (const [name, value] of Object.entries(res.getHeaders())) {
        if (perResponseHeaders.has(name)) continue;
        if (value !== undefined) headers.push(name, Array.isArray(value) ? value.join(", ") : String(value));
      }
      const policy = res.getHeader("content-security-policy");
      const kept = withoutNonce(Buffer.concat(chunks), nonce, policy === undefined ? undefined : String(policy));
      if (!kept) return;
      if (kept.policy) headers.push("Content-Security-Policy", kept.policy);
      headers.push("X-Cache", "hit", "Vary", "Accept-Encoding");
      tags = searchTags(req.path, kept.body) ?? tags;
      if (!unchangedSince(stamp, tags)) return;
      const own = res.getHeader("etag");
      const etag =
        own === undefined
          ? createHash("sha1").update(kept.body).digest("base64url")
          : String(own).replace(/^W\//, "").replaceAll('"', "");
      const entry: Entry = {
        status: 200,
        headers,
        bodies: { identity: ownBytes(kept.body) },
        etags: etagsOf(etag),
        tags,
        version,
        stamp,
        ...(shared ? { shownReviews: shared.shownReviews } : {}),
      };
      entries.set(key, entry);
      // A page readers come back to is compressed as it is kept; a search's answer (mostly asked once) at its first
      // hit, if it has one.
      if (req.headers["accept-encoding"] !== undefined && !perQuery.test(req.path)) compress(key, entry);
    };
  }

  /**
   * A page view with cookies (decision 0034). A reader with a valid session and no one-view cookie gets the page kept
   * for every signed-in reader, unless they voted for one of the reviews it shows: then their own page is rendered, as
   * is every other request with cookies. On a miss the page is rendered without the request's cookies, as the page
   * for any signed-in reader, and kept.
   */
  async function signedIn(req: Request, res: Response, next: NextFunction, readers: SignedInReaders): Promise<void> {
    const reader = await readers.readerOf(req.headers.cookie!);
    if (!reader) return next();
    const key = `signed-in ${req.originalUrl}`;
    const entry = entries.get(key);
    if (entry && fresh(entry)) {
      const ids = entry.shownReviews ?? [];
      if (reader.voteKey && ids.length > 0 && (await readers.votedForAny(reader.voteKey, ids))) return next();
      await serveHit(req, res, key, entry, false);
      return;
    }
    markMiss(res);
    res.locals.sharedReader = reader;
    // Kept with the page and sent with every hit: a browser may keep it and ask again (ETag), a shared cache (a CDN,
    // a company proxy) keeps none of it, so a signed-out reader behind it never gets the signed-in page.
    res.setHeader("Cache-Control", signedInCacheControl);
    delete req.headers.cookie;
    capture(req, res, key, reader);
    next();
  }

  /**
   * A request without cookies for a path that may be kept: answered with the kept answer when it is fresh, else
   * passed on with what was found in `res.locals.pageCache` (for `afterLookup`).
   */
  function serveKept(req: Request, res: Response, next: NextFunction): void {
    const key = req.originalUrl;
    const entry = entries.get(key);
    if (!entry || !fresh(entry)) {
      res.locals.pageCache = "miss" satisfies Looked;
      return next();
    }
    serveHit(req, res, key, entry, req.path.startsWith("/api/")).then(
      (served) => {
        if (served) return;
        res.locals.pageCache = "limited" satisfies Looked;
        next();
      },
      (error: unknown) => next(error),
    );
  }

  /** After a lookup that found nothing kept: the answer is rendered, and kept when it may be. */
  function afterLookup(req: Request, res: Response, next: NextFunction): void {
    if ((res.locals.pageCache as Looked) === "miss") {
      markMiss(res);
      capture(req, res, req.originalUrl);
    }
    next();
  }

  return {
    hits(req, res, next) {
      if (req.method !== "GET" || req.headers.authorization || req.headers.cookie) return next();
      // A request with a body goes the whole way, through the body's size limit (server/body-limit.ts).
      if (req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined) return next();
      if (!cacheablePaths.some((pattern) => pattern.test(req.path))) return next();
      serveKept(req, res, next);
    },
    middleware(req, res, next) {
      if (res.locals.pageCache !== undefined) return afterLookup(req, res, next);
      if (req.method !== "GET" || req.headers.authorization) return next();
      if (req.headers.cookie) {
        if (!signedInReaders || !signedInPaths.some((pattern) => pattern.test(req.path))) return next();
        signedIn(req, res, next, signedInReaders).catch((error: unknown) => next(error));
        return;
      }
      // React Router's data requests (.data) and the like never match the patterns.
      if (!cacheablePaths.some((pattern) => pattern.test(req.path))) return next();
      // A request with a body, which `hits` left to the body's size limit.
      serveKept(req, res, (error?: unknown) => (error === undefined ? afterLookup(req, res, next) : next(error)));
    },
  };
}
