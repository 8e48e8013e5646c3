import { createReadableStreamFromReadable } from "@react-router/node";
import { isbot } from "isbot";
import { type RenderToPipeableStreamOptions, renderToPipeableStream } from "react-dom/server";
import {
  type EntryContext,
  type HandleErrorFunction,
  isRouteErrorResponse,
  type RouterContextProvider,
  ServerRouter,
} from "react-router";
import { isDatabaseUnavailable, unavailableRetryAfterSeconds } from "#app/db/unavailable.server.ts";
import { isBodyTooLarge } from "#app/http/api-request.server.ts";
import { scriptsAfterFirstPaint } from "#app/http/scripts-after-paint.server.ts";
import { contributionMessages } from "#app/lib/messages.ts";
import { cspNonceContext, databaseUnavailableContext } from "#app/http/request-context.server.ts";
import { logger } from "#app/lib/logger.server.ts";

export const streamTimeout = 5_000;

/**
 * What a loader, action, middleware or render threw. An unreachable database is no bug of ours: it is noted so that
 * handleRequest answers 503, and logged as a warning.
 */
export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted || error instanceof Response) return;
  // A body the server cut off at its size limit: the 413 has been answered already.
  if (isBodyTooLarge(error)) return;
  // React Router's own 4xx (an unknown address, a method the route does not take) is the client's mistake.
  if (isRouteErrorResponse(error) && error.status < 500) return;
  if (isDatabaseUnavailable(error)) {
    context.set(databaseUnavailableContext, true);
    logger.warn({ err: error }, "page request while the database is unavailable");
    return;
  }
  logger.error({ err: error }, "request error");
};

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  if (loadContext.get(databaseUnavailableContext)) {
    // React Router renders again with this thrown response as the error: the error boundary says so, with 503.
    loadContext.set(databaseUnavailableContext, false);
    throw new Response(contributionMessages.unavailable, { status: 503, statusText: "Service Unavailable" });
  }
  if (responseStatusCode === 503) responseHeaders.set("Retry-After", String(unavailableRetryAfterSeconds));
  if (request.method.toUpperCase() === "HEAD") {
    return new Response(null, { status: responseStatusCode, headers: responseHeaders });
  }
  const nonce = loadContext.get(cspNonceContext);

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const userAgent = request.headers.get("user-agent");
    // Crawlers get the whole page at once; people get the shell as soon as it is ready.
    const readyOption: keyof RenderToPipeableStreamOptions =
      (userAgent && isbot(userAgent)) || routerContext.isSpaMode ? "onAllReady" : "onShellReady";
    let timeoutId: ReturnType<typeof setTimeout> | undefined = setTimeout(() => abort(), streamTimeout + 1000);

    const { pipe, abort } = renderToPipeableStream(
      <ServerRouter context={routerContext} url={request.url} nonce={nonce} />,
      {
        nonce,
        [readyOption]() {
          shellRendered = true;
          const body = scriptsAfterFirstPaint(() => {
            clearTimeout(timeoutId);
            timeoutId = undefined;
          });
          responseHeaders.set("Content-Type", "text/html; charset=utf-8");
          pipe(body);
          resolve(
            new Response(createReadableStreamFromReadable(body), {
              headers: responseHeaders,
              status: responseStatusCode,
            }),
          );
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          if (shellRendered) logger.error({ err: error }, "render error");
        },
      },
    );
  });
}
