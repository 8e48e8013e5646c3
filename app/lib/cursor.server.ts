import { z } from "zod";
import { hasControlCharacters } from "./control-characters.ts";

/** Opaque keyset-pagination cursors: the sort key of the last row shown, base64url-encoded JSON. */
export function encodeCursor(key: ReadonlyArray<string | number>): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

const cursorSchema = z
  // No NUL: PostgreSQL refuses it in text, and no cursor of ours carries one.
  .array(
    z.union([
      z
        .string()
        .max(500)
        .refine((key) => !hasControlCharacters(key)),
      z.number(),
    ]),
  )
  .min(1)
  .max(4);

/** Returns the key, or undefined for a missing or malformed cursor (which then reads as "first page"). */
export function decodeCursor(cursor: string | null | undefined): Array<string | number> | undefined {
  if (!cursor || cursor.length > 1000) return undefined;
  try {
    const parsed = cursorSchema.safeParse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
