import type express from "express";
import { RouterContextProvider, type ServerBuild } from "react-router";
import { isBodyTooLarge } from "#app/http/api-request.server.ts";
import { apiFailure } from "#app/http/api.server.ts";
import { TextResponse } from "#app/http/text-response.server.ts";
import { clientContext } from "#app/http/client.server.ts";
import { accountContext, loadAccount } from "#app/http/session.server.ts";

/**
 * The JSON API's addresses, answered without React Router's request handling
 * (docs/decisions/0036-the-json-api-answered-beside-react-router.md). Its route modules (app/routes/api/v1) stay
 * React Router resource routes, declared in app/routes.ts and built with the app; a request under /api/v1/ is
 * matched against them here, ranked and matched as React Router does, and their loader or action is called as React
 * Router calls it: the same Fetch `Request`, the same params, a context with the client's rate-limit key and the
 * account of a session cookie (what the root middleware gives every route). What this leaves out is what an API
 * answer does not use: the middleware pipeline and its data strategy, the root's one-time notes (an API answer shows
 * none, so they stay for the next page), and the answer's body streamed back in pieces. What escapes a route is
 * answered as the API answers its own failures (problem details: 503 while the database is unreachable, else a
 * logged 500).
 *
 * Anything this does not answer the way React Router would (a method React Router refuses, a route without the
 * handler the method needs, a single-fetch `.data` address) goes on to React Router.
 */

type Handler = (args: {
  request: Request;
  params: Record<string, string | undefined>;
  context: RouterContextProvider;
}) => Promise<Response> | Response;

type ApiRoute = { id: string; handlers: { loader?: Handler; action?: Handler } };

/** A route with its path compiled once, as React Router compiles it for every request it matches. */
type CompiledRoute = { route: ApiRoute; matcher: RegExp; params: string[] };

const prefix = "/api/v1/";
const mutations = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const reads = new Set(["GET", "HEAD", "OPTIONS"]);

const routesOfBuild = new WeakMap<ServerBuild, CompiledRoute[]>();

/**
 * A path's rank, as React Router ranks routes: a point per segment, 10 more for a static one, 3 for a parameter, 1
 * for an empty one, 2 fewer for a splat. Higher ranks are tried first; equal ones in the order they are declared.
 */
function rank(path: string): number {
  const segments = path.split("/");
  const splat = segments.includes("*");
  return segments
    .filter((segment) => segment !== "*")
    .reduce(
      (score, segment) => score + (/^:[\w-]+$/.test(segment) ? 3 : segment === "" ? 1 : 10),
      segments.length + (splat ? -2 : 0),
    );
}

/**
 * A path's matcher, as React Router's compilePath makes it for a whole path: static segments, `:name` parameters and
 * a final `*`, which is all the API's paths use (any other pattern is refused when the routes are read).
 */
function compile(path: string, caseSensitive: boolean): Pick<CompiledRoute, "matcher" | "params"> {
  if (!/^(\/(:?[\w-]+|[\w.-]+))*(\/\*)?$/.test(path)) throw new Error(`API route path not supported here: ${path}`);
  const params: string[] = [];
  let source = `^${path
    .replace(/\/*\*?$/, "")
    .replace(/[\\.*+^${}|()[\]]/g, "\\$&")
    .replace(/\/:([\w-]+)/g, (_, name: string) => {
      params.push(name);
      return "/([^\\/]+)";
    })}`;
  if (path.endsWith("*")) {
    params.push("*");
    source += "(?:\\/(.+)|\\/*)$";
  } else {
    source += "\\/*$";
  }
  return { matcher: new RegExp(source, caseSensitive ? undefined : "i"), params };
}

/** The build's routes under /api/v1/, with their whole paths (a route's path is relative to its parent's), ranked. */
function apiRoutes(build: ServerBuild): CompiledRoute[] {
  let routes = routesOfBuild.get(build);
  if (routes) return routes;
  const pathOf = (id: string | undefined): string => {
    const route = id === undefined ? undefined : build.routes[id];
    if (!route) return "";
    const parent = pathOf(route.parentId);
    return route.path ? `${parent}/${route.path}` : parent;
  };
  routes = Object.values(build.routes)
    .filter((route) => route !== undefined)
    .map((route) => ({ route, path: pathOf(route.id) }))
    .filter(({ path }) => path.startsWith(prefix))
    .map(({ route, path }) => ({
      score: rank(path),
      compiled: {
        route: { id: route.id, handlers: route.module as ApiRoute["handlers"] },
        ...compile(path, route.caseSensitive ?? false),
      },
    }))
    // A stable sort: equal ranks keep the order they are declared in.
    .sort((a, b) => b.score - a.score)
    .map(({ compiled }) => compiled);
  routesOfBuild.set(build, routes);
  return routes;
}

/**
 * The API route a pathname matches and its parameters, as React Router's matchRoutes finds them (each segment
 * decoded, "/" inside one kept as %2F; tested against it in api.test.ts), without ranking and compiling every route
 * again for each request, which took 65 µs.
 */
export function matchApiRoute(
  build: ServerBuild,
  pathname: string,
): { route: ApiRoute; params: Record<string, string> } | undefined {
  let decoded = pathname;
  try {
    decoded = pathname
      .split("/")
      .map((segment) => decodeURIComponent(segment).replace(/\//g, "%2F"))
      .join("/");
  } catch {
    // A malformed escape: React Router matches the path as it came.
  }
  for (const { route, matcher, params } of apiRoutes(build)) {
    const found = matcher.exec(decoded);
    if (!found) continue;
    const values: Record<string, string> = {};
    params.forEach((name, index) => {
      values[name] = (found[index + 1] ?? "").replace(/%2F/g, "/");
    });
    return { route, params: values };
  }
  return undefined;
}

/** The request's address as React Router's Express adapter makes it (X-Forwarded-Host only behind a trusted proxy). */
function urlOf(req: express.Request): URL {
  const [, forwardedPort] = req.app.enabled("trust proxy") ? (req.get("X-Forwarded-Host")?.split(":") ?? []) : [];
  const [, hostPort] = req.get("host")?.split(":") ?? [];
  const port = [forwardedPort, hostPort].map((value) => Number.parseInt(value ?? "", 10)).find(Number.isSafeInteger);
  const host = `${req.hostname.split(/[\\/?#@]/)[0] || "localhost"}${port ? `:${port}` : ""}`;
  return new URL(`${req.protocol}://${host}${req.originalUrl}`);
}

/**
 * A Fetch `Request` whose body stays in the Node request until a route reads it: `text()`, `json()`, `bytes()`,
 * `arrayBuffer()`, `blob()` and `formData()` read it whole, once, as a Buffer. React Router's adapter makes a web
 * stream of it instead: without that bridge, 754–759 submissions a second against 706–756 at 10k (decision 0036).
 * `body` is null, so readers of the body go through those methods (app/http/api-request.server.ts does). The size
 * limit stays server/body-limit.ts's: a body cut off there fails the read with its BodyTooLargeError. A GET or HEAD
 * has no body, as in Fetch.
 *
 * Its `signal` is the given one as it is: a signal passed to the `Request` constructor is followed by a new one of
 * its own, with a listener and a finalizer for each request (7 of the 10 µs the constructor takes).
 */
class NodeBodyRequest extends Request {
  readonly #node: express.Request;
  readonly #signal: AbortSignal;
  #used = false;

  constructor(url: string, init: RequestInit, node: express.Request, signal: AbortSignal) {
    super(url, init);
    this.#node = node;
    this.#signal = signal;
  }

  override get signal(): AbortSignal {
    return this.#signal;
  }

  override get bodyUsed(): boolean {
    return this.#used;
  }

  async #read(): Promise<Buffer> {
    // No body: read as empty, as often as asked, as Fetch reads a null body.
    if (this.method === "GET" || this.method === "HEAD") return Buffer.alloc(0);
    if (this.#used) throw new TypeError("Body is unusable: Body has already been read");
    this.#used = true;
    const node = this.#node;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      node.on("data", (chunk: Buffer) => chunks.push(chunk));
      node.once("end", () => resolve(Buffer.concat(chunks)));
      node.once("error", reject);
      // After "end" this changes nothing; before it, the client left with its body unfinished.
      node.once("close", () => reject(new Error("The client closed the connection before its body arrived.")));
    });
  }

  override async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    // A copy of its own: a Buffer may share its memory with others.
    return new Uint8Array(await this.#read());
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer;
  }

  override async text(): Promise<string> {
    return new TextDecoder().decode(await this.#read());
  }

  override async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  override async blob(): Promise<Blob> {
    return new Response(await this.bytes(), { headers: this.headers }).blob();
  }

  override async formData(): Promise<FormData> {
    return new Response(await this.bytes(), { headers: this.headers }).formData();
  }

  override clone(): Request {
    throw new TypeError("A request answered beside React Router cannot be cloned: read its body once.");
  }
}

function fetchRequest(req: express.Request, res: express.Response, url: URL): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const each of value) headers.append(name, each);
    else if (value !== undefined) headers.set(name, value);
  }
  // Aborted when the client goes away before its answer is written, as React Router's adapter does.
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return new NodeBodyRequest(url.href, { method: req.method, headers }, req, controller.signal);
}

/**
 * Express middleware answering /api/v1/ from the build's API route modules. `clientKey` is the client's rate-limit
 * key, as React Router's load context gives it to every route.
 */
export function apiAnswers(
  build: ServerBuild | (() => Promise<ServerBuild>),
  clientKey: (req: express.Request) => string,
): express.RequestHandler {
  return async (req, res, next) => {
    try {
      if (!req.path.startsWith(prefix) || req.path.endsWith(".data")) return next();
      const method = req.method;
      if (!mutations.has(method) && !reads.has(method)) return next();
      const current = typeof build === "function" ? await build() : build;
      const url = urlOf(req);
      const match = matchApiRoute(current, url.pathname);
      const handler = match && (mutations.has(method) ? match.route.handlers.action : match.route.handlers.loader);
      if (!match || !handler) return next();

      const request = fetchRequest(req, res, url);
      let response: Response;
      try {
        const context = new RouterContextProvider();
        context.set(clientContext, { ipKey: clientKey(req) });
        context.set(accountContext, await loadAccount(request));
        response = await handler({ request, params: match.params, context });
      } catch (thrown) {
        // Nobody left to answer, or answered already (413) by the body's size limit.
        if (request.signal.aborted || isBodyTooLarge(thrown)) return;
        // A thrown Response is the answer, as in React Router; anything else a problem (503 or a logged 500).
        response = thrown instanceof Response ? thrown : apiFailure(thrown);
      }
      if (res.destroyed || res.writableEnded) return;
      res.statusMessage = response.statusText;
      res.status(response.status);
      for (const [name, value] of response.headers) res.append(name, value);
      if (method === "HEAD") return void res.end();
      // Every API answer is one JSON document: written whole, with its length, rather than streamed in pieces. The
      // length is set here: the compression middleware sends the headers before `end` could set it, and an answer
      // it leaves as it is (below its threshold) would go out chunked. One it compresses loses the header there.
      const text = response instanceof TextResponse ? response.untouchedText : undefined;
      const body =
        text !== undefined ? Buffer.from(text) : response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
      if (body) res.setHeader("Content-Length", body.length);
      res.end(body);
    } catch (error) {
      next(error);
    }
  };
}
