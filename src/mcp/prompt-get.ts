// prompts/get answered by this service instead of the SDK's McpServer: an
// unknown prompt or bad arguments are refused in the service's words, every
// problem at once. The SDK's registrations stay: they answer prompts/list
// (arguments from the zod shapes) and set the prompts capability.
import type * as z from "zod/v4";
import { type GetPromptRequest, type GetPromptResult, type McpServer, ProtocolError, ProtocolErrorCode, type ServerContext } from "../mcp-sdk/index.js";
import type { CallExtra } from "./guard.js";
import { QUOTED_NAME_MAX_CHARS } from "../limits.js";
import { clip, issueText } from "../text.js";

export interface PromptEntry {
  schema: z.ZodObject;
  callback: (args: Record<string, unknown>, extra: CallExtra) => Promise<GetPromptResult>;
}

/** Builds the prompts/get handler once per factory; `install` puts it on a server that has the prompts registered. */
export function promptGetHandler(prompts: ReadonlyMap<string, PromptEntry>): (server: McpServer) => void {
  const names = [...prompts.keys()].join(", ");
  const handler = async (request: GetPromptRequest, ctx: ServerContext): Promise<GetPromptResult> => {
    const { name } = request.params;
    const prompt = prompts.get(name);
    if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `No prompt named "${clip(name, QUOTED_NAME_MAX_CHARS)}": the prompts are ${names} (prompts/list describes them).`);
    const parsed = await prompt.schema.safeParseAsync(request.params.arguments ?? {});
    if (!parsed.success) {
      // Each a sentence (the arguments' own rules end theirs: args.ts).
      const issues = parsed.error.issues.map((i) => issueText(i).replace(/([^.!?])$/, "$1.")).join(" ");
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid arguments for prompt ${name}: ${issues}`);
    }
    return prompt.callback(parsed.data as Record<string, unknown>, { authInfo: ctx.http?.authInfo });
  };
  return (server) => server.server.setRequestHandler("prompts/get", handler);
}
