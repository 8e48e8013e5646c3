import type { NextFunction, Request, Response } from "express";
import { refuseRequest } from "./refusal.ts";

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Refuses cross-site state-changing requests (CSRF), using Fetch Metadata where the browser sends it and the
 * Origin header otherwise. Requests without cookies (API clients with bearer tokens) carry no ambient authority
 * and pass; a cookie-bearing write with neither header is refused.
 */
export function requireSameOrigin(req: Request, res: Response, next: NextFunction): void {
  if (safeMethods.has(req.method)) return next();
  const site = req.get("sec-fetch-site");
  if (site) {
    if (site === "same-origin" || site === "none") return next();
    return refuse(req, res);
  }
  const origin = req.get("origin");
  if (origin) {
    if (origin === `${req.protocol}://${req.get("host")}`) return next();
    return refuse(req, res);
  }
  if (!req.get("cookie")) return next();
  refuse(req, res);
}

function refuse(req: Request, res: Response): void {
  refuseRequest(req, res, 403, "Cross-site request refused.");
}
