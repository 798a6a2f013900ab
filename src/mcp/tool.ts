// What a capability hands to the MCP layer: plain definitions of its tools,
// resources and prompts, and one Capability object listing them. Nothing here
// touches a server: src/server/server.ts turns the definitions into registrations
// once and src/mcp/guard.ts wraps every callback the same way (caller, metrics,
// logging, refusal of unstorable text, error classification), so a capability's
// code stays "parse, call the store, answer".
import type { GetPromptResult, ListResourcesResult, ReadResourceResult, ToolAnnotations } from "../mcp-sdk/index.js";
import type { Logger } from "pino";
import * as z from "zod/v4";
import type { AppDeps, ServedFact } from "../app-deps.js";
import type { Caller } from "../auth/caller.js";
import type { MemoryOperation } from "../tracing/mcp-tracing.js";

/** What every tool, resource and prompt callback receives besides its input. */
export interface CallContext {
  caller: Caller;
  log: Logger;
  deps: AppDeps;
  /**
   * Says which facts this answer serves: each becomes a recall receipt (on the
   * primary, off the request path: src/facts/trust/receipt-writer.ts) and the request's trace
   * span counts them. Every answer that serves facts calls it.
   */
  served(facts: readonly ServedFact[]): void;
}

export interface ToolAnswer<S> {
  /** What a human or a model reads. */
  text: string;
  /** The same answer for programs, matching the tool's outputSchema. */
  structured: S;
}

/**
 * A structured answer as a tool may build it: an optional field may also be
 * null (stores and the other surfaces use null for "none"). The answer is sent
 * without them (guard.ts): output schemas declare optional fields, not
 * `type: [..., "null"]` unions, which some clients' strict modes reject.
 */
export type NullAsAbsent<T> = T extends readonly (infer U)[]
  ? NullAsAbsent<U>[]
  : T extends object
    ? { [K in keyof T]: undefined extends T[K] ? NullAsAbsent<Exclude<T[K], undefined>> | null | undefined : NullAsAbsent<T[K]> }
    : T;

interface ToolSpec<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  name: string;
  title: string;
  /** For an agent the description is the instruction: say when to call the tool. */
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** The tool's _meta in tools/list, e.g. an MCP App's `ui.resourceUri`. */
  meta?: Record<string, unknown>;
  /**
   * Its reads may be a moment old: with DATABASE_READ_URL it may run on a
   * streaming replica that has the caller's own writes (src/db/postgres/read-router.ts).
   * Never for a tool that writes or decides (a claim, a check before an action).
   */
  readsMayLag?: true;
  /** Which memory operation the tool is, for traces (OpenTelemetry's GenAI memory spans); none for the ledger and whoami. */
  memoryOperation?: MemoryOperation;
  run(input: z.infer<z.ZodObject<I>>, ctx: CallContext): Promise<ToolAnswer<NullAsAbsent<z.infer<z.ZodObject<O>>>>>;
}

/** A tool as the MCP layer stores it: its generics are no longer needed once the schemas are built. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: z.ZodObject<z.ZodRawShape>;
  outputSchema: z.ZodObject<z.ZodRawShape>;
  annotations: ToolAnnotations;
  meta?: Record<string, unknown> | undefined;
  readsMayLag?: true | undefined;
  memoryOperation?: MemoryOperation | undefined;
  // Method syntax on purpose: a spec's run takes its own narrower input, and the
  // input has been checked against inputSchema before run is called (guard.ts).
  run(input: Record<string, unknown>, ctx: CallContext): Promise<ToolAnswer<unknown>>;
}

export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(spec: ToolSpec<I, O>): ToolDefinition {
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    // Object schemas, not raw shapes: the SDK turns a raw shape into an object
    // schema on every registration, and a server is built per request.
    inputSchema: z.object(spec.input),
    outputSchema: z.object(spec.output),
    annotations: { title: spec.title, ...spec.annotations },
    meta: spec.meta,
    readsMayLag: spec.readsMayLag,
    memoryOperation: spec.memoryOperation,
    run: spec.run,
  };
}

/** Completes one argument (completion/complete, src/mcp/complete.ts): the typed prefix, the caller, and the other arguments already given. */
export type Completer = (prefix: string, ctx: CallContext, args: Record<string, string>) => Promise<string[]>;

/** A resource template (uri with {variables}) that can list its resources and read one. */
export interface ResourceDefinition {
  /** Registration name; also names the resource in log lines and messages. */
  name: string;
  uriTemplate: string;
  title: string;
  description: string;
  mimeType: string;
  /** Completers of the template's variables (completion/complete), by variable name. */
  complete?: Readonly<Record<string, Completer>>;
  list?(ctx: CallContext): Promise<ListResourcesResult>;
  read(uri: URL, variables: Record<string, string | string[]>, ctx: CallContext): Promise<ReadResourceResult>;
}

export function defineResource(spec: ResourceDefinition): ResourceDefinition {
  return spec;
}

/** A resource at one fixed URI (listed by resources/list), e.g. an MCP App's ui:// page. */
export interface FixedResourceDefinition {
  name: string;
  uri: string;
  title: string;
  description: string;
  mimeType: string;
  /** The listing's _meta (hosts read an App's csp from the content item first, then from here). */
  meta?: Record<string, unknown>;
  read(uri: URL, ctx: CallContext): Promise<ReadResourceResult>;
}

interface PromptSpec<A extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  /** Prompt arguments; MCP passes them as strings. */
  args: A;
  get(args: z.infer<z.ZodObject<A>>, ctx: CallContext): Promise<GetPromptResult>;
}

export interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  args: z.ZodRawShape;
  // Method syntax on purpose, as in ToolDefinition.run.
  get(args: Record<string, unknown>, ctx: CallContext): Promise<GetPromptResult>;
}

export function definePrompt<A extends z.ZodRawShape>(spec: PromptSpec<A>): PromptDefinition {
  return { name: spec.name, title: spec.title, description: spec.description, args: spec.args, get: spec.get };
}

/** One capability's contribution to the MCP server; src/server/capabilities.ts lists them all. */
export interface Capability {
  name: string;
  tools: ToolDefinition[];
  resources?: ResourceDefinition[];
  fixedResources?: FixedResourceDefinition[];
  prompts?: PromptDefinition[];
}
