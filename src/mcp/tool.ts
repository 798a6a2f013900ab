// The one way tools are registered. It keeps each tool's callback to "parse,
// call the store, answer" by doing the rest in one place: finding the caller,
// timing and counting the call, turning domain errors into an isError answer the
// agent can act on, and hiding everything else behind a generic message.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import * as z from "zod/v4";
import type { AppDeps } from "../app-deps.js";
import { type Caller, callerFromAuthInfo } from "../auth/caller.js";
import { classifyDatabaseError } from "../db/classify.js";
import { DomainError, invalid } from "../errors.js";
import { findUnstorableText } from "../text.js";

export interface ToolContext {
  caller: Caller;
  log: Logger;
}

export interface ToolAnswer<S> {
  /** What a human or a model reads. */
  text: string;
  /** The same answer for programs, matching the tool's outputSchema. */
  structured: S;
}

export interface ToolSpec<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  name: string;
  title: string;
  /** For an agent the description is the instruction: say when to call the tool. */
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  run(input: z.infer<z.ZodObject<I>>, ctx: ToolContext): Promise<ToolAnswer<z.infer<z.ZodObject<O>>>>;
}

/** Per-request notes that the request log line picks up (see http/logging.ts). */
export interface RequestTrace {
  requestId: string;
  tools: string[];
  outcome?: string;
}

export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(server: McpServer, deps: AppDeps, spec: ToolSpec<I, O>): void {
  const { metrics, logger } = deps;
  // Object schemas, not raw shapes: the SDK turns a raw shape into an object
  // schema on every registration, and a server is built per request.
  const inputSchema = z.object(spec.input);
  const outputSchema = z.object(spec.output);
  server.registerTool(
    spec.name,
    {
      title: spec.title,
      description: spec.description,
      inputSchema,
      outputSchema,
      annotations: { title: spec.title, ...spec.annotations },
    },
    // The SDK's generic callback type cannot follow ToolSpec's generics; the
    // input was already validated against spec.input by the SDK.
    (async (input: z.infer<z.ZodObject<I>>, extra: { authInfo?: Parameters<typeof callerFromAuthInfo>[0] }) => {
      const caller = callerFromAuthInfo(extra.authInfo);
      const trace = extra.authInfo?.extra?.trace as RequestTrace | undefined;
      trace?.tools.push(spec.name);
      const log = logger.child({ tool: spec.name, agent: caller.name, reqId: trace?.requestId });
      const stopTimer = metrics.toolDuration.startTimer({ tool: spec.name });
      let outcome = "ok";
      try {
        // Every tool, one rule: text the database cannot store exactly is refused
        // up front, naming the field, instead of failing deep in a query.
        const unstorable = findUnstorableText(input);
        if (unstorable) {
          throw invalid(`${unstorable} contains a NUL character or broken Unicode (an unpaired UTF-16 surrogate), which cannot be stored as written. Send plain UTF-8 text; nothing was written.`);
        }
        const answer = await spec.run(input, { caller, log });
        return {
          content: [{ type: "text" as const, text: answer.text }],
          structuredContent: answer.structured as Record<string, unknown>,
        };
      } catch (error) {
        const known = classifyDatabaseError(error);
        if (known) {
          outcome = known.code;
          // A database error turned into an answer is still worth a log line: the
          // service's own checks should have caught it first.
          if (!(error instanceof DomainError)) log.warn({ err: error, outcome }, "tool call refused by the database");
          return errorAnswer(known);
        }
        outcome = "error";
        log.error({ err: error }, "tool call failed");
        return errorAnswer(
          new DomainError("unavailable", `Internal error while running ${spec.name}; nothing was changed. Reference: ${trace?.requestId ?? "n/a"}.`),
        );
      } finally {
        stopTimer();
        metrics.toolCalls.inc({ tool: spec.name, outcome });
        if (trace) trace.outcome = outcome;
      }
    }) as unknown as Parameters<McpServer["registerTool"]>[2],
  );
}

// No structuredContent on errors: clients validate it against the success schema.
function errorAnswer(error: DomainError) {
  return { isError: true, content: [{ type: "text" as const, text: error.message }] };
}
