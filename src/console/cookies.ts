// The console's two cookies. Both HttpOnly (no script reads them) and
// SameSite=Strict (never sent on a request started by another site). Over plain
// http (localhost) they are limited to /console; over https (PUBLIC_URL https, or
// a trusted proxy that says so) they take the __Host- prefix, which a browser
// keeps only when Secure, Path=/ and without Domain: no plain-http page and no
// sibling subdomain can then set or overwrite them (cookie tossing, session
// fixation). Path=/ sends them to the service's other paths too, none of which
// reads a cookie (MCP and OAuth take bearer tokens and their own forms).
import type { Request, Response } from "express";

export const SESSION_COOKIE = "am_console";
/** Double-submit secret of the sign-in form, before a session exists. */
export const SIGN_IN_COOKIE = "am_console_signin";
const COOKIE_PATH = "/console";
const HOST_PREFIX = "__Host-";

/** The cookie's name and path: `secure` is servedOverHttps (src/console/security.ts) for this request. */
function placed(name: string, secure: boolean): { name: string; path: string } {
  return secure ? { name: HOST_PREFIX + name, path: "/" } : { name, path: COOKIE_PATH };
}

export function readCookie(req: Request, name: string, secure: boolean): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const wanted = placed(name, secure).name;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === wanted) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function setCookie(res: Response, name: string, value: string, options: { secure: boolean; maxAgeMs?: number }): void {
  const { name: cookie, path } = placed(name, options.secure);
  res.cookie(cookie, value, {
    httpOnly: true,
    sameSite: "strict",
    path,
    secure: options.secure,
    ...(options.maxAgeMs !== undefined ? { maxAge: options.maxAgeMs } : {}),
  });
}

export function clearCookie(res: Response, name: string, secure: boolean): void {
  const { name: cookie, path } = placed(name, secure);
  res.clearCookie(cookie, { httpOnly: true, sameSite: "strict", path, secure });
}
