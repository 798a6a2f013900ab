// The one wrapper around every tool, resource and prompt callback: finding the
// caller, timing and counting tool calls, turning domain errors into an answer
// the agent can act on, and hiding everything else behind a generic message.
// Tools answer a failure with isError (the agent reads it); resources and
// prompts have no such answer in MCP, so they throw a JSON-RPC error instead.
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AppDeps } from "../app-deps.js";
import { callerFromAuthInfo, type RequestTrace, traceFromAuthInfo } from "../auth/caller.js";
import { classifyDatabaseError } from "../db/classify.js";
import { DomainError, invalid } from "../errors.js";
import { findUnstorableText } from "../text.js";
import type { CallContext, PromptDefinition, ResourceDefinition, ToolDefinition } from "./tool.js";

/** The part of the SDK's RequestHandlerExtra the callbacks read. */
export interface CallExtra {
  authInfo?: AuthInfo | undefined;
}

// The JSON-RPC code MCP uses for "resource not found".
const RESOURCE_NOT_FOUND = -32002;

type Outcome<T> = { ok: true; value: T } | { ok: false; error: DomainError };

/**
 * Runs one callback with its context and classifies a failure: a known one
 * (domain error, or a database error with a known meaning) keeps its vetted
 * message; anything else is logged and replaced by `internalMessage`.
 */
async function guarded<T>(
  deps: AppDeps,
  what: { kind: "tool" | "resource" | "prompt"; name: string },
  extra: CallExtra,
  internalMessage: (trace: RequestTrace | undefined) => string,
  work: (ctx: CallContext) => Promise<T>,
  onOutcome?: (outcome: string) => void,
): Promise<Outcome<T>> {
  const caller = callerFromAuthInfo(extra.authInfo);
  const trace = traceFromAuthInfo(extra.authInfo);
  const log = deps.logger.child({ [what.kind]: what.name, agent: caller.name, reqId: trace?.requestId });
  let outcome = "ok";
  try {
    return { ok: true, value: await work({ caller, log, deps }) };
  } catch (error) {
    const known = classifyDatabaseError(error);
    if (known) {
      outcome = known.code;
      // A database error turned into an answer is still worth a log line: the
      // service's own checks should have caught it first.
      if (!(error instanceof DomainError)) log.warn({ err: error, outcome }, `${what.kind} call refused by the database`);
      return { ok: false, error: known };
    }
    outcome = "error";
    log.error({ err: error }, `${what.kind} call failed`);
    return { ok: false, error: new DomainError("unavailable", internalMessage(trace)) };
  } finally {
    onOutcome?.(outcome);
  }
}

// Every tool and prompt, one rule: text the database cannot store exactly is
// refused up front, naming the field, instead of failing deep in a query.
function refuseUnstorableText(input: unknown): void {
  const unstorable = findUnstorableText(input);
  if (unstorable) {
    throw invalid(`${unstorable} contains a NUL character or broken Unicode (an unpaired UTF-16 surrogate), which cannot be stored as written. Send plain UTF-8 text; nothing was written.`);
  }
}

export function toolCallback(deps: AppDeps, tool: ToolDefinition) {
  const { metrics } = deps;
  return async (input: Record<string, unknown>, extra: CallExtra): Promise<CallToolResult> => {
    const trace = traceFromAuthInfo(extra.authInfo);
    trace?.tools.push(tool.name);
    const stopTimer = metrics.toolDuration.startTimer({ tool: tool.name });
    const result = await guarded(
      deps,
      { kind: "tool", name: tool.name },
      extra,
      (t) => `Internal error while running ${tool.name}; nothing was changed. Reference: ${t?.requestId ?? "n/a"}.`,
      async (ctx) => {
        refuseUnstorableText(input);
        return tool.run(input, ctx);
      },
      (outcome) => {
        stopTimer();
        metrics.toolCalls.inc({ tool: tool.name, outcome });
        if (trace) trace.outcome = outcome;
      },
    );
    // No structuredContent on errors: clients validate it against the success schema.
    if (!result.ok) return { isError: true, content: [{ type: "text" as const, text: result.error.message }] };
    return { content: [{ type: "text" as const, text: result.value.text }], structuredContent: result.value.structured };
  };
}

function throwAsJsonRpc(error: DomainError): never {
  const code = error.code === "not_found" ? RESOURCE_NOT_FOUND : error.code === "invalid" ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  throw new McpError(code, error.message);
}

/** Wraps a resource's list or read callback; failures become JSON-RPC errors. */
export function resourceCall<T>(deps: AppDeps, resource: ResourceDefinition, extra: CallExtra, work: (ctx: CallContext) => Promise<T>): Promise<T> {
  return guarded(deps, { kind: "resource", name: resource.name }, extra, () => `Internal error while reading ${resource.name} resources; nothing was changed.`, work).then(
    (result) => (result.ok ? result.value : throwAsJsonRpc(result.error)),
  );
}

export function promptCallback(deps: AppDeps, prompt: PromptDefinition) {
  return async (args: Record<string, unknown>, extra: CallExtra) => {
    const result = await guarded(
      deps,
      { kind: "prompt", name: prompt.name },
      extra,
      (t) => `Internal error while getting prompt ${prompt.name}. Reference: ${t?.requestId ?? "n/a"}.`,
      async (ctx) => {
        refuseUnstorableText(args);
        return prompt.get(args, ctx);
      },
    );
    return result.ok ? result.value : throwAsJsonRpc(result.error);
  };
}
