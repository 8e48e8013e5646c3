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
 * a 401) keeps the connection for the client's next request when the body's length was declared (the rest, at most
 * the limit, is read and discarded), and says "Connection: close" when it was not (chunked).
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
    // An answer may go out before its request's body arrived whole (a redirect, a 401, a 405). The client may send
    // its next request on the same connection, so the answer must say whether it stays open: a declared length (at
    // most the limit, or it was refused above) is read and discarded after the answer, which keeps the connection;
    // a chunked body, whose end nobody can foresee, gets "Connection: close" and a lingering close.
    const writeHead = res.writeHead;
    res.writeHead = function (this: Response, ...args: Parameters<Response["writeHead"]>) {
      if (!req.complete && declared === undefined && !this.headersSent) this.setHeader("Connection", "close");
      return writeHead.apply(this, args);
    } as Response["writeHead"];
    res.once("finish", () => {
      if (req.complete || req.socket.destroyed) return;
      if (closes(res)) lingeringClose(req.socket);
      else discardRest(req);
    });
    next();
  };
}

/** Whether the answer told the client that the connection closes after it. */
function closes(res: Response): boolean {
  return /\bclose\b/i.test(String(res.getHeader("connection") ?? ""));
}

/**
 * Reads and discards the rest of a body of declared length after its answer, so the connection serves the client's
 * next request. Node does so itself for a body nobody began to read; one a route began to read and left (its reader
 * gave up) is let go here.
 */
function discardRest(req: Request): void {
  req.removeAllListeners("data");
  req.resume();
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
 * Closing a socket while body bytes still arrive makes the kernel answer them with a reset, and a client that had not
 * read the answer yet drops it (EPIPE, ECONNRESET). So the answer is followed by a FIN and the client gets up to
 * `lingerMs` to read it before the socket is destroyed. Unlike nginx's lingering close, what the client still sends
 * is not read and discarded but left unread: reading it would cost the server as much as accepting it. The reset
 * comes after the client had its second to read the answer.
 */
function lingeringClose(socket: Socket): void {
  stopReading(socket);
  socket.end();
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
}

/**
 * Stops reading the socket for good. Node's HTTP parser reads the socket's handle itself, in C++, so no JavaScript
 * stream sees those bytes or can hold them back; the server stops and restarts that reading on the socket's "pause"
 * and "resume" events. When an answer finishes before its request body was read, node dumps the request (resumes it
 * to discard the rest), and that resumes the socket: the parser would read and discard the whole refused body while
 * the answer lingers (measured: 100 MB from a client that keeps writing). So the socket is paused and its resume
 * disabled: what the client still sends stays in the kernel's buffers until the connection is destroyed.
 */
function stopReading(socket: Socket): void {
  socket.resume = () => socket;
  socket.pause();
}
