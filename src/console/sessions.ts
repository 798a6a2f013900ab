// Server-side console sessions. The browser holds a random session id in an
// HttpOnly cookie; the database holds only its sha256. Each request re-checks
// the session with its token and agent in one indexed lookup, so a revoked
// token, a disabled agent or an expired session ends it on the next request,
// whichever replica answers.
import { isHuman } from "../auth/scopes.js";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { type Caller, type CallerRow, callerOfRow } from "../auth/caller.js";
import type { Queryable } from "../db/core/database.js";
import * as sql from "./sql.js";

export interface ConsoleSession {
  id: number;
  caller: Caller;
  /** The per-session CSRF token every form carries. */
  csrf: string;
}

type SessionLookup = { ok: true; session: ConsoleSession } | { ok: false; reason: "missing" | "ended" };

interface SessionRow extends CallerRow {
  id: number;
  revoked: boolean;
  expired: boolean;
  stale_seen: boolean;
  token_revoked: boolean;
  token_expired: boolean;
  agent_disabled: boolean;
}

const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const sha256Hex = (value: string) => createHash("sha256").update(value, "utf8").digest("hex");

/**
 * The CSRF token is derived from the session id, which only the browser and
 * this request know (the database holds a different hash of it): nothing to
 * store, and it changes with every sign-in.
 */
const csrfTokenFor = (sessionId: string) => createHash("sha256").update(`console-csrf\0${sessionId}`, "utf8").digest("base64url");

export function sameSecret(given: unknown, expected: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function createSession(db: Queryable, caller: Caller, lifetimeMinutes: number): Promise<{ sessionId: string; expiresAt: Date }> {
  await db.query(sql.DELETE_OLD_SESSIONS);
  const sessionId = randomBytes(32).toString("base64url");
  const row = (
    await db.query<{ id: number; expires_at: Date }>(sql.INSERT_SESSION, [sha256Hex(sessionId), caller.agentId, caller.tokenId, lifetimeMinutes])
  ).rows[0]!;
  return { sessionId, expiresAt: row.expires_at };
}

export async function findSession(db: Queryable, sessionId: string | undefined): Promise<SessionLookup> {
  if (!sessionId || !SESSION_ID_PATTERN.test(sessionId)) return { ok: false, reason: "missing" };
  const row = (await db.query<SessionRow>(sql.FIND_SESSION, [sha256Hex(sessionId)])).rows[0];
  if (!row) return { ok: false, reason: "missing" };
  if (row.revoked) return { ok: false, reason: "ended" };
  // Kind is checked again: an agent changed to kind "agent" loses the console too.
  if (row.expired || row.token_revoked || row.token_expired || row.agent_disabled || !isHuman(row)) {
    await db.query(sql.END_SESSION, [row.id]);
    return { ok: false, reason: "ended" };
  }
  if (row.stale_seen) await db.query(sql.TOUCH_SESSION, [row.id]);
  return {
    ok: true,
    session: {
      id: row.id,
      csrf: csrfTokenFor(sessionId),
      caller: callerOfRow(row),
    },
  };
}

export async function endSession(db: Queryable, id: number): Promise<void> {
  await db.query(sql.END_SESSION, [id]);
}
