// ledger_record: the bookkeeping entry right after an external operation.
import * as z from "zod/v4";
import { defineTool } from "../../mcp/tool.js";
import { executedText } from "../format.js";
import { recordLedger } from "../store.js";
import { LIMITS } from "../validate.js";
import { keyInput, recordJson, recordShape } from "./schemas.js";

export const ledgerRecordTool = defineTool({
  name: "ledger_record",
  title: "Record an executed action",
  description:
    "Call this immediately after an external operation you claimed (ledger_claim) succeeded, with a URL where its result can be seen. Without the record, " +
    "other agents (and you, later) will think it never happened and do it again. It closes your claim; without a claim of yours on the action it is refused. " +
    "A second record of the same action and target is refused and shows the first one; retrying the identical call " +
    "(same evidence) after a lost answer is safe and returns the existing record. Refused while another agent holds an unexpired claim.",
  input: {
    ...keyInput,
    evidence: z
      .string()
      .describe(`Absolute http:// or https:// URL proving the result (the published article, the deploy log…), at most ${LIMITS.evidenceMaxChars} characters.`),
    note: z.string().optional().describe(`Optional short note for whoever reads the ledger later (at most ${LIMITS.noteMaxChars} characters).`),
  },
  output: {
    record: recordShape,
    idempotent: z.boolean().describe("True when this call was an identical retry and the existing record was returned; nothing new was written."),
    closedClaim: z.boolean().describe("True when recording closed your claim (false only for an identical retry)."),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(input, { caller, deps }) {
    const result = await recordLedger(deps.db, caller, input, deps.config.ledger);
    const text = result.idempotent
      ? `Already recorded with the same evidence; nothing new was written. ${executedText(result.record)}.`
      : `Recorded: ${executedText(result.record)}.${result.closedClaim ? " Your claim is closed." : ""}`;
    return { text, structured: { record: recordJson(result.record), idempotent: result.idempotent, closedClaim: result.closedClaim !== null } };
  },
});
