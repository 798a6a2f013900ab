// ledger_claim: reserve the right to execute, so that racing agents do not both do it.
import * as z from "zod/v4";
import { invalid } from "../../errors.js";
import { defineTool } from "../../mcp/tool.js";
import { claimGrantedText } from "../format.js";
import { claimLedger } from "../store.js";
import { claimIdInput, claimJson, claimShape, keyInput } from "./schemas.js";
import { LEDGER_LIMITS } from "../../limits.js";

const ttlField = z.number().int().min(LEDGER_LIMITS.ttlMinSeconds).max(LEDGER_LIMITS.ttlMaxSeconds).optional();

export const ledgerClaimTool = defineTool({
  name: "ledger_claim",
  title: "Claim an external action",
  description:
    "Before executing what ledger_check found NOT_EXECUTED: atomically reserves the right to execute for ttlSeconds. Execute only if it succeeds, " +
    "then ledger_record with the claimId it answers. Refused if executed or claimed by another agent or worker (an expired claim is taken over).",
  input: {
    ...keyInput,
    claimId: claimIdInput.optional().describe("To renew: your claimId."),
    ttlSeconds: ttlField.describe(`Seconds it holds (default ${LEDGER_LIMITS.ttlDefaultSeconds}): cover the whole operation.`),
    // The first spelling of the argument, kept so that no client breaks.
    ttl_seconds: ttlField.describe("Old spelling of ttlSeconds."),
  },
  output: {
    event: z.enum(["claimed", "renewed", "taken_over"]).describe("claimed (new), renewed (you held it already) or taken_over (an expired claim was taken)."),
    seq: z.number().int().describe("Position of the claim event in the ledger."),
    claimId: z.string().optional().describe("Your claim's id, told only now: pass it as claimId to ledger_record, ledger_release, and ledger_claim to renew."),
    claim: claimShape,
    previousHolder: z.string().optional().describe("Only for taken_over: whose expired claim you took over."),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(input, { caller, deps }) {
    if (input.ttlSeconds !== undefined && input.ttl_seconds !== undefined && input.ttlSeconds !== input.ttl_seconds) {
      throw invalid(`ttlSeconds (${input.ttlSeconds}) and its old spelling ttl_seconds (${input.ttl_seconds}) disagree: send only ttlSeconds. Nothing was claimed.`);
    }
    const ttlSeconds = input.ttlSeconds ?? input.ttl_seconds;
    const result = await claimLedger(deps.db, caller, { action: input.action, target: input.target, ttlSeconds, claimId: input.claimId }, deps.config.ledger, deps.secrets);
    return {
      text: claimGrantedText(result.kind, result.claim, result.seq, result.previous, result.claimId),
      structured: {
        event: result.kind,
        seq: result.seq,
        claimId: result.claimId ?? null,
        claim: claimJson(result.claim, result.now, caller.agentId),
        previousHolder: result.previous?.holder ?? null,
      },
    };
  },
});
