// memory_promote: review a fact — confirm someone else's draft, or deprecate a wrong fact.
import * as z from "zod/v4";
import { defineTool } from "../../../mcp/tool.js";
import { promoteText } from "../format.js";
import { FACT_STATUSES, PROMOTION_TARGETS } from "../../rules.js";
import { reviewFact } from "../promote.js";
import { nameField, scopeField, summarySchema, versionField } from "../../tools/schemas.js";

const input = {
  name: nameField,
  to: z
    .enum(PROMOTION_TARGETS)
    .describe("confirmed: you checked it and it holds; deprecated: wrong or obsolete."),
  reason: z
    .string()
    .describe("What you checked, or what is wrong and what to do instead."),
  scope: scopeField.optional().describe("Needed if the name is in several scopes."),
  version: versionField.optional().describe("The version you reviewed (refused if replaced)."),
};

const output = {
  fact: summarySchema,
  from: z.enum(FACT_STATUSES),
  to: z.enum(PROMOTION_TARGETS),
  reason: z.string(),
  actor: z.string().describe("You."),
  at: z.string().describe("ISO 8601 time, UTC."),
  superseded: z.object({ scope: z.string(), name: z.string(), version: z.number().int() }).optional().describe("The fact this one replaced, now deprecated."),
  readersTold: z.object({ names: z.array(z.string()), total: z.number().int() }).optional().describe("Agents that read the withdrawn fact since its last confirmation; each is told once."),
};

export const memoryPromoteTool = defineTool({
  name: "memory_promote",
  memoryOperation: "update_memory",
  title: "Confirm or deprecate a fact",
  description:
    "Confirm someone else's draft after checking it, or deprecate a fact found wrong or obsolete. " +
    "Never confirm a version you wrote; you may deprecate your own. Always give the reason: a deprecated fact stays visible with it, " +
    "so nobody repeats the mistake. Pass the version you read (memory_get).",
  input,
  output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, { caller, deps }) {
    const result = await reviewFact(deps, caller, args);
    return { text: promoteText(result), structured: { ...result } };
  },
});
