// The handoff ledger: exactly-once bookkeeping of external actions.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { AppDeps } from "../app-deps.js";
import { registerLedgerCheckTool } from "./tools/check.js";
import { registerLedgerClaimTool } from "./tools/claim.js";
import { registerLedgerListTool } from "./tools/list.js";
import { registerLedgerRecordTool } from "./tools/record.js";
import { registerLedgerReleaseTool } from "./tools/release.js";

export function registerLedgerTools(server: McpServer, deps: AppDeps): void {
  registerLedgerCheckTool(server, deps);
  registerLedgerClaimTool(server, deps);
  registerLedgerRecordTool(server, deps);
  registerLedgerReleaseTool(server, deps);
  registerLedgerListTool(server, deps);
}
