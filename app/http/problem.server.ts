import { TextResponse } from "#app/http/text-response.server.ts";

/**
 * Errors of the JSON API as RFC 9457 problem details (application/problem+json), carrying the site's messages.
 */
export type Problem = {
  status: number;
  title: string;
  detail?: string;
  /** Which input was wrong, for 400s. */
  errors?: Array<{ field: string; message: string }>;
  [extension: string]: unknown;
};

const titles: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  501: "Not Implemented",
  503: "Service Unavailable",
};

export function problem(
  status: number,
  detail: string,
  extra: Omit<Partial<Problem>, "status" | "detail"> = {},
  init: ResponseInit = {},
): Response {
  const headers = new Headers(init.headers);
  headers.set("Content-Type", "application/problem+json");
  headers.set("Cache-Control", "no-store");
  return new TextResponse(problemBody(status, detail, extra), { ...init, status, headers });
}

/** The JSON text of a problem, for answers written outside React Router. */
export function problemBody(status: number, detail: string, extra: Omit<Partial<Problem>, "status" | "detail"> = {}) {
  const body: Problem = { type: "about:blank", title: titles[status] ?? "Error", status, detail, ...extra };
  return JSON.stringify(body);
}

export function json(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("Content-Type", "application/json");
  if (!headers.has("Cache-Control")) headers.set("Cache-Control", "no-store");
  return new TextResponse(JSON.stringify(body), { ...init, headers });
}
