import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import compression from "compression";
import express from "express";
import { matchRoutes, type ServerBuild } from "react-router";
import { describe, expect, it } from "vitest";
import { TextResponse } from "#app/http/text-response.server.ts";
import routeConfig from "#app/routes.ts";
import { apiAnswers, matchApiRoute } from "./api.ts";
import { limitBodySize } from "./body-limit.ts";

type Entry = { id?: string; file: string; path?: string; index?: boolean; children?: Entry[] };

/** The app's routes as a server build lists them: each under the root, its id its file without the extension. */
function buildOf(entries: Entry[]): ServerBuild {
  const routes: Record<string, unknown> = { root: { id: "root", path: "", module: {} } };
  for (const entry of entries) {
    const id = entry.id ?? entry.file.replace(/\.[jt]sx?$/, "");
    routes[id] = { id, parentId: "root", path: entry.path, index: entry.index, module: { id } };
  }
  return { routes } as unknown as ServerBuild;
}

const build = buildOf(routeConfig as Entry[]);
// React Router's own matching over the whole route table, as its request handler does it.
const tree = [
  {
    id: "root",
    path: "",
    children: (routeConfig as Entry[]).map((entry) => ({
      id: entry.id ?? entry.file.replace(/\.[jt]sx?$/, ""),
      path: entry.path,
      index: entry.index,
    })),
  },
];

function reactRouters(pathname: string) {
  const match = matchRoutes(tree, pathname)?.at(-1);
  return match && { id: match.route.id, params: { ...match.params } };
}

function ours(pathname: string) {
  const match = matchApiRoute(build, pathname);
  return match && { id: match.route.id, params: match.params };
}

const pathnames = [
  "/api/v1/companies",
  "/api/v1/companies/",
  "/api/v1/companies/12",
  "/api/v1/companies/12/reviews",
  "/api/v1/companies/12/reviews/",
  "/api/v1/companies/12/managers",
  "/api/v1/companies/suggestions",
  "/api/v1/companies/top",
  "/api/v1/COMPANIES/top",
  "/api/v1/companies/abc",
  "/api/v1/companies/%31%32/reviews",
  "/api/v1/companies/a%2Fb/reviews",
  "/api/v1/companies/%E0%A4%A/reviews",
  "/api/v1/companies/12/reviews/extra",
  "/api/v1/managers/7",
  "/api/v1/managers/7/reviews",
  "/api/v1/managers/7/review-tokens",
  "/api/v1/managers/7/token-reviews",
  "/api/v1/managers/top",
  "/api/v1/countries",
  "/api/v1/countries/DE/cities",
  "/api/v1/countries/de%20x/cities",
  "/api/v1/review-tokens/key",
  "/api/v1/reviews/abc-123/reports",
  "/api/v1/helpful-votes",
  "/api/v1/moderation/queue",
  "/api/v1/auth/token",
  "/api/v1/openapi.json",
  "/api/v1/openapiXjson",
  "/api/v1/nothing/here",
  "/api/v1/",
  "/api/v1//companies",
];

describe("matching an API address", () => {
  it("finds the route and parameters React Router's matchRoutes finds, for every kind of address", () => {
    for (const pathname of pathnames) expect(ours(pathname), pathname).toEqual(reactRouters(pathname));
  });

  it("reaches every API route of app/routes.ts, and nothing outside /api/v1/", () => {
    const api = (routeConfig as Entry[]).filter((entry) => entry.path?.startsWith("api/v1/"));
    expect(api.length).toBeGreaterThan(25);
    for (const entry of api) {
      const pathname = `/${entry.path!.replace(/:[\w-]+/g, "1").replace(/\*$/, "nothing")}`;
      expect(ours(pathname)?.id, pathname).toBe(entry.file.replace(/\.ts$/, ""));
    }
    expect(ours("/company/12")).toBeUndefined();
    expect(ours("/api")).toBeUndefined();
  });
});

describe("a request the API answers", () => {
  type Seen = {
    text?: string;
    again?: string;
    form?: Record<string, string>;
    failure?: string;
    bodyUsed?: boolean;
    aborted?: boolean;
  };
  let seen: Seen = {};
  let reached: () => void = () => {};

  /** A server with one API route, /api/v1/echo, behind the server's body limit (100 bytes here). */
  async function withServer(run: (url: string) => Promise<void>) {
    const handler = async ({ request }: { request: Request }) => {
      if (request.headers.has("x-wait-for-abort")) {
        reached();
        await new Promise((resolve) => request.signal.addEventListener("abort", resolve));
        seen.aborted = request.signal.aborted;
        return Response.json({});
      }
      try {
        if (request.headers.get("content-type")?.startsWith("application/x-www-form-urlencoded")) {
          seen.form = Object.fromEntries(await request.formData()) as Record<string, string>;
        } else {
          seen.text = await request.text();
          seen.bodyUsed = request.bodyUsed;
          seen.again = await request.text().catch((error: Error) => error.message);
        }
      } catch (error) {
        seen.failure = (error as Error).name;
        throw error;
      }
      return Response.json({ method: request.method, body: request.body });
    };
    const echo = { id: "echo", parentId: "root", path: "api/v1/echo", module: { loader: handler, action: handler } };
    // An answer of `size` characters, made as the API makes its own.
    const sized = ({ request }: { request: Request }) =>
      new TextResponse(JSON.stringify("x".repeat(Number(new URL(request.url).searchParams.get("size")) - 2)), {
        headers: { "Content-Type": "application/json" },
      });
    const text = { id: "text", parentId: "root", path: "api/v1/text", module: { loader: sized } };
    const routes = { root: { id: "root", path: "", module: {} }, echo, text };
    const app = express();
    // In front of the API, as in server/app.ts.
    app.use(compression());
    app.use(limitBodySize(100));
    app.use(apiAnswers({ routes } as unknown as ServerBuild, () => "client"));
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/echo`);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }

  it("reads its body from the Node request when the route asks, once", async () => {
    seen = {};
    await withServer(async (url) => {
      const response = await fetch(url, { method: "POST", body: '{"text":"Grüße"}' });
      expect(await response.json()).toEqual({ method: "POST", body: null });
    });
    expect(seen).toEqual({
      text: '{"text":"Grüße"}',
      bodyUsed: true,
      again: "Body is unusable: Body has already been read",
    });
  });

  it("reads a form body as form data", async () => {
    seen = {};
    await withServer(async (url) => {
      const response = await fetch(url, { method: "POST", body: new URLSearchParams({ a: "1", b: "zwei" }) });
      expect(response.status).toBe(200);
    });
    expect(seen.form).toEqual({ a: "1", b: "zwei" });
  });

  it("reads no body for a GET", async () => {
    seen = {};
    await withServer(async (url) => {
      expect(await (await fetch(url)).json()).toEqual({ method: "GET", body: null });
    });
    // As Fetch reads a null body: empty, as often as asked.
    expect(seen).toEqual({ text: "", bodyUsed: false, again: "" });
  });

  it("writes an answer whole with its length, or compressed when it is large and the client takes gzip", async () => {
    const get = (url: string, headers: Record<string, string> = {}) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        http
          .get(url, { headers }, (response) => {
            const chunks: Buffer[] = [];
            response.on("data", (chunk: Buffer) => chunks.push(chunk));
            response.on("end", () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
          })
          .on("error", reject);
      });
    await withServer(async (url) => {
      const textUrl = url.replace(/echo$/, "text");
      const small = await get(`${textUrl}?size=100`, { "accept-encoding": "gzip" });
      expect(small.headers["transfer-encoding"]).toBeUndefined();
      expect([small.headers["content-length"], small.body.length]).toEqual(["100", 100]);
      const large = await get(`${textUrl}?size=5000`, { "accept-encoding": "gzip" });
      expect(large.headers["content-encoding"]).toBe("gzip");
      expect(large.headers["content-length"]).toBeUndefined();
      expect(gunzipSync(large.body).length).toBe(5000);
      const plain = await get(`${textUrl}?size=5000`);
      expect([plain.headers["content-length"], plain.body.length]).toEqual(["5000", 5000]);
    });
  });

  it("aborts the request's signal when the client leaves before its answer", async () => {
    seen = {};
    await withServer(async (url) => {
      const atRoute = new Promise<void>((resolve) => (reached = resolve));
      const request = http.request(url, { headers: { "x-wait-for-abort": "1" } });
      request.on("error", () => {});
      request.end();
      await atRoute;
      request.destroy();
      await expect.poll(() => seen.aborted).toBe(true);
    });
  });

  it("fails the route's read of a chunked body past the limit, which the limit has answered with 413", async () => {
    seen = {};
    await withServer(async (url) => {
      const { status } = await new Promise<{ status: number | undefined }>((resolve, reject) => {
        const request = http.request(url, { method: "POST", headers: { "content-type": "application/json" } });
        request.on("response", (response) => {
          response.resume();
          resolve({ status: response.statusCode });
        });
        request.on("error", reject);
        // Chunked, no length declared: cut off as it streams in.
        request.write("x".repeat(80));
        setImmediate(() => request.write("x".repeat(80)));
      });
      expect(status).toBe(413);
    });
    expect(seen.failure).toBe("BodyTooLargeError");
  });
});
