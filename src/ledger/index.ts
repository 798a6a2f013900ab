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

// The public surface snapshots builds on: the event format, the hash chain and
// the key rules. Never the ledger's SQL.
export { exportLedger } from "./audit.js";
export { listActionScopes, restoreActionScope } from "./actions.js";
export { completeAction, completeTarget } from "./complete.js";
export { appendImported, claimExpired, eventPresent, lockChainHead, readKey } from "./chain.js";
export { EVENT_KINDS, eventHash, eventJson, GENESIS_HASH, type EventKind } from "./event.js";
export { ACTION_PATTERN, actionSpelling, normalizeEvidence, normalizeKey, normalizeNote, normalizeReason, parseSince } from "./validate.js";

// What the console, the CLI and the composition root call.
export { type ActionScope, openClaimsOfAction, setActionScope, unsetActionScope } from "./actions.js";
export { verifyLedger, type VerifyReport } from "./audit.js";
export { type Claim } from "./chain.js";
export { shortRef } from "./claim-id.js";
export { type LedgerEvent } from "./event.js";
export { keyText } from "./format.js";
export { ledgerCursorBelow, listLedger, listOpenClaims, type ListResult } from "./list.js";
export { voidLedger } from "./store.js";
