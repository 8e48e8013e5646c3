import type { NextFunction, Request, Response } from "express";
import { refuseRequest } from "./refusal.ts";

/**
 * Methods no route answers and a Fetch `Request` cannot carry: React Router's handler failed on them with a 500 and
 * an error in the log. TRACE would echo the request back (cross-site tracing), CONNECT asks for a tunnel; Node hands
 * CONNECT to its own event, so only TRACE gets this far. Refused as a method the server does not implement.
 */
const unimplemented = new Set(["TRACE", "CONNECT"]);

export function refuseUnimplementedMethods(req: Request, res: Response, next: NextFunction): void {
  if (!unimplemented.has(req.method)) return next();
  refuseRequest(req, res, 501, `This server does not answer ${req.method} requests.`);
}
