import type { Request, Response } from "express";
import { problemBody } from "#app/http/problem.server.ts";

/**
 * Answers a request the server refuses before any route sees it: as RFC 9457 problem details under /api/ (as the
 * OpenAPI document says every API error is), as plain text elsewhere. Never cached.
 */
export function refuseRequest(
  req: Request,
  res: Response,
  status: number,
  detail: string,
  headers: Record<string, string> = {},
): void {
  res.status(status).set({ "Cache-Control": "no-store", ...headers });
  if (req.path.startsWith("/api/")) {
    res.type("application/problem+json").send(problemBody(status, detail));
  } else {
    res.type("text/plain").send(detail);
  }
}
