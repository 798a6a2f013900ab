// The one list of what the MCP server offers. Adding a capability means adding
// its Capability object here; src/mcp/ knows none of them by name.
import { facts } from "../facts/index.js";
import { graph } from "../graph/index.js";
import { ledger } from "../ledger/index.js";
import type { Capability } from "../mcp/tool.js";
import { prompts } from "../prompts/index.js";
import { whoami } from "../whoami/index.js";

export const capabilities: readonly Capability[] = [whoami, facts, ledger, graph, prompts];
