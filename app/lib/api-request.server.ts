import { type z } from "zod";
import { problem } from "./problem.server.ts";

export const maxJsonBodyBytes = 64 * 1024;

/**
 * Reads a JSON or form body of at most `maxBytes`, answering 415 for other types and 413 for larger bodies,
 * and validates it with `schema` (400 naming each bad field). Returns the data or the problem response.
 */
export async function readBody<T extends z.ZodType>(
  request: Request,
  schema: T,
  maxBytes = maxJsonBodyBytes,
): Promise<{ ok: true; data: z.infer<T> } | { ok: false; response: Response }> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && type !== "application/x-www-form-urlencoded") {
    return {
      ok: false,
      response: problem(415, "Send the body as application/json or application/x-www-form-urlencoded."),
    };
  }
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) return { ok: false, response: problem(413, `The body may be at most ${maxBytes} bytes.`) };
  const text = await request.text();
  if (Buffer.byteLength(text) > maxBytes) {
    return { ok: false, response: problem(413, `The body may be at most ${maxBytes} bytes.`) };
  }
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
  const parsed = schema.safeParse(raw);
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
