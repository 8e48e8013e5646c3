import type { NextFunction, Request, Response } from "express";

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
  const detail = "Cross-site request refused.";
  res.status(403).set("Cache-Control", "no-store");
  // The JSON API answers every error as RFC 9457 problem details, as its OpenAPI document says.
  if (req.path.startsWith("/api/")) {
    res
      .type("application/problem+json")
      .send(JSON.stringify({ type: "about:blank", title: "Forbidden", status: 403, detail }));
  } else {
    res.type("text/plain").send(detail);
  }
}
