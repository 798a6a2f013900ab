// memory_promote: review a fact — confirm someone else's draft, or deprecate a wrong fact.
import * as z from "zod/v4";
import { defineTool } from "../../mcp/tool.js";
import { promoteText } from "../format.js";
import { FACT_STATUSES, PROMOTION_TARGETS } from "../rules.js";
import { promoteFact } from "../store.js";
import { nameField, scopeField, summarySchema, versionField } from "./schemas.js";

const input = {
  name: nameField,
  to: z
    .enum(PROMOTION_TARGETS)
    .describe("confirmed: you checked the fact and it holds (allowed from draft, never for a version you wrote). deprecated: it is wrong or obsolete (from draft or confirmed; also for your own facts)."),
  reason: z
    .string()
    .describe("Why, in 1-2000 characters: what you checked to confirm it, or what is wrong and what to do instead. Kept in the history and shown with every recall of a deprecated fact."),
  scope: scopeField.optional().describe("The fact's scope; needed only when the name exists in several scopes you can read."),
  version: versionField.optional().describe("The version you reviewed. If given and no longer current, the call is refused, so you never confirm content you did not read."),
};

const output = {
  fact: summarySchema,
  from: z.enum(FACT_STATUSES),
  to: z.enum(PROMOTION_TARGETS),
  reason: z.string(),
  actor: z.string().describe("You."),
  at: z.string().describe("ISO 8601 time, UTC."),
};

export const memoryPromoteTool = defineTool({
  name: "memory_promote",
  title: "Confirm or deprecate a fact",
  description:
    "Move a fact through its lifecycle, by exact name: confirm a draft written by someone else after checking it, or deprecate a fact found wrong or obsolete. " +
    "Allowed: draft → confirmed, draft → deprecated, confirmed → deprecated. You may never confirm a version you wrote (ask another agent or a human); you may deprecate your own. " +
    "Always give the reason; deprecated facts stay visible with it so that nobody repeats the mistake. Read the fact with memory_get first and pass its version.",
  input,
  output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, { caller, deps }) {
    const result = await promoteFact(deps.db, caller, args, { staleAfterDays: deps.config.facts.staleAfterDays });
    return { text: promoteText(result), structured: { ...result } };
  },
});
