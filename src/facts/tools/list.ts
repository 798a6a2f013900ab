// memory_list: browse facts page by page, e.g. the review queue.
import * as z from "zod/v4";
import { defineTool } from "../../mcp/tool.js";
import { listText } from "../format.js";
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, listFacts } from "../list.js";
import { READ_ONLY, scopeField, statusField, summarySchema, typeField } from "./schemas.js";

const input = {
  status: statusField.optional().describe("Only facts in this status."),
  type: typeField.optional().describe("Only facts of this type."),
  scope: scopeField.optional().describe("Only facts in this scope (by default every scope you can read)."),
  author: z.string().optional().describe("Only facts whose current version this agent wrote (agent name, e.g. blog-writer)."),
  reviewable: z
    .boolean()
    .optional()
    .describe(
      "true: your review queue — drafts written by someone else in scopes you may write (most recently changed first), then confirmed facts nobody has reviewed for a long time (stale, the longest unreviewed first), which you may confirm (again) or deprecate.",
    ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(LIST_MAX_LIMIT)
    .optional()
    .describe(`Facts per page, 1-${LIST_MAX_LIMIT}; default ${LIST_DEFAULT_LIMIT}.`),
  cursor: z.string().optional().describe("nextCursor from the previous page, unchanged, with the same filters; omit for the first page."),
};

const output = {
  facts: z.array(summarySchema).describe("Most recently changed first (the review queue: drafts, then stale facts). Bodies are left out; read one with memory_get."),
  nextCursor: z.string().nullable().describe("Pass as cursor to get the next page; null on the last page."),
  scanCut: z
    .boolean()
    .optional()
    .describe("true: this call looked through as many facts as one call may without filling the page; more may match further on (nextCursor)."),
};

export const memoryListTool = defineTool({
  name: "memory_list",
  title: "List facts",
  description:
    "List facts page by page, most recently changed first, filtered by status, type, scope or author. " +
    "Call it with reviewable: true to get your review queue (drafts by others that you may confirm); review them when you have a moment, because unreviewed drafts rank below confirmed facts. " +
    "To search by topic, use memory_recall instead.",
  input,
  output,
  annotations: READ_ONLY,
  async run(args, { caller, deps }) {
    const result = await listFacts(deps.db, caller, args, { staleAfterDays: deps.config.facts.staleAfterDays, scanMax: deps.config.limits.listScanMax });
    const { scanCut, ...page } = result;
    return { text: listText(result, args.reviewable ?? false), structured: scanCut ? { ...page, scanCut } : page };
  },
});
