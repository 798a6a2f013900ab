// ledger_record: the bookkeeping entry right after an external operation.
import * as z from "zod/v4";
import { defineTool } from "../../mcp/tool.js";
import { executedText } from "../format.js";
import { recordLedger } from "../store.js";
import { claimIdInput, keyInput, recordJson, recordShape } from "./schemas.js";

export const ledgerRecordTool = defineTool({
  name: "ledger_record",
  title: "Record an executed action",
  description:
    "Call this right after an operation you claimed succeeded: records it with a URL showing the result and your claimId, and closes your claim " +
    "(unrecorded, others redo it). A second record of the same action and target is refused; an identical retry returns the existing record.",
  input: {
    ...keyInput,
    evidence: z
      .string()
      .describe("http(s) URL showing the result (the article, the deploy log…)."),
    note: z.string().optional().describe("A short note for later readers."),
    claimId: claimIdInput.optional().describe("From ledger_claim."),
  },
  output: {
    record: recordShape,
    idempotent: z.boolean().describe("True when this call was an identical retry and the existing record was returned; nothing new was written."),
    closedClaim: z.boolean().describe("True when recording closed your claim (false only for an identical retry)."),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(input, { caller, deps }) {
    const result = await recordLedger(deps.db, caller, input, deps.config.ledger, deps.secrets);
    const text = result.idempotent
      ? `Already recorded with the same evidence; nothing new was written. ${executedText(result.record)}.`
      : `Recorded: ${executedText(result.record)}.${result.closedClaim ? " Your claim is closed." : ""}`;
    return { text, structured: { record: recordJson(result.record), idempotent: result.idempotent, closedClaim: result.closedClaim !== null } };
  },
});
