// memory_list: browse facts page by page, e.g. the review queue.
import * as z from "zod/v4";
import { defineTool } from "../../../mcp/tool.js";
import { listText } from "../format.js";
import { listFacts } from "../list.js";
import { READ_ONLY, scopeField, statusField, summarySchema, typeField } from "../../tools/schemas.js";
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from "../../../limits.js";

const input = {
  status: statusField.optional().describe("Only facts in this status."),
  type: typeField.optional().describe("Only facts of this type."),
  scope: scopeField.optional().describe("Only this scope (default: all yours)."),
  author: z.string().optional().describe("Only facts whose current version this agent wrote."),
  reviewable: z
    .boolean()
    .optional()
    .describe(
      "true: others' drafts you may confirm (oldest first), then stale facts.",
    ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(LIST_MAX_LIMIT)
    .optional()
    .describe(`Facts per page, 1-${LIST_MAX_LIMIT}; default ${LIST_DEFAULT_LIMIT}.`),
  cursor: z.string().optional().describe("The last page's nextCursor, same filters."),
};

const output = {
  facts: z.array(summarySchema).describe("Most recently changed first (the review queue: drafts, then stale facts). Bodies are left out; read one with memory_get."),
  nextCursor: z.string().optional().describe("Pass as cursor to get the next page; absent on the last page."),
  scanCut: z
    .boolean()
    .optional()
    .describe("true: this call looked through as many facts as one call may without filling the page; more may match further on (nextCursor)."),
};

export const memoryListTool = defineTool({
  name: "memory_list",
  memoryOperation: "search_memory",
  title: "List facts",
  description:
    "List facts page by page, newest change first, by status, type, scope or author. " +
    "reviewable: true is your review queue (memory_review shows diffs); review it now and then. To search: memory_recall.",
  input,
  output,
  annotations: READ_ONLY,
  readsMayLag: true,
  async run(args, { caller, deps, served }) {
    const result = await listFacts(deps.db, caller, args, { staleAfterDays: deps.config.facts.staleAfterDays, scanMax: deps.config.limits.listScanMax });
    served(result.facts);
    const { scanCut, ...page } = result;
    return { text: listText(result, args.reviewable ?? false), structured: scanCut ? { ...page, scanCut } : page };
  },
});
