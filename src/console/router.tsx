// The web console: server-rendered pages for the humans of the team, mounted
// by the HTTP app under /console. A composition layer like the MCP server: it
// calls the capabilities' exported functions (the same code paths as the tools
// and the CLI), and no capability imports it.
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response, type Router } from "express";
import type { AppDeps } from "../app-deps.js";
import { pageReads } from "./page-reads.js";
import type { Caller } from "../auth/caller.js";
import { registerAssets } from "./assets.js";
import { sendPage } from "./render.js";
import { registerActivity } from "./routes/activity.js";
import { registerAgents } from "./routes/agents.js";
import { registerFacts } from "./routes/facts.js";
import { registerGraph } from "./routes/graph.js";
import { registerHealth } from "./routes/health.js";
import { registerLedger } from "./routes/ledger.js";
import { registerReview } from "./routes/review.js";
import { registerSignIn } from "./routes/sign-in.js";
import { crossSiteRefusal, securityHeaders } from "./security.js";
import { pageContext, requireSession, sessionOf } from "./session-middleware.js";
import { ErrorPage } from "./views/errors.js";

interface ConsoleOptions {
  /**
   * The per-agent concurrency limit MCP uses (same queues; src/http/agent-concurrency.ts
   * builds it): given who a request is for and how to refuse it, the middleware.
   * Undefined when the limit is off.
   */
  agentLimiter?: ((surface: { callerOf(req: Request, res: Response): Caller | undefined; refuse(res: Response, message: string): void }) => RequestHandler) | undefined;
}

export function consoleRouter(deps: AppDeps, options: ConsoleOptions = {}): Router {
  const router = express.Router();
  // The Host header is checked by the app before every route (src/http/host-check.ts).
  router.use(securityHeaders());
  registerAssets(router);

  // Cross-site requests never change anything, whatever they carry.
  router.use((req, res, next) => {
    if (req.method === "GET" || req.method === "HEAD") return next();
    const refusal = crossSiteRefusal(req, deps.config.publicUrl);
    if (!refusal) return next();
    sendPage(res, 403, <ErrorPage ctx={{}} title="Refused" message={`Refused: ${refusal}. Console forms work only from the console's own pages.`} />);
  });
  router.use(express.urlencoded({ extended: false, limit: deps.config.maxBodyBytes }));

  registerSignIn(router, deps);
  router.use(requireSession(deps));
  // Signed in, every page reads the database for the session's agent: the same
  // few slots as its MCP calls (a script with a session cookie is one agent too).
  if (options.agentLimiter) {
    router.use(
      options.agentLimiter({
        callerOf: (_req, res) => sessionOf(res).caller,
        refuse: (res, message) => sendPage(res, 429, <ErrorPage ctx={pageContext(res)} title="Too many requests at once" message={message} />),
      }),
    );
  }
  const reads = pageReads(deps);
  router.use(reads.route);
  registerReview(router, reads.deps);
  registerFacts(router, reads.deps);
  registerLedger(router, reads.deps);
  registerActivity(router, reads.deps);
  registerGraph(router, reads.deps);
  registerHealth(router, reads.deps);
  registerAgents(router, reads.deps);

  router.use((_req, res) => {
    sendPage(res, 404, <ErrorPage ctx={pageContext(res)} title="Not found" message="There is no console page at this address." />);
  });
  router.use(consoleErrors(deps));
  return router;
}

function consoleErrors(deps: AppDeps): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const e = error as { type?: string; status?: number };
    // A failure in the middle of a download: the headers are gone, cut the stream.
    if (res.headersSent) {
      (req.log ?? deps.logger).error({ err: error }, "console response failed after it started");
      return res.destroy();
    }
    if (e.type === "entity.too.large") {
      return sendPage(res, 413, <ErrorPage ctx={{}} title="Too large" message="The form is larger than this service accepts (MAX_BODY_BYTES). Nothing was changed." />);
    }
    (req.log ?? deps.logger).error({ err: error }, "console request failed");
    const ctx = res.locals.consoleSession ? pageContext(res) : {};
    sendPage(res, 500, <ErrorPage ctx={ctx} title="Error" message="Something went wrong on the server; nothing was changed. Try again, and tell an operator if it persists." />);
  };
}
