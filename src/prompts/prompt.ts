// How a protocol prompt is defined: a zod shape for its (string) arguments, and
// a function from the parsed arguments to the protocol text. Clients such as
// Claude Code show each prompt as a slash command; prompts/get returns the text
// as one user message that the model then follows, calling the real tools.
import type * as z from "zod/v4";
import { definePrompt, type PromptDefinition } from "../mcp/tool.js";

interface PromptSpec<A extends z.ZodRawShape> {
  name: string;
  title: string;
  /** Shown in the client's prompt picker: say when to use it. */
  description: string;
  args: A;
  text(args: z.infer<z.ZodObject<A>>): string;
}

export function protocolPrompt<A extends z.ZodRawShape>(spec: PromptSpec<A>): PromptDefinition {
  return definePrompt({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    args: spec.args,
    // The SDK parsed the arguments against spec.args before calling this.
    async get(args) {
      return {
        description: spec.description,
        messages: [{ role: "user", content: { type: "text", text: spec.text(args) } }],
      };
    },
  });
}

/** A tool input written as the agent should send it. */
export const json = (value: unknown): string => JSON.stringify(value);
