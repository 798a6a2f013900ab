// Opaque page cursors: base64url JSON of the last row's sort key. Callers pass
// back `nextCursor` unchanged; anything else is refused with a clear message.
import { createCipheriv, createDecipheriv, createHmac } from "node:crypto";
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

const INVALID_CURSOR = "cursor is not valid: pass the nextCursor value from the previous page unchanged, or omit it for the first page.";

/**
 * A sealed cursor: the key encrypted and authenticated (AES-256-GCM) with a
 * server key, for cursors whose position may belong to something the caller
 * cannot see (a bounded scan stops wherever its bound falls). Opaque, and any
 * change to it is refused. The nonce is derived from the payload (an HMAC, as
 * in SIV): the same position always gives the same cursor, so answers stay
 * repeatable, and a nonce repeats only with its plaintext.
 */
export function sealCursor(key: Buffer, payload: Record<string, string | number>): string {
  const text = JSON.stringify(payload);
  // A key of its own for the nonce (derived from the server key), not the cipher's key itself.
  const nonceKey = createHmac("sha256", key).update("agent-memory cursor nonce key", "utf8").digest();
  const iv = createHmac("sha256", nonceKey).update(text, "utf8").digest().subarray(0, 12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
}

export function openSealedCursor<S extends z.ZodType>(key: Buffer, cursor: string | undefined, schema: S): z.infer<S> | undefined {
  if (cursor === undefined) return undefined;
  try {
    if (cursor.length > MAX_CURSOR_CHARS) throw new Error("too long");
    const raw = Buffer.from(cursor, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
    const parsed = schema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // fall through: altered, from another store, or not a cursor
  }
  throw invalid(INVALID_CURSOR);
}
