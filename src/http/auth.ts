// Authentication middleware for /mcp: the SDK's requireBearerAuth with our token
// verifier, a per-address limit on failed attempts (brute force), and an optional
// per-token rate limit.
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import type { RequestHandler } from "express";
import { rateLimit } from "express-rate-limit";
import type { AppDeps } from "../app-deps.js";
import type { OAuthTokenVerifier } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import { createTokenVerifier, type VerifierDeps } from "../auth/verifier.js";
import { JsonRpcCode, sendJsonRpcError } from "./json-rpc.js";
import { bearerToken, type RecentLogins } from "./recent-logins.js";

export interface BearerAuthOptions {
  /** The token check; default: our agent tokens (static /mcp). */
  createVerifier?: (deps: VerifierDeps) => OAuthTokenVerifier;
  /** Announced in WWW-Authenticate on 401 (OAuth discovery); never set for /mcp. */
  resourceMetadataUrl?: string;
}

export function bearerAuth(deps: AppDeps, recentLogins?: RecentLogins, options: BearerAuthOptions = {}): RequestHandler {
  const makeVerifier = options.createVerifier ?? createTokenVerifier;
  return (req, res, next) => {
    // The SDK answers a missing header itself; count it here so metrics see every rejection.
    if (!req.headers.authorization) deps.metrics.authFailures.inc({ reason: "missing" });
    // Built per request (a closure, cheap) so that a database outage can turn
    // the SDK's answer into 503 + Retry-After. The SDK answers any verifier
    // failure with 500; but a token that could not be checked because the
    // database is away is a temporary condition, and 503 is what load balancers
    // and clients retry (on another replica, or after Retry-After).
    let unavailable = false;
    const verifier = makeVerifier({
      ...deps,
      onUnavailable: () => {
        unavailable = true;
        res.setHeader("Retry-After", "2");
      },
    });
    const setStatus = res.status.bind(res);
    res.status = (code: number) => setStatus(unavailable && code === 500 ? 503 : code);
    return requireBearerAuth({ verifier, resourceMetadataUrl: options.resourceMetadataUrl })(req, res, () => {
      const token = bearerToken(req.headers.authorization);
      if (recentLogins && token && req.ip) recentLogins.remember(req.ip, token);
      next();
    });
  };
}

/**
 * Counts only refused authentications (401) per client address. Over the limit,
 * an address is refused except for tokens that already authenticated from it in
 * the last minute (recentLogins): guessing stops, working neighbours go on.
 */
export function authFailureLimit(deps: AppDeps, recentLogins: RecentLogins): RequestHandler | undefined {
  const limit = deps.config.authFailuresPerMinute;
  if (limit === 0) return undefined;
  return rateLimit({
    windowMs: 60_000,
    limit,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    requestWasSuccessful: (_req, res) => res.statusCode !== 401,
    skipSuccessfulRequests: true,
    handler(req, res, next) {
      const token = bearerToken(req.headers.authorization);
      if (token && req.ip && recentLogins.has(req.ip, token)) return next();
      deps.metrics.rateLimited.inc({ limit: "auth_failures" });
      sendJsonRpcError(res, 429, JsonRpcCode.SERVER_ERROR, "Too many failed authentication attempts from this address; wait a minute and check your token.");
    },
  });
}

/** Tool calls per token per minute, when RATE_LIMIT_PER_MINUTE is set. */
export function perTokenLimit(deps: AppDeps): RequestHandler | undefined {
  const limit = deps.config.rateLimitPerMinute;
  if (limit === 0) return undefined;
  return rateLimit({
    windowMs: 60_000,
    limit,
    standardHeaders: "draft-8",
    legacyHeaders: false,
    keyGenerator: (req) => `token:${(req.auth?.extra?.caller as { tokenId?: number } | undefined)?.tokenId ?? "none"}`,
    handler(_req, res) {
      deps.metrics.rateLimited.inc({ limit: "per_token" });
      sendJsonRpcError(res, 429, JsonRpcCode.SERVER_ERROR, `Rate limit reached: at most ${limit} requests per minute per token. Slow down and retry after the Retry-After delay.`);
    },
  });
}
