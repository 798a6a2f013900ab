// The handoff ledger: exactly-once bookkeeping of external actions.
import type { Capability } from "../mcp/tool.js";
import { ledgerCheckTool } from "./tools/check.js";
import { ledgerClaimTool } from "./tools/claim.js";
import { ledgerListTool } from "./tools/list.js";
import { ledgerRecordTool } from "./tools/record.js";
import { ledgerReleaseTool } from "./tools/release.js";

export const ledger: Capability = {
  name: "ledger",
  tools: [ledgerCheckTool, ledgerClaimTool, ledgerRecordTool, ledgerReleaseTool, ledgerListTool],
};
