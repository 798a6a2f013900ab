// The one wrapper around every tool, resource and prompt callback: finding the
// caller, timing and counting tool calls, turning domain errors into an answer
// the agent can act on, and hiding everything else behind a generic message.
// Tools answer a failure with isError (the agent reads it); resources and
// prompts have no such answer in MCP, so they throw a JSON-RPC error instead.
import type { AppDeps, ServedFact } from "../app-deps.js";
import type { Logger } from "pino";
import { type Caller, callerFromAuthInfo, type RequestTrace, traceFromAuthInfo } from "../auth/caller.js";
import { classifyDatabaseError } from "../db/core/classify.js";
import { DomainError, invalid } from "../errors.js";
import { findUnstorableText, unstorableTextMessage } from "../text.js";
import { type AuthInfo, type CallToolResult, ProtocolError, ProtocolErrorCode } from "../mcp-sdk/index.js";
import { checkToolArguments } from "./arguments.js";
import type { CallContext, PromptDefinition, ResourceDefinition, ToolDefinition } from "./tool.js";
import type { ReadRouter } from "../db/postgres/read-router.js";

/** The part of the SDK's RequestHandlerExtra the callbacks read. */
export interface CallExtra {
  authInfo?: AuthInfo | undefined;
}


type Outcome<T> = ({ ok: true; value: T } | { ok: false; error: DomainError }) & { outcome: string };
type What = { kind: "tool" | "resource" | "prompt" | "completion"; name: string };

/**
 * What a callback receives. Its logger (a pino child naming the call, the agent
 * and the request) is built on first use: most calls never log, and building
 * one serializes its bindings.
 */
class GuardedContext implements CallContext {
  private logger: Logger | undefined;
  constructor(
    readonly caller: Caller,
    readonly deps: AppDeps,
    readonly what: What,
    readonly trace: RequestTrace | undefined,
  ) {}
  get log(): Logger {
    return (this.logger ??= this.deps.logger.child({ [this.what.kind]: this.what.name, agent: this.caller.name, reqId: this.trace?.requestId }));
  }
  // A property, not a method: callbacks take it out of their context ({ served }).
  readonly served = (facts: readonly ServedFact[]): void => {
    this.deps.receipts.record(this.caller.agentId, this.what.kind === "tool" ? this.what.name : `${this.what.kind}:${this.what.name}`, facts);
    if (this.trace) {
      this.trace.served = (this.trace.served ?? 0) + facts.length;
      // The memory store a span names: the scope, when every fact served is of one.
      const scope = facts[0]?.scope;
      if (scope !== undefined && facts.every((f) => f.scope === scope)) this.trace.storeId = scope;
    }
  };
}

/**
 * Runs one callback with its context and classifies a failure: a known one
 * (domain error, or a database error with a known meaning) keeps its vetted
 * message; anything else is logged and replaced by `internalMessage`. The
 * outcome ("ok", an error code, or "error") is what the metrics count.
 */
async function guarded<T, A>(
  deps: AppDeps,
  what: What,
  extra: CallExtra,
  internalMessage: (trace: RequestTrace | undefined) => string,
  work: (ctx: CallContext, arg: A) => Promise<T>,
  arg: A,
  readsMayLag = false,
  /** A tool that may write: a connection lost during it leaves unknown whether it did. */
  mayWrite = false,
): Promise<Outcome<T>> {
  const caller = callerFromAuthInfo(extra.authInfo);
  const trace = traceFromAuthInfo(extra.authInfo);
  const ctx = new GuardedContext(caller, deps, what, trace);
  const pending = readsMayLag && deps.reads ? onReplicaIfCurrent(deps, deps.reads, ctx, work, arg) : work(ctx, arg);
  trace?.running?.add(pending);
  try {
    return { ok: true, value: await pending, outcome: "ok" };
  } catch (error) {
    const known = classifyDatabaseError(error, { mayHaveWritten: mayWrite });
    if (known) {
      if (known.reason === "database_unavailable" && trace) trace.databaseUnavailable = known.message;
      // A database error turned into an answer is still worth a log line: the
      // service's own checks should have caught it first.
      if (!(error instanceof DomainError)) ctx.log.warn({ err: error, outcome: known.code }, `${what.kind} call refused by the database`);
      return { ok: false, error: await withoutSecrets(deps, known), outcome: known.code };
    }
    ctx.log.error({ err: error }, `${what.kind} call failed`);
    return { ok: false, error: new DomainError("unavailable", internalMessage(trace)), outcome: "error" };
  } finally {
    trace?.running?.delete(pending);
  }
}

/**
 * Runs a read on a replica that has replayed the caller's last write, when one
 * is up and within the lag bound, else on the primary (read-router.ts). A
 * replica that fails the read by being gone (or by cancelling it for a
 * conflict with recovery) costs the caller nothing: the read runs again on the primary.
 */
async function onReplicaIfCurrent<T, A>(deps: AppDeps, reads: ReadRouter, ctx: GuardedContext, work: (ctx: CallContext, arg: A) => Promise<T>, arg: A): Promise<T> {
  const choice = reads.choose(ctx.caller);
  if (choice.target === "primary") {
    deps.metrics.dbReads.inc(PRIMARY_READ);
    return work(ctx, arg);
  }
  deps.metrics.dbReads.inc(REPLICA_READ);
  try {
    return await work(new GuardedContext(ctx.caller, { ...deps, db: choice.db }, ctx.what, ctx.trace), arg);
  } catch (error) {
    if (!choice.failed?.(error)) throw error;
    ctx.log.warn({ err: error }, "read on a replica failed; read again on the primary");
    // Counted twice: the replica tried, and the primary answered.
    deps.metrics.dbReads.inc(PRIMARY_READ);
    return work(ctx, arg);
  }
}
const PRIMARY_READ = { target: "primary" } as const;
const REPLICA_READ = { target: "replica" } as const;

/**
 * A refusal may quote what was sent (an invalid name, a value out of range); a
 * credential in it is cut to its issuer's prefix, so that the answer, and the
 * transcript it lands in, never carries more of it than the guard's own refusal.
 */
async function withoutSecrets(deps: AppDeps, error: DomainError): Promise<DomainError> {
  const message = await deps.secrets.mask(error.message);
  return message === error.message ? error : new DomainError(error.code, message, error.details, error.retryable, error.reason);
}

// Every tool and prompt, one rule: text the database cannot store exactly is
// refused up front, naming the field, instead of failing deep in a query.
function refuseUnstorableText(input: unknown): void {
  const unstorable = findUnstorableText(input);
  if (unstorable) {
    throw invalid(unstorableTextMessage(unstorable));
  }
}

export function toolCallback(deps: AppDeps, tool: ToolDefinition) {
  const { metrics } = deps;
  const what: What = { kind: "tool", name: tool.name };
  const internalMessage = (t: RequestTrace | undefined) => `Internal error while running ${tool.name}; nothing was changed. Reference: ${t?.requestId ?? "n/a"}.`;
  // The secret guard is not here: every store scans what it stores, in the
  // form it stores it, after its own cheap checks (lengths, permission), so the
  // console, the CLI and imports pass it as tools do.
  const run = async (ctx: CallContext, args: Record<string, unknown>) => {
    // Unstorable text first: the rules the argument check runs would report it as something else (a NUL as a control character).
    refuseUnstorableText(args);
    return tool.run(checkToolArguments(tool.name, tool.inputSchema, args), ctx);
  };
  const durationLabels = { tool: tool.name };
  const writes = tool.annotations.readOnlyHint !== true;
  return async (input: Record<string, unknown>, extra: CallExtra): Promise<CallToolResult> => {
    const trace = traceFromAuthInfo(extra.authInfo);
    trace?.tools.push(tool.name);
    const started = performance.now();
    const result = await guarded(deps, what, extra, internalMessage, run, input, tool.readsMayLag === true, writes);
    if (writes && deps.reads && result.ok) await noteWrite(deps, deps.reads, extra);
    metrics.toolDuration.observe(durationLabels, (performance.now() - started) / 1000);
    metrics.toolCalls.inc({ tool: tool.name, outcome: result.outcome });
    if (trace) trace.outcome = result.outcome;
    // No structuredContent on errors: clients validate it against the success schema.
    // The refusal's code (and stable reason) travel in _meta, for programs (the review app) that act on it.
    if (!result.ok) return { isError: true, content: [{ type: "text" as const, text: result.error.message }], _meta: errorMeta(result.error) };
    return { content: [{ type: "text" as const, text: result.value.text }], structuredContent: withoutNulls(result.value.structured) as Record<string, unknown> };
  };
}

/** Where a tool's refusal carries its code and stable reason (DomainError.reason): `_meta["agent-memory/error"]`. */
export const ERROR_META_KEY = "agent-memory/error";

function errorMeta(error: DomainError): Record<string, unknown> {
  return { [ERROR_META_KEY]: { code: error.code, ...(error.reason ? { reason: error.reason } : {}) } };
}

/**
 * The structured answer without null properties, at any depth: "none" is an
 * absent field (NullAsAbsent in tool.ts says why). Copies only what it changes.
 */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const cleaned = withoutNulls(item);
      if (cleaned !== item) (copy ??= [...value])[i] = cleaned;
    });
    return copy ?? value;
  }
  if (typeof value !== "object" || value === null || value instanceof Date) return value;
  const object = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(object)) {
    if (item === null) {
      copy ??= { ...object };
      delete copy[key];
      continue;
    }
    const cleaned = withoutNulls(item);
    if (cleaned !== item) (copy ??= { ...object })[key] = cleaned;
  }
  return copy ?? value;
}

function throwAsJsonRpc(error: DomainError): never {
  // A resource that is not there is invalid params on every revision (2026-07-28 made it a MUST; -32002 is history).
  const code = error.code === "not_found" || error.code === "invalid" ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError;
  throw new ProtocolError(code, error.message);
}

/**
 * After a tool that may have written answered: the primary's WAL position now
 * is past its write, and the caller's reads wait for a replica that has it
 * (agent_write_positions, read back by the next call's token check). Recorded
 * before the answer leaves, so the agent's next call, on any service process,
 * knows it. A failure to record is logged, not answered: the write stands.
 */
async function noteWrite(deps: AppDeps, reads: ReadRouter, extra: CallExtra): Promise<void> {
  const caller = callerFromAuthInfo(extra.authInfo);
  try {
    await reads.noteWrite(caller.agentId);
  } catch (error) {
    deps.logger.warn({ err: error, agent: caller.name }, "could not record the write position for reads from replicas");
  }
}

/** Wraps a resource's list or read callback; failures become JSON-RPC errors. */
export function resourceCall<T>(deps: AppDeps, resource: Pick<ResourceDefinition, "name">, extra: CallExtra, work: (ctx: CallContext) => Promise<T>): Promise<T> {
  return guarded(deps, { kind: "resource", name: resource.name }, extra, () => `Internal error while reading ${resource.name} resources; nothing was changed.`, work, undefined, true).then(
    (result) => (result.ok ? result.value : throwAsJsonRpc(result.error)),
  );
}

/** Wraps one completion lookup; failures become JSON-RPC errors. */
export function completionCall<T>(deps: AppDeps, name: string, extra: CallExtra, work: (ctx: CallContext) => Promise<T>): Promise<T> {
  return guarded(deps, { kind: "completion", name }, extra, () => `Internal error while completing ${name}.`, work, undefined, true).then((result) =>
    result.ok ? result.value : throwAsJsonRpc(result.error),
  );
}

export function promptCallback(deps: AppDeps, prompt: PromptDefinition) {
  const what: What = { kind: "prompt", name: prompt.name };
  const internalMessage = (t: RequestTrace | undefined) => `Internal error while getting prompt ${prompt.name}. Reference: ${t?.requestId ?? "n/a"}.`;
  const get = async (ctx: CallContext, args: Record<string, unknown>) => {
    refuseUnstorableText(args);
    return prompt.get(args, ctx);
  };
  return async (args: Record<string, unknown>, extra: CallExtra) => {
    const result = await guarded(deps, what, extra, internalMessage, get, args);
    return result.ok ? result.value : throwAsJsonRpc(result.error);
  };
}
