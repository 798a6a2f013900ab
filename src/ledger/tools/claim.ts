// ledger_claim: reserve the right to execute, so that racing agents do not both do it.
import * as z from "zod/v4";
import { defineTool } from "../../mcp/tool.js";
import { claimGrantedText } from "../format.js";
import { claimLedger } from "../store.js";
import { LIMITS } from "../validate.js";
import { claimJson, claimShape, keyInput } from "./shapes.js";

export const ledgerClaimTool = defineTool({
  name: "ledger_claim",
  title: "Claim an external action",
  description:
    "Call this after ledger_check says NOT_EXECUTED and before you execute the operation: it atomically reserves the right to execute it " +
    "for ttl_seconds. Only when it succeeds may you execute; then call ledger_record right away. " +
    "It is refused (with the record) if the operation was already executed, and (with the holder and expiry) while another agent holds the claim; " +
    "an expired claim of another agent is taken over. Claiming again while you hold the claim renews it.",
  input: {
    ...keyInput,
    ttl_seconds: z
      .number()
      .int()
      .min(LIMITS.ttlMinSeconds)
      .max(LIMITS.ttlMaxSeconds)
      .optional()
      .describe(`How long the claim holds, in seconds (${LIMITS.ttlMinSeconds}-${LIMITS.ttlMaxSeconds}, default ${LIMITS.ttlDefaultSeconds}). Cover the whole operation.`),
  },
  output: {
    event: z.enum(["claimed", "renewed", "taken_over"]).describe("claimed (new), renewed (you held it already) or taken_over (another agent's claim had expired)."),
    seq: z.number().int().describe("Position of the claim event in the ledger."),
    claim: claimShape,
    previousHolder: z.string().nullable().describe("For taken_over: whose expired claim you took over."),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(input, { caller, deps }) {
    const result = await claimLedger(deps.db, caller, { action: input.action, target: input.target, ttlSeconds: input.ttl_seconds });
    return {
      text: claimGrantedText(result.kind, result.claim, result.seq, result.previous),
      structured: {
        event: result.kind,
        seq: result.seq,
        claim: claimJson(result.claim, result.now, caller.agentId),
        previousHolder: result.previous?.holder ?? null,
      },
    };
  },
});
