// How a prompt is registered: a zod shape for its (string) arguments, and a
// function from the parsed arguments to the protocol text. Clients such as
// Claude Code show each prompt as a slash command; prompts/get returns the text
// as one user message that the model then follows, calling the real tools.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import type * as z from "zod/v4";

export interface PromptSpec<A extends z.ZodRawShape> {
  name: string;
  title: string;
  /** Shown in the client's prompt picker: say when to use it. */
  description: string;
  args: A;
  text(args: z.infer<z.ZodObject<A>>): string;
}

// The SDK's generic prompt callback type cannot follow PromptSpec's generics.
type LoosePromptRegistration = (
  name: string,
  config: { title: string; description: string; argsSchema: z.ZodRawShape },
  cb: (args: never) => GetPromptResult,
) => void;

export function registerProtocolPrompt<A extends z.ZodRawShape>(server: McpServer, spec: PromptSpec<A>): void {
  const register = server.registerPrompt.bind(server) as unknown as LoosePromptRegistration;
  register(
    spec.name,
    { title: spec.title, description: spec.description, argsSchema: spec.args },
    // The SDK parsed the arguments against spec.args before calling this.
    (args: z.infer<z.ZodObject<A>>): GetPromptResult => ({
      description: spec.description,
      messages: [{ role: "user", content: { type: "text", text: spec.text(args) } }],
    }),
  );
}

/** A tool input written as the agent should send it. */
export const json = (value: unknown): string => JSON.stringify(value);
