// completion/complete answered by this service instead of the SDK's McpServer.
// Completions must see the caller (a scope it cannot read is never offered),
// and the SDK calls a completer with the typed value and the other arguments
// only. So prompt arguments are still marked with the SDK's completable() and
// resource templates still get `complete` callbacks (the SDK then lists the
// arguments and announces the completions capability), but this handler,
// installed after them, finds the same completer and calls it with the caller.
import { type CompleteCallback, completable, getCompleter } from "@modelcontextprotocol/sdk/server/completable.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CompleteRequestSchema, type CompleteResult, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import type * as z from "zod/v4";
import type { AppDeps } from "../app-deps.js";
import { QUOTED_NAME_MAX_CHARS } from "../limits.js";
import { clip } from "../text.js";
import { type CallExtra, completionCall } from "./guard.js";
import { ProtocolError } from "./protocol-error.js";
import type { Completer } from "./tool.js";

/** Values one answer holds at most (MCP's limit); a completer may return one more to say that more exist. */
const COMPLETION_MAX_VALUES = 100;

export type { Completer };

/** A prompt argument with completions, marked the SDK's way. Only this service's handler calls the completer. */
export function completableArg<T extends z.ZodType>(schema: T, complete: Completer): T {
  return completable(schema, complete as unknown as CompleteCallback<T>);
}

/** The same completer in the shape ResourceTemplate's `complete` takes (the SDK never calls it: completionHandler does). */
export const templateCompleter = (complete: Completer) => complete as unknown as (value: string) => string[];

interface CompletionSources {
  /** Each prompt's argument shape, by prompt name. */
  prompts: ReadonlyMap<string, z.ZodRawShape>;
  /** Each resource template's completers, by URI template. */
  templates: ReadonlyMap<string, Readonly<Record<string, Completer>>>;
}

const NONE: CompleteResult = { completion: { values: [], hasMore: false } };

export function completionHandler(deps: AppDeps, sources: CompletionSources): (server: McpServer) => void {
  const handler = async (request: z.infer<typeof CompleteRequestSchema>, extra: CallExtra): Promise<CompleteResult> => {
    const { ref, argument, context } = request.params;
    let complete: Completer | undefined;
    let what: string;
    if (ref.type === "ref/prompt") {
      const shape = sources.prompts.get(ref.name);
      if (!shape) throw new ProtocolError(ErrorCode.InvalidParams, `No prompt named "${clip(ref.name, QUOTED_NAME_MAX_CHARS)}": the prompts are ${[...sources.prompts.keys()].join(", ")}.`);
      const field = shape[argument.name];
      complete = field ? (getCompleter(field) as unknown as Completer | undefined) : undefined;
      what = `${ref.name}.${argument.name}`;
    } else {
      const completers = sources.templates.get(ref.uri);
      if (!completers) throw new ProtocolError(ErrorCode.InvalidParams, `No resource template "${clip(ref.uri, QUOTED_NAME_MAX_CHARS)}": the templates are ${[...sources.templates.keys()].join(", ")}.`);
      complete = completers[argument.name];
      what = `${ref.uri}#${argument.name}`;
    }
    if (!complete) return NONE;
    const run = complete;
    const values = await completionCall(deps, what, extra, (ctx) => run(argument.value, ctx, context?.arguments ?? {}));
    return { completion: { values: values.slice(0, COMPLETION_MAX_VALUES), hasMore: values.length > COMPLETION_MAX_VALUES } };
  };
  return (server) => {
    server.server.registerCapabilities({ completions: {} });
    server.server.setRequestHandler(CompleteRequestSchema, handler);
  };
}
