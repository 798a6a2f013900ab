// The console's two cookies. Both HttpOnly (no script reads them), SameSite=Strict
// (never sent on a request started by another site) and limited to /console.
import type { Request, Response } from "express";

export const SESSION_COOKIE = "am_console";
/** Double-submit secret of the sign-in form, before a session exists. */
export const SIGN_IN_COOKIE = "am_console_signin";
export const COOKIE_PATH = "/console";

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function setCookie(res: Response, name: string, value: string, options: { secure: boolean; maxAgeMs?: number }): void {
  res.cookie(name, value, {
    httpOnly: true,
    sameSite: "strict",
    path: COOKIE_PATH,
    secure: options.secure,
    ...(options.maxAgeMs !== undefined ? { maxAge: options.maxAgeMs } : {}),
  });
}

export function clearCookie(res: Response, name: string, secure: boolean): void {
  res.clearCookie(name, { httpOnly: true, sameSite: "strict", path: COOKIE_PATH, secure });
}
