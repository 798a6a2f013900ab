// Opaque page cursors: base64url JSON of the last row's sort key. Callers pass
// back `nextCursor` unchanged; anything else is refused with a clear message.
import * as z from "zod/v4";
import { invalid } from "./errors.js";
import { MAX_CURSOR_CHARS } from "./limits.js";

export function encodeCursor(key: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
}

export function decodeCursor<S extends z.ZodType>(cursor: string | undefined, schema: S): z.infer<S> | undefined {
  if (cursor === undefined) return undefined;
  try {
    if (cursor.length > MAX_CURSOR_CHARS) throw new Error("too long");
    const parsed = schema.safeParse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
    if (parsed.success) return parsed.data;
  } catch {
    // fall through to the same message as a schema mismatch
  }
  throw invalid("cursor is not valid: pass the nextCursor value from the previous page unchanged, or omit it for the first page.");
}
