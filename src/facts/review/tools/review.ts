// memory_review: the caller's review queue with each draft's diff. In a host
// that runs MCP Apps it opens the review app (its _meta.ui.resourceUri); every
// other client gets the same answer as text and structured content.
import * as z from "zod/v4";
import { defineTool } from "../../../mcp/tool.js";
import { TOOL_UI_META } from "../review-app/resource.js";
import { reviewAnswer, reviewText } from "../review-app/answer.js";
import { FACT_TYPES } from "../../rules.js";
import { READ_ONLY, summaryShape } from "../../tools/schemas.js";

const input = {
  cursor: z.string().optional().describe("The last answer's nextCursor."),
};

const diffLine = z.object({ kind: z.enum(["same", "added", "removed"]), text: z.string() });

const output = {
  drafts: z
    .array(
      z.object({
        ...summaryShape,
        body: z.string(),
        previous: z.object({ description: z.string(), type: z.enum(FACT_TYPES), body: z.string() }).optional().describe("The version before; absent for a new fact."),
        diff: z.array(diffLine).optional().describe("The body's line diff against previous; absent when new, or too different to diff (compare both whole)."),
      }),
    )
    .describe("Drafts by others in scopes you may write, oldest first."),
  draftCount: z.number().int(),
  stale: z
    .array(z.object({ ...summaryShape, body: z.string(), staleDays: z.number().int() }))
    .describe("Confirmed facts nobody reviewed for long, the longest first (first page only)."),
  staleCount: z.number().int(),
  countCapped: z.boolean().describe("true: the counts stopped at their cap; more wait."),
  nextCursor: z.string().optional().describe("Pass as cursor for the next page of drafts."),
};

export const memoryReviewTool = defineTool({
  name: "memory_review",
  memoryOperation: "search_memory",
  title: "Review queue",
  description: "Your review queue with diffs (an app where hosts run MCP Apps); act with memory_promote.",
  input,
  output,
  annotations: READ_ONLY,
  readsMayLag: true,
  meta: TOOL_UI_META,
  async run(args, { caller, deps, served }) {
    const { facts, limits } = deps.config;
    const answer = await reviewAnswer(deps.db, caller, args.cursor, { staleAfterDays: facts.staleAfterDays, scanMax: limits.listScanMax, duplicateTimeoutMs: facts.duplicateTimeoutMs });
    served([...answer.drafts, ...answer.stale]);
    return { text: reviewText(answer), structured: answer };
  },
});
