// The protocol as prompts (slash commands in clients such as Claude Code):
// start-task, remember, handoff, review. They only produce text; the tools they
// name enforce the rules.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerHandoffPrompt } from "./handoff.js";
import { registerRememberPrompt } from "./remember.js";
import { registerReviewPrompt } from "./review.js";
import { registerStartTaskPrompt } from "./start-task.js";

export const PROMPT_NAMES = ["start-task", "remember", "handoff", "review"] as const;

export function registerPrompts(server: McpServer): void {
  registerStartTaskPrompt(server);
  registerRememberPrompt(server);
  registerHandoffPrompt(server);
  registerReviewPrompt(server);
}
