// whoami: proves identity end to end and tells an agent what it may touch.
import * as z from "zod/v4";
import { describeScopes, readableScopes, writableScopes } from "../auth/scopes.js";
import { defineTool } from "../mcp/tool.js";

export const whoamiTool = defineTool({
  name: "whoami",
  title: "Who am I",
  description:
    "Returns the agent you are authenticated as and the scopes you may read and write. Call it at the start of a session if unsure which scope to use.",
  input: {},
  output: {
    name: z.string().describe("Your agent name; you are the author of everything you write."),
    kind: z.enum(["agent", "human"]),
    readScopes: z.array(z.string()).describe('Scopes you may read ("*" = all).'),
    writeScopes: z.array(z.string()).describe('Scopes you may write ("*" = all).'),
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(_input, { caller, deps }) {
    const read = readableScopes(caller);
    const write = writableScopes(caller);
    return {
      text: `You are ${caller.name} (${caller.kind}). You may read: ${describeScopes(read)}. You may write: ${describeScopes(write)}.`,
      structured: {
        name: caller.name,
        kind: caller.kind,
        readScopes: read.all ? ["*"] : read.scopes,
        writeScopes: write.all ? ["*"] : write.scopes,
      },
    };
  },
});
