import { type z } from "zod";
import { problem } from "#app/http/problem.server.ts";

/**
 * The largest request body any route takes, forms and API alike (the server refuses larger ones before a route runs).
 * The largest legitimate body is a company added with its review, every field at its longest in 4-byte UTF-8
 * characters, form-encoded (each such character is 12 bytes, "%F0%9F%98%80"): about 72 KB, measured by a test.
 */
export const maxBodyBytes = 96 * 1024;

/** How a body stream fails when the server cut it off at maxBodyBytes (the 413 has been answered already). */
export class BodyTooLargeError extends Error {
  readonly code = "BODY_TOO_LARGE";
  constructor(maxBytes: number) {
    super(`The body may be at most ${maxBytes} bytes.`);
    this.name = "BodyTooLargeError";
  }
}

/** True for the failure of a body the server cut off, however a reader wrapped it. */
export function isBodyTooLarge(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if ((cause as { code?: unknown }).code === "BODY_TOO_LARGE") return true;
  }
  return false;
}

/**
 * Reads a JSON or form body of at most `maxBytes`, answering 415 for other types and 413 for larger bodies,
 * and validates it with `schema` (400 naming each bad field). Returns the data or the problem response.
 */
export async function readBody<T extends z.ZodType>(
  request: Request,
  schema: T,
  maxBytes = maxBodyBytes,
): Promise<{ ok: true; data: z.infer<T> } | { ok: false; response: Response }> {
  const raw = await readRawBody(request, maxBytes);
  if (!raw.ok) return raw;
  const parsed = schema.safeParse(raw.data);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => ({
      field: issue.path.join(".") || "body",
      message: issue.message,
    }));
    return {
      ok: false,
      response: problem(400, errors.map((error) => `${error.field}: ${error.message}`).join("; "), { errors }),
    };
  }
  return { ok: true, data: parsed.data };
}

/** The body as sent (JSON value or form fields), after the type and size checks of readBody. */
export async function readRawBody(
  request: Request,
  maxBytes = maxBodyBytes,
): Promise<{ ok: true; data: unknown } | { ok: false; response: Response }> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && type !== "application/x-www-form-urlencoded") {
    return {
      ok: false,
      response: problem(415, "Send the body as application/json or application/x-www-form-urlencoded."),
    };
  }
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) return { ok: false, response: problem(413, `The body may be at most ${maxBytes} bytes.`) };
  const text = await readText(request, maxBytes);
  if (text === undefined) return { ok: false, response: problem(413, `The body may be at most ${maxBytes} bytes.`) };
  let raw: unknown;
  if (type === "application/json") {
    try {
      raw = JSON.parse(text);
    } catch {
      return {
        ok: false,
        response: problem(400, "The body is not valid JSON.", {
          errors: [{ field: "body", message: "not valid JSON" }],
        }),
      };
    }
  } else {
    raw = Object.fromEntries(new URLSearchParams(text));
  }
  const bad = badText(raw);
  if (bad !== undefined) {
    const field = bad.path || "body";
    return {
      ok: false,
      response: problem(400, `${field}: ${bad.message}`, { errors: [{ field, message: bad.message }] }),
    };
  }
  return { ok: true, data: raw };
}

/**
 * The body as text, read no further than `maxBytes` (a chunked body declares no length): undefined when larger.
 * The rest is left unread, not buffered. A request without a body stream is read by `text()`: one with no body at
 * all, or one the API answers beside React Router, which reads its body from the Node request (server/api.ts) and
 * is cut off at the server's size limit before it gets this far.
 */
async function readText(request: Request, maxBytes: number): Promise<string | undefined> {
  if (!request.body) {
    const text = await request.text();
    return Buffer.byteLength(text) > maxBytes ? undefined : text;
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      reader.releaseLock();
      return undefined;
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/**
 * Text no field may hold: NUL, which PostgreSQL refuses (a body carrying one would fail at the database), and an
 * unpaired surrogate (a JSON body may escape one, "\ud800"), which is no character at all: both databases would store
 * it as U+FFFD, and escaped again it takes six bytes instead of at most three, past what a queued review's sealed
 * row holds (app/lib/queue-keys.server.ts).
 */
function textProblem(text: string): string | undefined {
  if (text.includes("\u0000")) return "must not contain NUL characters";
  if (!text.isWellFormed()) return "must be well-formed Unicode text (no unpaired surrogates)";
  return undefined;
}

/**
 * Where text no field may hold sits in a JSON value (a dotted path, "" for the value itself), and what is wrong.
 * Iterative: A body of JSON can nest deeper than the call stack goes.
 */
function badText(root: unknown): { path: string; message: string } | undefined {
  const pending: Array<[unknown, string]> = [[root, ""]];
  while (pending.length > 0) {
    const [value, path] = pending.pop()!;
    if (typeof value === "string") {
      const message = textProblem(value);
      if (message) return { path, message };
    } else if (value !== null && typeof value === "object") {
      for (const [key, entry] of Object.entries(value)) {
        const child = path ? `${path}.${key}` : key;
        const message = textProblem(key);
        if (message) return { path: child, message };
        pending.push([entry, child]);
      }
    }
  }
  return undefined;
}
