// whoami: proves identity end to end and tells an agent what it may touch.
import type { Capability } from "../mcp/tool.js";
import { whoamiTool } from "./tool.js";

export const whoami: Capability = { name: "whoami", tools: [whoamiTool] };
