// ledger_check: "has this already happened?" — the first step before any external operation.
import * as z from "zod/v4";
import { defineTool } from "../../mcp/tool.js";
import { checkTexts } from "../format.js";
import { checkLedger } from "../store.js";
import { claimJson, claimShape, keyInput, recordJson, recordShape } from "./schemas.js";

export const ledgerCheckTool = defineTool({
  name: "ledger_check",
  title: "Check the ledger",
  description:
    "Call this before any external operation (publishing, deploying, a paid API call) to learn whether it already happened: " +
    "EXECUTED (do not execute again), CLAIMED (someone holds the right to execute until the time shown) or NOT_EXECUTED (ledger_claim, then execute).",
  input: keyInput,
  output: {
    status: z.enum(["EXECUTED", "CLAIMED", "NOT_EXECUTED"]),
    action: z.string().describe("The action as stored (lower case)."),
    target: z.string(),
    record: recordShape.optional().describe("Only when EXECUTED: the record."),
    claim: claimShape.optional().describe("The current claim, also when it has expired (then status is NOT_EXECUTED); absent when there is none."),
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(input, { caller, deps }) {
    const result = await checkLedger(deps.db, input);
    const { executed, claim, now, key } = result;
    // The text follows the status the store decided; only "whose claim" is added here.
    const text =
      result.status === "EXECUTED"
        ? checkTexts.executed(executed!)
        : result.status === "CLAIMED"
          ? claim!.holderId === caller.agentId
            ? checkTexts.claimedByYou(claim!, now)
            : checkTexts.claimedByOther(claim!, now)
          : checkTexts.notExecuted(key, claim);
    return {
      text,
      structured: {
        status: result.status,
        ...key,
        record: executed ? recordJson(executed) : null,
        claim: claim ? claimJson(claim, now, caller.agentId) : null,
      },
    };
  },
});
