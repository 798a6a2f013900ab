// One log line per request: request id, agent (once known), tools called, status,
// duration. Headers are never serialized, so no token can reach the log.
import { randomUUID } from "node:crypto";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { pinoHttp } from "pino-http";
import { traceFromAuthInfo } from "../auth/caller.js";

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type AuthedRequest = IncomingMessage & { auth?: AuthInfo };

export function requestLogging(logger: Logger) {
  return pinoHttp({
    logger,
    // Reuse a proxy's request id when it is well-formed, so lines correlate across hops.
    genReqId(req: IncomingMessage, res: ServerResponse) {
      const incoming = req.headers["x-request-id"];
      const id = typeof incoming === "string" && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader("x-request-id", id);
      return id;
    },
    serializers: {
      req: (req: { id: unknown; method: string; url: string; remoteAddress?: string }) => ({
        id: req.id,
        method: req.method,
        url: req.url,
        remoteAddress: req.remoteAddress,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customProps(req: AuthedRequest) {
      const trace = traceFromAuthInfo(req.auth);
      return {
        ...(req.auth?.clientId ? { agent: req.auth.clientId } : {}),
        ...(trace && trace.tools.length > 0 ? { tools: trace.tools, outcome: trace.outcome } : {}),
      };
    },
    customLogLevel(req, res, error) {
      if (error || res.statusCode >= 500) return "error";
      if (req.url === "/healthz" || req.url === "/readyz" || req.url === "/metrics") return "debug";
      return res.statusCode >= 400 ? "warn" : "info";
    },
  });
}
