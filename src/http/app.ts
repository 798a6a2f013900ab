// createApp builds the Express app without listening, so tests drive it with
// supertest and main() decides where it listens.
import express, { type Express, type Request, type RequestHandler, type Response } from "express";
import type { AppDeps } from "../app-deps.js";
import { sharedTokenChecks } from "../auth/verifier.js";
import { consoleRouter } from "../console/router.js";
import { bearerAuth, failedAuthLimit, mcpFailedAuthLimit, perTokenLimit } from "../mcp-endpoint/auth.js";
import { JsonRpcCode, sendJsonRpcError } from "../mcp-endpoint/json-rpc.js";
import { mcpPost, methodNotAllowed } from "../mcp-endpoint/mcp-route.js";
import { mountOAuth } from "../oauth/routes.js";
import { agentConcurrencyLimiter, MCP_SURFACE } from "./agent-concurrency.js";
import { corsForAllowedOrigins } from "./cors.js";
import { errorHandler } from "./error-handler.js";
import { allowedHostnames, hostCheck } from "./host-check.js";
import { requestLogging } from "./logging.js";
import { healthz, metricsEndpoint, metricsTokenCheck, readyz } from "./ops.js";
import { originCheck } from "./origin.js";

export function createApp(deps: AppDeps): Express {
  const { config, metrics } = deps;
  const app = express();
  app.disable("x-powered-by");
  // Only a hop count or proxy addresses (config refuses `true`): req.ip, which
  // the per-address limits key on, then never comes from a header a client wrote.
  if (config.trustProxy !== false) app.set("trust proxy", config.trustProxy);

  closeAfterRefusal(app);
  const beginRequest = requestLogging(app, deps.logger, (req, res) => {
    // originalUrl: a router mounted at /console has cut its prefix from req.path by the time the response ends.
    metrics.httpRequests.inc({ route: routeLabel((req as Request).originalUrl.split("?")[0]!), status: String(res.statusCode) });
    metrics.countWorkerRequest?.();
  });
  const isShuttingDown = deps.isShuttingDown;
  // The one middleware every request goes through: its log line and count, and,
  // while shutting down, the refusal of requests on kept-alive connections so the
  // load balancer retries them elsewhere (in-flight ones finish normally).
  app.use((req, res, next) => {
    beginRequest(req, res);
    if (!isShuttingDown?.() || req.path === "/healthz") return next();
    res.setHeader("Connection", "close");
    res.setHeader("Retry-After", "1");
    sendJsonRpcError(res, 503, JsonRpcCode.SERVER_ERROR, "The server is shutting down; retry on another replica or in a moment.");
  });

  // DNS-rebinding protection, before every route (the probes excepted, see host-check.ts).
  const hosts = allowedHostnames(config.host, config.allowedHosts);
  if (hosts) app.use(hostCheck(hosts));
  const corsHandler = corsForAllowedOrigins(config.allowedOrigins);
  // Every request to an MCP path: the Origin check, then CORS for allowed origins (which answers their preflight).
  const originRule = { allowedOrigins: config.allowedOrigins, publicUrl: config.publicUrl, hostChecked: hosts !== undefined };
  const mcpGuards: RequestHandler[] = [originCheck(originRule), ...(corsHandler ? [corsHandler] : [])];

  // POST /mcp first: the per-call path is matched against one route, not walked
  // past the ops, console and OAuth routes (no path below overlaps it).
  const tokenChecks = sharedTokenChecks(deps.db);
  const failureLimit = mcpFailedAuthLimit(deps, tokenChecks);
  const tokenLimit = perTokenLimit(deps);
  // After the per-token rate limit (a request refused there takes no turn),
  // before the body is read (a waiting request's body stays in its socket).
  const agentLimiter = agentConcurrencyLimiter(deps);
  const agentLimit = agentLimiter?.(MCP_SURFACE);
  const callerLimits = [...(tokenLimit ? [tokenLimit] : []), ...(agentLimit ? [agentLimit] : [])];
  // The one chain of an MCP endpoint, /mcp's and /oauth/mcp's: only the token check (and
  // the failed-attempt limit, which uses it) differs; the endpoint itself is one.
  const post = mcpPost(deps);
  const mcpRoute = (authenticate: RequestHandler, failedAttempts: RequestHandler | undefined): RequestHandler[] => [
    ...mcpGuards,
    ...(failedAttempts ? [failedAttempts] : []),
    authenticate,
    ...callerLimits,
    express.json({ limit: config.maxBodyBytes }),
    post,
  ];
  app.post("/mcp", ...mcpRoute(bearerAuth(deps, { check: tokenChecks }), failureLimit));
  // Preflight: answered by cors for allowed origins (refused by originCheck otherwise).
  if (corsHandler) app.options("/mcp", ...mcpGuards);
  app.get("/mcp", ...mcpGuards, methodNotAllowed);
  app.delete("/mcp", ...mcpGuards, methodNotAllowed);
  app.all("/mcp", ...mcpGuards, methodNotAllowed);

  app.get("/healthz", healthz);
  app.get("/readyz", readyz(deps));
  const metricsLimit = config.metricsToken
    ? failedAuthLimit(deps, {
        isValid: metricsTokenCheck(config.metricsToken),
        refuse: (res, message) => res.status(429).json({ error: "too_many_requests", error_description: message }),
      })
    : undefined;
  app.get("/metrics", ...(metricsLimit ? [metricsLimit] : []), metricsEndpoint(deps));

  app.get("/", (_req, res) => res.redirect(302, "/console"));
  app.use("/console", consoleRouter(deps, { agentLimiter }));

  // OAuth (off by default) adds /oauth/mcp beside /mcp, with the same guards and limits.
  if (config.oauth.mode !== "off") {
    mountOAuth(app, deps, { guards: mcpGuards, preflight: corsHandler !== undefined, mcpRoute });
  }

  app.use((_req, res) => {
    res.status(404).json({ error: "not_found", error_description: "Unknown path. MCP is served at POST /mcp; the web console at /console; ops at /healthz, /readyz, /metrics." });
  });
  app.use(errorHandler(config.maxBodyBytes));
  return app;
}

const ROUTE_LABELS = new Set(["/mcp", "/oauth/mcp", "/healthz", "/readyz", "/metrics"]);
/** The route label of /metrics: the endpoint, or the surface a page belongs to (a few values whatever the paths). */
function routeLabel(path: string): string {
  if (ROUTE_LABELS.has(path)) return path;
  if (path === "/console" || path.startsWith("/console/")) return "/console";
  if (path.startsWith("/oauth/") || path.startsWith("/.well-known/")) return "/oauth";
  return "other";
}

/**
 * A refused request (401, 413, 429) closes its connection once answered: a
 * client that is refused gets no kept-alive socket to trickle more bytes into,
 * and an unread body is not waited for. Set once on this app's response
 * prototype (Express gives every response of the app that prototype) rather
 * than wrapped per request; res.end() without writeHead goes through it too.
 */
const CLOSE_AFTER = new Set([401, 413, 429]);
function closeAfterRefusal(app: Express): void {
  const writeHead = app.response.writeHead;
  app.response.writeHead = function (this: Response, ...args: Parameters<typeof writeHead>) {
    const status = typeof args[0] === "number" ? args[0] : this.statusCode;
    if (CLOSE_AFTER.has(status) && !this.headersSent) this.setHeader("Connection", "close");
    return writeHead.apply(this, args);
  } as typeof writeHead;
}
