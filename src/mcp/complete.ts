// completion/complete answered by this service instead of the SDK's McpServer.
// Completions must see the caller (a scope it cannot read is never offered),
// and the SDK calls a completer with the typed value and the other arguments
// only. So this service keeps the completers itself: a prompt argument's in
// completableArg's registry, a resource template's in its definition; the
// handler, installed on each server, finds one and calls it with the caller.
import type * as z from "zod/v4";
import type { AppDeps } from "../app-deps.js";
import { COMPLETION_MAX_VALUES, QUOTED_NAME_MAX_CHARS } from "../limits.js";
import { type CompleteRequest, type CompleteResult, type McpServer, ProtocolError, ProtocolErrorCode, type ServerContext } from "../mcp-sdk/index.js";
import { clip } from "../text.js";
import { completionCall } from "./guard.js";
import type { Completer } from "./tool.js";


export type { Completer };

/** The completers of prompt arguments, by the argument's schema. */
const argumentCompleters = new WeakMap<z.ZodType, Completer>();

/** A prompt argument with completions: completion/complete calls `complete` for it. */
export function completableArg<T extends z.ZodType>(schema: T, complete: Completer): T {
  argumentCompleters.set(schema, complete);
  return schema;
}

interface CompletionSources {
  /** Each prompt's argument shape, by prompt name. */
  prompts: ReadonlyMap<string, z.ZodRawShape>;
  /** Each resource template's completers, by URI template. */
  templates: ReadonlyMap<string, Readonly<Record<string, Completer>>>;
}

const NONE: CompleteResult = { completion: { values: [], hasMore: false } };

export function completionHandler(deps: AppDeps, sources: CompletionSources): (server: McpServer) => void {
  const handler = async (request: CompleteRequest, ctx: ServerContext): Promise<CompleteResult> => {
    const { ref, argument, context } = request.params;
    let complete: Completer | undefined;
    let what: string;
    if (ref.type === "ref/prompt") {
      const shape = sources.prompts.get(ref.name);
      if (!shape) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No prompt named "${clip(ref.name, QUOTED_NAME_MAX_CHARS)}": the prompts are ${[...sources.prompts.keys()].join(", ")}.`);
      const field = shape[argument.name];
      complete = field ? argumentCompleters.get(field as z.ZodType) : undefined;
      what = `${ref.name}.${argument.name}`;
    } else {
      const completers = sources.templates.get(ref.uri);
      if (!completers) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No resource template "${clip(ref.uri, QUOTED_NAME_MAX_CHARS)}": the templates are ${[...sources.templates.keys()].join(", ")}.`);
      complete = completers[argument.name];
      what = `${ref.uri}#${argument.name}`;
    }
    if (!complete) return NONE;
    const run = complete;
    const values = await completionCall(deps, what, { authInfo: ctx.http?.authInfo }, (c) => run(argument.value, c, context?.arguments ?? {}));
    return { completion: { values: values.slice(0, COMPLETION_MAX_VALUES), hasMore: values.length > COMPLETION_MAX_VALUES } };
  };
  return (server) => {
    server.server.registerCapabilities({ completions: {} });
    server.server.setRequestHandler("completion/complete", handler);
  };
}
