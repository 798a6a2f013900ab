// Operations endpoints: liveness, readiness, Prometheus metrics.
import { createHash, timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler } from "express";
import type { AppDeps } from "../app-deps.js";
import { migrationsPending } from "../db/schema/migrate.js";

export const healthz: RequestHandler = (_req, res) => {
  res.json({ status: "ok" });
};

/**
 * Ready: the database answers, its schema is this build's, and its writes are
 * acknowledged. While commits wait for a synchronous standby that is gone, the
 * answer is 503 "degraded" (writes answer "may have committed" at their
 * deadline: docs/replicas.md). An old primary writable beside the current one
 * is named (stalePrimaries) but does not make the service unready: it is never used.
 */
export function readyz(deps: AppDeps): RequestHandler {
  return async (_req, res) => {
    try {
      const [pending, health] = await Promise.all([migrationsPending(deps.db, deps.expectedMigrations), deps.db.health?.()]);
      if (pending > 0) {
        res.status(503).json({ status: "unavailable", reason: `${pending} database migration(s) not applied yet`, database: deps.db.kind });
        return;
      }
      const stale = health && health.stalePrimaries.length > 0 ? { stalePrimaries: health.stalePrimaries } : {};
      if (health && health.writesWaitingForStandby > 0) {
        res.status(503).json({
          status: "degraded",
          writes: "degraded",
          reason: `${health.writesWaitingForStandby} commit(s) wait for the synchronous standby (synchronous_standby_names): writes are not acknowledged until it is back`,
          database: deps.db.kind,
          ...stale,
        });
        return;
      }
      res.json({ status: "ready", database: deps.db.kind, ...stale });
    } catch (error) {
      deps.logger.warn({ err: error }, "readiness check failed");
      res.status(503).json({ status: "unavailable", reason: "database unreachable", database: deps.db.kind });
    }
  };
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Whether a request carries METRICS_TOKEN (true when none is configured). */
export function metricsTokenCheck(metricsToken: string | undefined): (req: Request) => boolean {
  const expected = metricsToken ? digest(`Bearer ${metricsToken}`) : undefined;
  // Comparing fixed-length digests keeps the check constant-time.
  return (req) => !expected || timingSafeEqual(digest(req.headers.authorization ?? ""), expected);
}

export function metricsEndpoint(deps: AppDeps): RequestHandler {
  const authorized = metricsTokenCheck(deps.config.metricsToken);
  return async (req, res) => {
    if (!authorized(req)) {
      // Coarse on purpose, like the /mcp reasons: missing or invalid, nothing more.
      deps.metrics.authFailures.inc({ reason: req.headers.authorization ? "invalid" : "missing" });
      res.setHeader("WWW-Authenticate", 'Bearer realm="metrics"');
      res.status(401).json({ error: "unauthorized", error_description: "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>." });
      return;
    }
    res.setHeader("Content-Type", deps.metrics.registry.contentType);
    res.send(await deps.metrics.render());
  };
}
