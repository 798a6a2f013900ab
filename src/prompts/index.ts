// The protocol as prompts (slash commands in clients such as Claude Code):
// start-task, remember, handoff, review. They only produce text; the tools they
// name enforce the rules. A capability with prompts and no tools
// (src/server/capabilities.ts lists it).
import type { Capability } from "../mcp/tool.js";
import { handoffPrompt } from "./handoff.js";
import { rememberPrompt } from "./remember.js";
import { reviewPrompt } from "./review.js";
import { startTaskPrompt } from "./start-task.js";

export const prompts: Capability = {
  name: "prompts",
  tools: [],
  prompts: [startTaskPrompt, rememberPrompt, handoffPrompt, reviewPrompt],
};
