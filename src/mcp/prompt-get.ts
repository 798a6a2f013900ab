// prompts/get answered by this service instead of the SDK's McpServer. The
// SDK's handler refuses bad arguments with an McpError, whose message the
// client then shows with "MCP error -32602: " twice (protocol-error.ts); this
// one does the same lookup and validation and throws a ProtocolError. The
// SDK's registrations stay: they answer prompts/list (arguments from the zod
// shapes) and set the prompts capability.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, GetPromptRequestSchema, type GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/v4";
import type { CallExtra } from "./guard.js";
import { QUOTED_NAME_MAX_CHARS } from "../limits.js";
import { clip, issueText } from "../text.js";
import { ProtocolError } from "./protocol-error.js";

export interface PromptEntry {
  schema: z.ZodObject;
  callback: (args: Record<string, unknown>, extra: CallExtra) => Promise<GetPromptResult>;
}

/** Builds the prompts/get handler once per factory; `install` puts it on a server that has the prompts registered. */
export function promptGetHandler(prompts: ReadonlyMap<string, PromptEntry>): (server: McpServer) => void {
  const names = [...prompts.keys()].join(", ");
  const handler = async (request: z.infer<typeof GetPromptRequestSchema>, extra: CallExtra): Promise<GetPromptResult> => {
    const { name } = request.params;
    const prompt = prompts.get(name);
    if (!prompt) throw new ProtocolError(ErrorCode.InvalidParams, `No prompt named "${clip(name, QUOTED_NAME_MAX_CHARS)}": the prompts are ${names} (prompts/list describes them).`);
    const parsed = await prompt.schema.safeParseAsync(request.params.arguments ?? {});
    if (!parsed.success) {
      // Each a sentence (the arguments' own rules end theirs: args.ts).
      const issues = parsed.error.issues.map((i) => issueText(i).replace(/([^.!?])$/, "$1.")).join(" ");
      throw new ProtocolError(ErrorCode.InvalidParams, `Invalid arguments for prompt ${name}: ${issues}`);
    }
    return prompt.callback(parsed.data as Record<string, unknown>, extra);
  };
  return (server) => server.server.setRequestHandler(GetPromptRequestSchema, handler);
}
