// ledger_list: the history of external actions and claims, newest first.
import * as z from "zod/v4";
import { defineTool } from "../../mcp/tool.js";
import { EVENT_KINDS } from "../event.js";
import { eventLine } from "../format.js";
import { listLedger } from "../list.js";
import { eventShape, listEventJson } from "./schemas.js";
import { LEDGER_LIMITS } from "../../limits.js";

export const ledgerListTool = defineTool({
  name: "ledger_list",
  title: "List ledger history",
  description:
    "Lists the team's ledger, newest first: executed operations and the claims around them. " +
    "To decide about one operation, call ledger_check instead.",
  input: {
    action: z.string().optional().describe("Only this action."),
    target: z.string().optional().describe("Only this target (exact)."),
    actor: z.string().optional().describe("Only events by this agent."),
    kind: z.enum(EVENT_KINDS).optional().describe("Only this kind of event."),
    since: z.string().optional().describe("Only events at or after this ISO 8601 time."),
    limit: z.number().int().min(1).max(LEDGER_LIMITS.listMax).optional().describe(`Events per page (default ${LEDGER_LIMITS.listDefault}).`),
    cursor: z.string().optional().describe("nextCursor of the previous page."),
  },
  output: {
    events: z.array(eventShape),
    nextCursor: z.string().optional().describe("Pass as cursor to get older events; absent on the last page."),
    scanCut: z
      .boolean()
      .optional()
      .describe("true: this call looked through as many events as one call may without filling the page; more may match further back (nextCursor)."),
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(input, { deps }) {
    const page = await listLedger(deps.db, input, { scanMax: deps.config.limits.listScanMax });
    const lines = page.events.map(eventLine);
    const more = page.scanCut
      ? `\nThis call looked through as many events as one call may (LIST_SCAN_MAX) without filling the page; more may match further back. Call again with cursor "${page.nextCursor}" and the same filters to go on.`
      : page.nextCursor
        ? `\nMore: call again with cursor "${page.nextCursor}".`
        : "";
    const none = page.scanCut ? "No ledger events match so far." : "No ledger events match.";
    const text = (lines.length ? `${lines.length} ledger event(s), newest first:\n${lines.join("\n")}` : none) + more;
    return { text, structured: { events: page.events.map(listEventJson), nextCursor: page.nextCursor, ...(page.scanCut ? { scanCut: true } : {}) } };
  },
});
