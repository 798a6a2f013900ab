// Authentication middleware for /mcp: the SDK's requireBearerAuth with our token
// verifier, a per-address limit on failed attempts (brute force) that any
// credential-checking endpoint can reuse, and an optional per-token rate limit.
// Here, below http/, oauth/ and console/, because all three use it: /oauth/mcp
// and the sign-in forms authenticate the same way, and none of them imports another.
import type { Request, RequestHandler, Response } from "express";
import { rateLimit } from "express-rate-limit";
import type { AppDeps } from "../app-deps.js";
import { type AuthInfo, type OAuthTokenVerifier, requireBearerAuth } from "../mcp-sdk/index.js";
import { adoptAuthInfo, maybeCallerFromAuthInfo } from "../auth/caller.js";
import { createTokenVerifier, sharedTokenChecks, type TokenCheck, type VerifierDeps } from "../auth/verifier.js";
import { DATABASE_UNREACHABLE_MESSAGE } from "../db/core/classify.js";
import { JsonRpcCode, requestId, sendDatabaseUnavailable, sendJsonRpcError } from "./json-rpc.js";

const WINDOW_MS = 60_000;

/** The 401 of a request without Authorization: what to send, and where a token comes from. */
const MISSING_AUTHORIZATION =
  "Missing Authorization header: send \"Authorization: Bearer amk_…\" with your agent's token. " +
  "An administrator issues one in the web console (Agents) or with: agent-memory token issue NAME.";

const isMissingHeader = (body: unknown): body is Record<string, unknown> =>
  typeof body === "object" && body !== null && (body as { error_description?: unknown }).error_description === "Missing Authorization header";

const TOO_MANY_FAILURES_MESSAGE = "Too many failed authentication attempts from this address; wait a minute and check your token.";

/** The bearer token of a request, if it has one. */
export function bearerToken(header: string | undefined): string | undefined {
  const [scheme, token] = (header ?? "").split(" ");
  return scheme?.toLowerCase() === "bearer" && token ? token : undefined;
}

interface LimiterOptions {
  deps: Pick<AppDeps, "metrics">;
  /** Requests allowed per key per minute; 0 switches the limiter off. */
  limit: number;
  /** The `limit` label of agent_memory_rate_limited_total. */
  metricLabel: string;
  /** The key to count by; the client address (req.ip) when absent. */
  key?: (req: Request) => string;
  /** Count only the requests this says failed (the others are taken back once answered). */
  countOnly?: (req: Request, res: Response) => boolean;
  /** Over the limit: true lets this request through anyway. */
  letThrough?: (req: Request) => Promise<boolean>;
  /** Sends the 429. */
  refuse: (res: Response) => void;
}

/** A limit on requests per client address per minute (the OAuth endpoints'); undefined when `limit` is 0. */
export function requestLimit(deps: Pick<AppDeps, "metrics">, options: { limit: number; metricLabel: string; refuse: (res: Response) => void }): RequestHandler | undefined {
  return limiter({ deps, ...options });
}

/** The one rate-limit shape of the service: a fixed one-minute window per key, IETF RateLimit headers. */
function limiter(options: LimiterOptions): RequestHandler | undefined {
  if (options.limit === 0) return undefined;
  const { countOnly, letThrough } = options;
  return rateLimit({
    windowMs: WINDOW_MS,
    limit: options.limit,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    ...(options.key ? { keyGenerator: options.key } : {}),
    ...(countOnly ? { skipSuccessfulRequests: true, requestWasSuccessful: (req: Request, res: Response) => !countOnly(req, res) } : {}),
    async handler(req, res, next) {
      if (letThrough && (await letThrough(req))) {
        res.removeHeader("Retry-After");
        return next();
      }
      options.deps.metrics.rateLimited.inc({ limit: options.metricLabel });
      options.refuse(res);
    },
  });
}

interface FailedAuthLimitOptions {
  /**
   * Checks the request's credential once its address is over the limit (for
   * /mcp: one indexed token lookup). True lets it through; false, or an error,
   * refuses it with 429 (an error on a database outage goes through instead, so
   * that the endpoint itself answers 503).
   */
  isValid: (req: Request) => Promise<boolean> | boolean;
  /** Sends the 429; the default is a JSON-RPC error (the /mcp shape). */
  refuse?: (res: Response, message: string) => void;
}

/**
 * Counts only refused authentications (401) per client address. Over the limit,
 * the credential is still checked: a valid one goes through (working agents at a
 * busy NAT or proxy address are never locked out by someone else's guesses) and
 * only invalid ones get 429 — whatever the reason they are invalid, so the 429
 * reveals nothing a 401 would not. The one limit of every place a token is
 * sent or typed: /mcp, /oauth/mcp, /metrics, the console's sign-in form and the
 * OAuth consent page's sign-in step (a plain per-request limit there would lock
 * valid people out behind someone else's guesses).
 */
export function failedAuthLimit(deps: AppDeps, options: FailedAuthLimitOptions): RequestHandler | undefined {
  const refuse = options.refuse ?? ((res: Response, message: string) => sendJsonRpcError(res, 429, JsonRpcCode.SERVER_ERROR, message));
  return limiter({
    deps,
    limit: deps.config.authFailuresPerMinute,
    metricLabel: "auth_failures",
    countOnly: (_req, res) => res.statusCode === 401,
    async letThrough(req) {
      try {
        return await options.isValid(req);
      } catch {
        // Could not check (database away): let the endpoint answer (503), not a lockout.
        return true;
      }
    },
    refuse: (res) => refuse(res, TOO_MANY_FAILURES_MESSAGE),
  });
}

/**
 * The failed-attempt limit of POST /mcp: over the limit, a token that checks
 * out still goes through. `check` is the lookup bearerAuth shares: requests
 * in flight count against the limit until they succeed, so a burst from one
 * address is over it at once, and each of its requests is checked here too.
 */
export function mcpFailedAuthLimit(deps: AppDeps, check: (token: string) => Promise<TokenCheck>): RequestHandler | undefined {
  return failedAuthLimit(deps, {
    async isValid(req) {
      const token = bearerToken(req.headers.authorization);
      return token !== undefined && (await check(token)).ok;
    },
  });
}

interface BearerAuthOptions {
  /** The token lookup, shared by the requests in flight (sharedTokenChecks); default: a set of its own. */
  check?: (token: string) => Promise<TokenCheck>;
  /** The token check; default: our agent tokens (static /mcp). */
  createVerifier?: (deps: VerifierDeps) => OAuthTokenVerifier;
  /** Announced in WWW-Authenticate on 401 (OAuth discovery); never set for /mcp. */
  resourceMetadataUrl?: string;
}

export function bearerAuth(deps: AppDeps, options: BearerAuthOptions = {}): RequestHandler {
  const makeVerifier = options.createVerifier ?? createTokenVerifier;
  const check = options.check ?? sharedTokenChecks(deps.db);
  return (req, res, next) => {
    // The SDK answers a missing (or non-Bearer) header itself; count it here so metrics see every rejection.
    if (!bearerToken(req.headers.authorization)) deps.metrics.authFailures.inc({ reason: "missing" });
    // Its "Missing Authorization header" does not say what to send: this does.
    if (!req.headers.authorization) {
      const json = res.json.bind(res);
      res.json = (body: unknown) => json(isMissingHeader(body) ? { ...body, error_description: MISSING_AUTHORIZATION } : body);
    }
    // Built per request (a closure, cheap) so that a database outage can turn
    // the SDK's answer into the one every MCP request gets while the database
    // is away (sendDatabaseUnavailable: 503, Retry-After, a JSON-RPC error).
    // The SDK answers any verifier failure with 500 and an OAuth error body;
    // but a token that could not be checked because the database is away is a
    // temporary condition, and 503 is what load balancers and clients retry.
    const verifier = makeVerifier({
      db: deps.db,
      metrics: deps.metrics,
      logger: deps.logger,
      check,
      onUnavailable: () => {
        // Only on that path: the SDK's res.status(500).json({error_description}) becomes ours.
        res.status = (() => res) as typeof res.status;
        res.json = (() => {
          sendDatabaseUnavailable(res, DATABASE_UNREACHABLE_MESSAGE, requestId(req.body));
          return res;
        }) as typeof res.json;
      },
    });
    // The AuthInfo the verifier made, to follow it to the one the SDK hands on (adoptAuthInfo).
    let verified: AuthInfo | undefined;
    const remembering: OAuthTokenVerifier = {
      verifyAccessToken: async (token) => (verified = await verifier.verifyAccessToken(token)),
    };
    return requireBearerAuth({ verifier: remembering, resourceMetadataUrl: options.resourceMetadataUrl })(req, res, (error?: unknown) => {
      if (!error && req.auth && verified) adoptAuthInfo(req.auth, verified);
      next(error);
    });
  };
}

/** Tool calls per token per minute, when RATE_LIMIT_PER_MINUTE is set. */
export function perTokenLimit(deps: AppDeps): RequestHandler | undefined {
  const limit = deps.config.rateLimitPerMinute;
  return limiter({
    deps,
    limit,
    metricLabel: "per_token",
    // Callers with an external JWT have no token row (tokenId 0): their bucket is their agent's,
    // or one agent could use up every IdP-authenticated agent's allowance.
    key: (req) => {
      const caller = maybeCallerFromAuthInfo(req.auth);
      if (!caller) return "token:none";
      return caller.tokenId ? `token:${caller.tokenId}` : `agent:${caller.agentId}`;
    },
    refuse: (res) =>
      sendJsonRpcError(res, 429, JsonRpcCode.SERVER_ERROR, `Rate limit reached: at most ${limit} requests per minute per token. Slow down and retry after the Retry-After delay.`),
  });
}
