// The console's pages read where the MCP reads that may be a moment old do
// (src/db/postgres/read-router.ts): on a streaming replica that has replayed the signed-in
// person's last write, else on the primary. A form that changes something runs
// on the primary, and records the person's write position before its redirect
// is answered, so the page the browser loads next shows the change.
import { AsyncLocalStorage } from "node:async_hooks";
import type { RequestHandler } from "express";
import type { AppDeps } from "../app-deps.js";
import type { Database } from "../db/core/database.js";
import { sessionOf } from "./session-middleware.js";

export interface PageReads {
  /** The deps the console's routes use: their `db` is the request's (a replica for a page, else the primary). */
  deps: AppDeps;
  /** After requireSession: chooses a page's database, or marks a form's write. */
  route: RequestHandler;
}

export function pageReads(deps: AppDeps): PageReads {
  const reads = deps.reads;
  if (!reads) return { deps, route: (_req, _res, next) => next() };
  const requestDb = new AsyncLocalStorage<Database>();
  const routed: AppDeps = {
    ...deps,
    get db() {
      return requestDb.getStore() ?? deps.db;
    },
  };
  return {
    deps: routed,
    route(req, res, next) {
      const caller = sessionOf(res).caller;
      if (req.method === "GET" || req.method === "HEAD") {
        const choice = reads.choose(caller);
        deps.metrics.dbReads.inc({ target: choice.target });
        requestDb.run(choice.db, next);
        return;
      }
      // Every change a console form makes ends in a redirect to the page that shows it.
      const redirect = res.redirect.bind(res) as (...args: unknown[]) => void;
      res.redirect = ((...args: unknown[]) => {
        reads
          .noteWrite(caller.agentId)
          .catch((error: unknown) => deps.logger.warn({ err: error, agent: caller.name }, "could not record the write position for reads from replicas"))
          .finally(() => redirect(...args));
      }) as typeof res.redirect;
      next();
    },
  };
}
