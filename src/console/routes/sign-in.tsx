// Sign-in and sign-out. A token of an agent of kind "human" becomes a session;
// the token itself is never stored in the browser. Failed attempts count
// against a per-address limit of the same shape as bearer auth on /mcp
// (AUTH_FAILURES_PER_MINUTE: failures only; a valid token still passes).
import { isHuman } from "../../auth/scopes.js";
import { randomBytes } from "node:crypto";
import type { Request, Router } from "express";
import type { AppDeps } from "../../app-deps.js";
import { checkSignInToken, touchToken } from "../../auth/verifier.js";
import { failedAuthLimit } from "../../mcp-endpoint/auth.js";
import { clearCookie, readCookie, SESSION_COOKIE, setCookie, SIGN_IN_COOKIE } from "../cookies.js";
import { sendPage } from "../render.js";
import { servedOverHttps } from "../security.js";
import { requireSession, sessionOf } from "../session-middleware.js";
import { createSession, endSession, findSession, sameSecret } from "../sessions.js";
import { ErrorPage } from "../views/errors.js";
import { BASE } from "../views/layout.js";
import { SignInPage } from "../views/sign-in.js";

const INVALID_TOKEN_MESSAGE = "That token is not valid: it is unknown, revoked or expired, or its agent is disabled. Check it, or ask an administrator for a new one.";

/** The token a sign-in form carries (empty when it carries none). */
const typedToken = (req: Request): string => {
  const token = (req.body as Record<string, unknown> | undefined)?.token;
  return typeof token === "string" ? token.trim() : "";
};

/**
 * The failed-attempt limit every typed token goes through (src/mcp-endpoint/auth.ts):
 * only refused tokens count, and over the limit a valid token still signs in,
 * so one person's (or an attacker's) guesses at a shared address lock nobody out.
 */
function signInFailureLimit(deps: AppDeps) {
  return failedAuthLimit(deps, {
    isValid: async (req) => (await checkSignInToken(deps.db, typedToken(req))) !== undefined,
    refuse: (res) => sendPage(res, 429, <ErrorPage ctx={{}} title="Too many attempts" message="Too many failed sign-ins from this address; wait a minute and check your token." />),
  });
}

export function registerSignIn(router: Router, deps: AppDeps): void {
  const secureOf = (req: Parameters<typeof servedOverHttps>[0]) => servedOverHttps(req, deps.config.publicUrl);

  const showForm = (req: Parameters<typeof servedOverHttps>[0], res: Parameters<typeof sendPage>[0], status: number, error?: string) => {
    // Double-submit secret: a sign-in form posted from another site lacks it
    // (login CSRF), on top of the Origin check and the SameSite cookie.
    const formSecret = randomBytes(24).toString("base64url");
    setCookie(res, SIGN_IN_COOKIE, formSecret, { secure: secureOf(req), maxAgeMs: 3_600_000 });
    const note = typeof req.query.note === "string" ? req.query.note : undefined;
    sendPage(res, status, <SignInPage formSecret={formSecret} note={error ? undefined : note} error={error} />);
  };

  router.get("/sign-in", async (req, res) => {
    const found = await findSession(deps.db, readCookie(req, SESSION_COOKIE, secureOf(req)));
    if (found.ok) return res.redirect(303, BASE);
    showForm(req, res, 200);
  });

  const limiter = signInFailureLimit(deps);
  router.post("/sign-in", ...(limiter ? [limiter] : []), async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const cookieSecret = readCookie(req, SIGN_IN_COOKIE, secureOf(req));
    if (!cookieSecret || !sameSecret(body.form, cookieSecret)) {
      return showForm(req, res, 403, "The sign-in form had expired or came from another page. Try again.");
    }
    const check = await checkSignInToken(deps.db, typedToken(req));
    if (!check) {
      deps.metrics.authFailures.inc({ reason: "invalid" });
      return showForm(req, res, 401, INVALID_TOKEN_MESSAGE);
    }
    const caller = check.caller;
    if (!isHuman(caller)) {
      return showForm(
        req,
        res,
        403,
        `This token belongs to "${caller.name}", an agent of kind "agent": agent tokens are for MCP clients and cannot sign in to the console. Sign in with the token of a human (kind "human").`,
      );
    }
    if (check.touch) await touchToken(deps.db, caller.tokenId);
    const { sessionId } = await createSession(deps.db, caller, deps.config.consoleSessionMinutes);
    setCookie(res, SESSION_COOKIE, sessionId, { secure: secureOf(req), maxAgeMs: deps.config.consoleSessionMinutes * 60_000 });
    clearCookie(res, SIGN_IN_COOKIE, secureOf(req));
    req.log?.info({ agent: caller.name, tokenId: caller.tokenId }, "console sign-in");
    res.redirect(303, BASE);
  });

  router.post("/sign-out", requireSession(deps), async (req, res) => {
    await endSession(deps.db, sessionOf(res).id);
    clearCookie(res, SESSION_COOKIE, secureOf(req));
    res.redirect(303, `${BASE}/sign-in?note=signed-out`);
  });
}

