// ledger_release: give a claim back without executing, so another agent may go ahead.
import * as z from "zod/v4";
import { defineTool } from "../../mcp/tool.js";
import { keyText } from "../format.js";
import { releaseLedger } from "../store.js";
import { claimIdInput, keyInput } from "./schemas.js";

export const ledgerReleaseTool = defineTool({
  name: "ledger_release",
  title: "Release a claim",
  description:
    "You claimed an operation but will not execute it (it failed before any side effect): gives the claim back so another agent " +
    "can claim it at once; the reason is kept. After executing, call ledger_record instead.",
  input: {
    ...keyInput,
    reason: z.string().describe("Why you give up the claim; kept in the ledger."),
    claimId: claimIdInput.optional().describe("From ledger_claim."),
  },
  output: {
    seq: z.number().int().describe("Position of the release event in the ledger."),
    action: z.string(),
    target: z.string(),
    reason: z.string(),
    at: z.string().describe("ISO 8601 time (UTC)."),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(input, { caller, deps }) {
    const result = await releaseLedger(deps.db, caller, input, deps.config.ledger, deps.secrets);
    const { action, target } = result.released;
    return {
      text: `Released your claim on ${keyText(result.released)} (ledger #${result.seq}). Reason: ${result.reason}`,
      structured: { seq: result.seq, action, target, reason: result.reason, at: result.at.toISOString() },
    };
  },
});
