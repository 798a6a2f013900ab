// The console is a new attack surface for the service: these are the browser
// defences every console response and every state change goes through.
import type { Request, RequestHandler } from "express";

/**
 * No inline script or style anywhere (so an injected tag cannot run), nothing
 * from other origins, forms post only here, and no framing (clickjacking).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

export function securityHeaders(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    res.setHeader("X-Content-Type-Options", "nosniff");
    // Not "no-referrer": with it Chromium sends "Origin: null" on the console's
    // own form posts, and the Origin check below would refuse them. same-origin
    // still sends nothing to other sites.
    res.setHeader("Referrer-Policy", "same-origin");
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
    res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
    next();
  };
}

/** The origins this console is reached at: the request's own, and PUBLIC_URL's. */
function ownOrigins(req: Request, publicUrl: string | undefined): string[] {
  const origins = [`${req.protocol}://${req.get("host") ?? ""}`.toLowerCase()];
  if (publicUrl) origins.push(new URL(publicUrl).origin.toLowerCase());
  return origins;
}

/**
 * Why a state-changing request is refused as cross-site, or undefined when it
 * comes from a page of this console. Browsers send Origin with every POST; a
 * request without one (or with "null", from sandboxed or privacy-redirected
 * contexts) is not a console page and is refused too.
 */
export function crossSiteRefusal(req: Request, publicUrl: string | undefined): string | undefined {
  if (req.get("sec-fetch-site") === "cross-site") return "the request came from another site";
  const origin = req.get("origin");
  if (!origin || origin === "null") return "the request carries no Origin header";
  if (!ownOrigins(req, publicUrl).includes(origin.toLowerCase())) return `the request came from ${origin}`;
  return undefined;
}

/** Whether cookies get the Secure flag: https here, behind a trusted proxy, or per PUBLIC_URL. */
export function servedOverHttps(req: Request, publicUrl: string | undefined): boolean {
  return req.secure || (publicUrl?.startsWith("https://") ?? false);
}
