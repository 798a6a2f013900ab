// One log line per request: request id, agent (once known), tools called, status,
// duration. Headers are never serialized, so no token can reach the log.
//
// Not pino-http: the line and req.log would be the same, but pino-http
// builds two child loggers per request (serializing the request into each, full
// headers and query first) whether anything logged through them or not. Here
// req.log is built only when something uses it (rare: errors, console sign-in),
// the line is built only when its level is enabled, and the listeners are shared
// functions, not closures per request (bench/README.md, "The per-call floor, part 2").
import { randomUUID } from "node:crypto";
import type { AuthInfo } from "../mcp-sdk/index.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Express } from "express";
import type { Level, Logger } from "pino";
import { traceFromAuthInfo } from "../auth/caller.js";

declare module "http" {
  interface IncomingMessage {
    /** The request id (x-request-id): a proxy's when well-formed, else a new UUID. */
    id: string;
    /** A logger whose lines carry this request (id, method, url, address). */
    log: Logger;
  }
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const QUIET_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

type AuthedRequest = IncomingMessage & { auth?: AuthInfo; originalUrl?: string };

/** Per-request state, on the response (listeners get the response as `this`). */
const STATE = Symbol("request logging");
const REQUEST_LOG = Symbol("request logger");
interface State {
  logger: Logger;
  start: number;
  done: boolean;
  onFinish: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
}
type LoggedResponse = ServerResponse & { [STATE]: State; err?: Error };
type LoggedRequest = AuthedRequest & { [REQUEST_LOG]?: Logger; [STATE]?: State };

/** What every line of a request carries about it (pino-http's shape, as configured before). */
function requestFields(req: AuthedRequest) {
  return { id: req.id, method: req.method, url: req.originalUrl ?? req.url, remoteAddress: req.socket?.remoteAddress };
}

/**
 * What MCP clients ask of every server to learn what it offers, answered with a
 * refusal that is the answer: GET on an MCP path (405: this server opens no
 * event stream) and the OAuth discovery documents of /.well-known (404: the
 * static-token path has no OAuth). Normal, and many per session: not warnings.
 */
function isClientProbe(req: IncomingMessage, status: number): boolean {
  const path = (req.url ?? "").split("?")[0]!;
  if (status === 405) return req.method === "GET" && path.endsWith("/mcp");
  // Discovery tries the document under the root and after the MCP path (/mcp/.well-known/…).
  return status === 404 && path.includes("/.well-known/");
}

function levelOf(req: IncomingMessage, res: ServerResponse, error: unknown): Level {
  if (error || res.statusCode >= 500) return "error";
  if (QUIET_PATHS.has(req.url ?? "") || isClientProbe(req, res.statusCode)) return "debug";
  return res.statusCode >= 400 ? "warn" : "info";
}

/** The request line, once per request: when answered ('finish'), or on 'close' / 'error' before that. */
function logOnce(res: LoggedResponse, error: unknown): void {
  const state = res[STATE];
  if (state.done) return;
  state.done = true;
  const req = res.req as AuthedRequest;
  const level = levelOf(req, res, error);
  if (!state.logger.isLevelEnabled(level)) return;
  const trace = traceFromAuthInfo(req.auth);
  const line: Record<string, unknown> = { req: requestFields(req) };
  if (req.auth?.clientId) line.agent = req.auth.clientId;
  if (trace && trace.tools.length > 0) {
    line.tools = trace.tools;
    line.outcome = trace.outcome;
  }
  // As pino-http: no status until the headers went out.
  line.res = { statusCode: res.headersSent ? res.statusCode : null };
  const failure = error || res.err || (res.statusCode >= 500 ? new Error(`failed with status code ${res.statusCode}`) : undefined);
  if (failure) line.err = failure;
  line.responseTime = Date.now() - state.start;
  state.logger[level](line, failure ? "request errored" : "request completed");
}

function finished(this: LoggedResponse): void {
  this[STATE].onFinish?.(this.req, this);
  logOnce(this, undefined);
}
function closed(this: LoggedResponse): void {
  logOnce(this, undefined);
}
function failed(this: LoggedResponse, error: Error): void {
  logOnce(this, error);
}

function requestLog(this: LoggedRequest): Logger {
  const state = this[STATE];
  if (!state) throw new Error("req.log used outside the request-logging middleware");
  return (this[REQUEST_LOG] ??= state.logger.child({ req: requestFields(this) }));
}

/**
 * Installs the request log on `app` and returns what starts it for one request
 * (the app's first middleware calls it). `onFinish` runs once per answered
 * request (the request counter), from the same listener.
 */
export function requestLogging(app: Express, logger: Logger, onFinish?: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void {
  // req.log is a getter on this app's request prototype (Express sets it on every
  // request), shared by all requests; only the child logger it builds is per request.
  Object.defineProperty(app.request, "log", {
    configurable: true,
    get: requestLog,
    set(this: LoggedRequest, value: Logger) {
      this[REQUEST_LOG] = value;
    },
  });
  return (req, res) => {
    // Reuse a proxy's request id when it is well-formed, so lines correlate across hops.
    const incoming = req.headers["x-request-id"];
    const id = typeof incoming === "string" && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader("x-request-id", id);
    req.id = id;
    const state: State = { logger, start: Date.now(), done: false, onFinish };
    (req as LoggedRequest)[STATE] = state;
    (res as LoggedResponse)[STATE] = state;
    res.on("finish", finished);
    res.on("close", closed);
    res.on("error", failed);
  };
}
