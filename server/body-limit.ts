import type { Socket } from "node:net";
import type { NextFunction, Request, Response } from "express";
import { BodyTooLargeError, maxBodyBytes } from "#app/http/api-request.server.ts";
import { refuseRequest } from "./refusal.ts";

/**
 * One size limit for every request body, enforced before any route reads it: a declared Content-Length over the
 * limit is answered 413 at once, and a body without one (chunked) is counted while it streams in and cut off at the
 * limit. Either way the answer closes the connection, so the rest of the body is never read, let alone kept.
 *
 * A route that was already reading a cut-off body sees its stream fail with BodyTooLargeError (never a truncated
 * body it could act on); the 413 has gone out by then. An answer given before the body was read whole (a redirect,
 * a 401) closes the connection too, instead of node reading the rest of the body to reach the next request.
 */
export function limitBodySize(maxBytes = maxBodyBytes) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const declared = req.get("content-length");
    if (declared !== undefined && Number(declared) > maxBytes) return refuse(req, res, maxBytes);
    let received = 0;
    const count = (chunk: Buffer) => {
      received += chunk.byteLength;
      if (received <= maxBytes) return;
      req.off("data", count);
      refuse(req, res, maxBytes);
      // Fails the reader's stream without destroying the socket, which would reset the connection before the 413
      // reached the client. What still arrives is discarded until the connection closes.
      if (req.listenerCount("error") > 0) req.emit("error", new BodyTooLargeError(maxBytes));
    };
    // Prepended, and without switching the stream to flowing mode: whoever reads the body later sees no chunk
    // that was not counted first.
    req.prependListener("data", count);
    res.once("finish", () => {
      if (!req.complete && !req.socket.destroyed) lingeringClose(req.socket);
    });
    next();
  };
}

function refuse(req: Request, res: Response, maxBytes: number): void {
  if (res.headersSent) return;
  // Node closes a "Connection: close" socket as soon as the answer is written: close it gently instead.
  req.socket.destroySoon = () => lingeringClose(req.socket);
  refuseRequest(req, res, 413, `The body may be at most ${maxBytes} bytes.`, { Connection: "close" });
}

/** How long a refused client gets to read its answer before the connection is torn down. */
const lingerMs = 1_000;

/**
 * Closing a socket while body bytes still arrive makes the kernel answer them with a reset, and the client drops the
 * answer it had not read yet (EPIPE, ECONNRESET). So, as nginx's lingering close does: send a FIN after the answer,
 * give the client up to `lingerMs` to read it while whatever it still sends is discarded, then destroy the socket.
 */
function lingeringClose(socket: Socket): void {
  socket.end();
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
}
