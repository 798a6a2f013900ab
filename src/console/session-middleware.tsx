// Every console route after sign-in goes through requireSession: it finds the
// session (re-checked against its token and agent on each request), and for a
// state change also checks the per-session CSRF token.
import type { Request, RequestHandler, Response } from "express";
import type { AppDeps } from "../app-deps.js";
import { hasAllScopes } from "../auth/scopes.js";
import { clearCookie, readCookie, SESSION_COOKIE } from "./cookies.js";
import { sendPage } from "./render.js";
import { servedOverHttps } from "./security.js";
import { type ConsoleSession, findSession, sameSecret } from "./sessions.js";
import { ErrorPage } from "./views/errors.js";
import { BASE, type PageContext } from "./views/layout.js";

export function sessionOf(res: Response): ConsoleSession {
  const session = res.locals.consoleSession as ConsoleSession | undefined;
  if (!session) throw new Error("console route reached without a session");
  return session;
}

/** The admin rule: people whose agent may write every scope ("*") manage agents and tokens. */
const isAdmin = (session: ConsoleSession): boolean => hasAllScopes(session.caller);

export function pageContext(res: Response, section?: PageContext["section"]): PageContext {
  const session = sessionOf(res);
  return { caller: session.caller, csrf: session.csrf, admin: isAdmin(session), ...(section ? { section } : {}) };
}

const isStateChange = (req: Request) => req.method !== "GET" && req.method !== "HEAD";

export function requireSession(deps: AppDeps): RequestHandler {
  return async (req, res, next) => {
    const secure = servedOverHttps(req, deps.config.publicUrl);
    const found = await findSession(deps.db, readCookie(req, SESSION_COOKIE, secure));
    if (!found.ok) {
      if (found.reason === "ended") clearCookie(res, SESSION_COOKIE, secure);
      res.setHeader("Cache-Control", "no-store");
      return res.redirect(303, `${BASE}/sign-in?note=${found.reason === "ended" ? "ended" : "required"}`);
    }
    res.locals.consoleSession = found.session;
    if (isStateChange(req) && !sameSecret((req.body as Record<string, unknown> | undefined)?.csrf, found.session.csrf)) {
      return sendPage(
        res,
        403,
        <ErrorPage ctx={pageContext(res)} title="Refused" message="This form is missing its security token or comes from an older sign-in. Reload the page and try again; nothing was changed." />,
      );
    }
    next();
  };
}

/** Admin pages: 403 for everyone else, saying why. */
export function requireAdmin(): RequestHandler {
  return (_req, res, next) => {
    if (isAdmin(sessionOf(res))) return next();
    sendPage(
      res,
      403,
      <ErrorPage
        ctx={pageContext(res)}
        title="Administrators only"
        message={`Agents and tokens are managed by people whose agent may write every scope ("*"). You (${sessionOf(res).caller.name}) may not; ask one of them.`}
      />,
    );
  };
}
