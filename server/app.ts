import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { createRequestHandler } from "@react-router/express";
import compression from "compression";
import express from "express";
import helmet from "helmet";
import { RouterContextProvider, type ServerBuild } from "react-router";
import { database, startDatabase, stopDatabase } from "#app/db/database.server.ts";
import { generateDemoData, isEmpty } from "#app/db/demo-data.server.ts";
import { isDatabaseUnavailable, unavailableRetryAfterSeconds } from "#app/db/unavailable.server.ts";
import { startAuth, stopAuth } from "#app/domain/auth.server.ts";
import { backgroundSettled } from "#app/lib/background.server.ts";
import { clientContext, hashIdentifier } from "#app/http/client.server.ts";
import { env } from "#app/lib/env.server.ts";
import { pooledRandomBytes } from "#app/lib/random.server.ts";
import { logger, requestLogger } from "#app/lib/logger.server.ts";
import { contributionMessages } from "#app/lib/messages.ts";
import { answeredContext, cspNonceContext } from "#app/http/request-context.server.ts";
import { type SharedReader, sharedReaderContext } from "#app/http/session.server.ts";
import { sharedReaderOf, votedForAny } from "#app/http/vote-key.server.ts";
import { serverSecret } from "#app/db/secret.server.ts";
import { isBodyTooLarge } from "#app/http/api-request.server.ts";
import { apiAnswers } from "./api.ts";
import { limitBodySize } from "./body-limit.ts";
import { refuseUnimplementedMethods } from "./methods.ts";
import { prepareQueueKeys, publicationSettings } from "#app/domain/publication.server.ts";
import { createPageCache } from "./page-cache.ts";
import { watchReplica } from "#app/db/replica-health.server.ts";
import { readiness } from "#app/http/readiness.server.ts";
import { answerMetricsRequests, recordRequest, watchPool } from "#app/lib/metrics.server.ts";

export { metricsText } from "#app/lib/metrics.server.ts";
import { startPeerRanking, startPublishing, startSignalScans } from "./publisher.ts";
import { startSharedState } from "./shared-state.ts";
import { requireSameOrigin } from "./same-origin.ts";
import { serverTiming } from "./server-timing.ts";
import { isForSearchEngines } from "#app/lib/seo.ts";
import { pathWithoutIds, staticSegments } from "./request-log.ts";

/** Demo data on the first start: always when asked, never when refused, and by default on SQLite only. */
async function loadDemoDataIfWanted(): Promise<void> {
  const { DEMO_DATA } = env();
  const { db, engine } = database();
  if (DEMO_DATA === "never" || (DEMO_DATA === "auto" && engine !== "sqlite")) return;
  if (!(await isEmpty(db))) return;
  const summary = await generateDemoData(db, { companies: 50 });
  logger.info(summary, "loaded demo data into the empty database (DEMO_DATA=never turns this off)");
}

let publishing: { stop: () => Promise<void> } | undefined;
let scanning: { stop: () => Promise<void> } | undefined;
let ranking: { stop: () => Promise<void> } | undefined;
let sharedState: { stop: () => Promise<void> } | undefined;
let replicaWatch: { stop: () => void } | undefined;

/**
 * Opens the database, applies migrations and loads demo data when the database is new; destroys the queue keys a
 * crash left behind and refuses to start without the queue's key (a QUEUE_KEY_DIR the other processes do not share);
 * starts publishing queued reviews on their schedule (none with PUBLISH_INTERVAL=0: then each
 * submission is published before it is answered), the daily manipulation scan unless MANIPULATION_CHECKS=off, and
 * the ranking of subjects among their peers unless PEER_RANKING=off.
 */
export async function start(): Promise<void> {
  const secret = serverSecret();
  const handle = await startDatabase();
  startAuth(handle, secret);
  if (!replicaWatch) {
    answerMetricsRequests();
    if (handle.pool) watchPool("primary", handle.pool);
    if (handle.readPool) watchPool("replica", handle.readPool);
    replicaWatch = watchReplica(handle, logger);
  }
  const { DATABASE_URL, REDIS_URL } = env();
  sharedState ??= await startSharedState({ handle, databaseUrl: DATABASE_URL, redisUrl: REDIS_URL, logger });
  await loadDemoDataIfWanted();
  const settings = publicationSettings();
  await prepareQueueKeys(handle.db, settings);
  if (settings.intervalSeconds > 0) publishing ??= startPublishing({ db: handle.db, secret, settings, logger });
  if (settings.signalChecks) scanning ??= startSignalScans({ db: handle.db, settings, logger });
  if (env().PEER_RANKING === "on") ranking ??= startPeerRanking({ db: handle.db, logger });
}

export async function stop(): Promise<void> {
  // A reset mail asked for just before the signal is still sent.
  await backgroundSettled();
  await publishing?.stop();
  publishing = undefined;
  await scanning?.stop();
  scanning = undefined;
  await ranking?.stop();
  ranking = undefined;
  await sharedState?.stop();
  sharedState = undefined;
  replicaWatch?.stop();
  replicaWatch = undefined;
  stopAuth();
  await stopDatabase();
}

// CSP nonces: 16 random bytes each from the CSPRNG, each serving one response only.
function newNonce(): string {
  return pooledRandomBytes(16).toString("base64");
}

type Options = {
  /** The React Router server build: the virtual module in production, Vite's module loader in development. */
  build: ServerBuild | (() => Promise<ServerBuild>);
  production: boolean;
  /** Vite's client build output, served by us in production (hashed assets cached for a year). */
  clientDir?: string;
};

export function createApp({ build, production, clientDir }: Options): express.Express {
  const app = express();
  app.disable("x-powered-by");
  // req.ip is the socket's address, or the first untrusted hop of X-Forwarded-For behind TRUSTED_PROXIES.
  const { TRUSTED_PROXIES } = env();
  app.set("trust proxy", TRUSTED_PROXIES.length > 0 ? TRUSTED_PROXIES : false);
  const secret = serverSecret();
  const clientKey = (req: express.Request) => hashIdentifier(secret, "ip", req.ip ?? "unknown");

  // The words of the routes' paths, for the request log (server/request-log.ts); in development, once Vite has
  // loaded the build, and until then no segment is known (every one is written as `:id`).
  let words: ReadonlySet<string> = new Set();
  if (typeof build === "function") {
    Promise.resolve(build()).then(
      (loaded) => (words = staticSegments(loaded)),
      () => undefined, // Vite shows what failed to load; every segment stays `:id`.
    );
  } else words = staticSegments(build);
  const routeWords = () => words;

  if (env().SERVER_TIMING) app.use(serverTiming());
  app.use((req, res, next) => {
    res.locals.requestId = randomUUID();
    const started = performance.now();
    // Read now: the page cache takes the cookies off a request it renders as the page for every signed-in reader.
    const withCookies = Boolean(req.headers.cookie);
    res.on("finish", () => {
      const ms = performance.now() - started;
      // Reads only, and their duration and cache result only without cookies, as below (app/lib/metrics.server.ts).
      recordRequest({
        method: req.method,
        path: req.path,
        status: res.statusCode,
        seconds: withCookies ? undefined : ms / 1000,
        cache: res.locals.cache as string | undefined,
      });
      // Method, route pattern and status only: no IP, no cookie, no body (docs/data-model.md, what is never stored),
      // and no id of the address nor of the request, dated to the minute (decision 0051): "a review of company 4 was
      // sent at 10:02:17.345" would date that review finer than its publication batch, and a reader's pages would
      // tell what they read.
      requestLogger.info(
        {
          method: req.method,
          path: pathWithoutIds(req.path, routeWords()),
          status: res.statusCode,
          // Duration and hit or miss (the benchmark counts them from this log) only for requests without cookies: for a
          // signed-in reader they would tell the page kept for every reader from one rendered for them because they
          // voted for a review it shows (decision 0034), and the log could be matched with their session's refresh.
          ...(withCookies ? {} : { ms: Math.round(ms), cache: res.locals.cache }),
        },
        "request",
      );
    });
    next();
  });
  // Production only: in development Vite reloads the app's modules, so writes could not reach the cache.
  const pageCache = production
    ? createPageCache({ clientKey, signedInReaders: { readerOf: sharedReaderOf, votedForAny } })
    : undefined;
  // Kept answers go out before the headers and compression below: they were stored with them (server/page-cache.ts).
  if (pageCache) app.use(pageCache.hits);
  app.use((_req, res, next) => {
    res.locals.cspNonce = newNonce();
    next();
  });
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          // Every inline script carries the request's nonce; nothing else runs. Vite's dev client needs more.
          scriptSrc: production
            ? ["'self'", (_req, res) => `'nonce-${(res as express.Response).locals.cspNonce}'`]
            : ["'self'", "'unsafe-inline'"],
          styleSrc: production ? ["'self'"] : ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", "data:"],
          fontSrc: ["'self'"],
          connectSrc: production ? ["'self'"] : ["'self'", "ws:"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          objectSrc: ["'none'"],
          baseUri: ["'self'"],
          upgradeInsecureRequests: env().HSTS ? [] : null,
        },
      },
      strictTransportSecurity: env().HSTS ? { maxAge: 31_536_000, includeSubDomains: true } : false,
      referrerPolicy: { policy: "strict-origin-when-cross-origin" },
      crossOriginEmbedderPolicy: false,
    }),
  );
  app.use((_req, res, next) => {
    res.setHeader("Permissions-Policy", "camera=(), microphone=(), geolocation=(), interest-cohort=()");
    next();
  });
  // A kept page whose compressed forms are still being made goes out as it is (server/page-cache.ts).
  app.use(compression({ filter: (req, res) => res.locals.uncompressed !== true && compression.filter(req, res) }));
  if (clientDir) {
    app.use("/assets", express.static(`${clientDir}/assets`, { immutable: true, maxAge: "1y", index: false }));
    // The few top-level files (favicon, robots.txt) by name: a stat() per request for every page would cost more.
    const topLevel = new Set(
      fs
        .readdirSync(clientDir, { withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => `/${entry.name}`),
    );
    const serveTopLevel = express.static(clientDir, { maxAge: "1h", index: false });
    app.use((req, res, next) => (topLevel.has(req.path) ? serveTopLevel(req, res, next) : next()));
  }

  // Before anything that could read a body, or answer without reading it (which would leave node draining it).
  app.use(limitBodySize());
  app.use(refuseUnimplementedMethods);
  // Forms, the account and the API answer noindex, redirects included (app/lib/seo.ts).
  app.use((req, res, next) => {
    if (!isForSearchEngines(req.path)) res.setHeader("X-Robots-Tag", "noindex");
    next();
  });
  app.use(requireSameOrigin);

  app.get("/healthz", async (_req, res) => {
    try {
      await database().db.selectFrom("companies").select("id").limit(1).execute();
      res.set("Cache-Control", "no-store").json({ status: "ok" });
    } catch {
      res
        .status(503)
        .set({ "Cache-Control": "no-store", "Retry-After": String(unavailableRetryAfterSeconds) })
        .json({ status: "unavailable" });
    }
  });

  // Readiness (app/http/readiness.server.ts): what the proxies in front follow; /healthz above stays liveness.
  app.get("/readyz", async (_req, res) => {
    const { ready, checks } = await readiness();
    res
      .status(ready ? 200 : 503)
      .set("Cache-Control", "no-store")
      .json({ status: ready ? "ready" : "unready", checks });
  });

  if (pageCache) app.use(pageCache.middleware);
  app.use(apiAnswers(build, clientKey));
  // A page rendered for a request with cookies may be the reader's own (the account page with its e-mail address, a
  // two-factor set-up, a note shown once): no cache keeps it, the browser's included. The page kept for every
  // signed-in reader is rendered without the cookies (server/page-cache.ts), so it stays cacheable like the others.
  app.use((req, res, next) => {
    if (req.headers.cookie) res.setHeader("Cache-Control", "private, no-store");
    next();
  });

  app.use(
    createRequestHandler({
      build,
      mode: production ? "production" : "development",
      getLoadContext(req, res) {
        const context = new RouterContextProvider();
        context.set(cspNonceContext, String(res.locals.cspNonce));
        context.set(clientContext, { ipKey: clientKey(req) });
        // The page kept for every signed-in reader, rendered without the request's cookies (server/page-cache.ts).
        const shared = res.locals.sharedReader as SharedReader | undefined;
        if (shared) context.set(sharedReaderContext, shared);
        // "close" follows "finish" (the last byte handed to the connection), or comes alone when the client left.
        context.set(answeredContext, new Promise<void>((resolve) => res.once("close", () => resolve())));
        return context;
      },
    }),
  );

  app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    if (isBodyTooLarge(error)) return; // answered 413 already, by limitBodySize
    if (isDatabaseUnavailable(error)) {
      logger.warn({ err: error, requestId: res.locals.requestId }, "request while the database is unavailable");
      if (res.headersSent) return;
      res.status(503).set("Retry-After", String(unavailableRetryAfterSeconds)).type("text/plain");
      res.send(contributionMessages.unavailable);
      return;
    }
    logger.error({ err: error, requestId: res.locals.requestId }, "unhandled error");
    if (res.headersSent) return;
    res.status(500).type("text/plain").send(`Something went wrong. Reference: ${res.locals.requestId}`);
  });
  return app;
}

/** The production app, built around the React Router server build that Vite bundles with this file. */
export async function createProductionApp(): Promise<express.Express> {
  // A virtual module that React Router's Vite plugin provides at build time.
  const build = (await import("virtual:react-router/server-build")) as ServerBuild;
  return createApp({ build, production: true, clientDir: new URL("../client", import.meta.url).pathname });
}
