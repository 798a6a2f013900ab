// memory_get: one fact whole, with its recent versions and reviews (older ones page by page).
import * as z from "zod/v4";
import { defineTool } from "../../../mcp/tool.js";
import { fullFactText } from "../format.js";
import { factUri } from "../../model.js";
import { getFact } from "../get.js";
import { GET_HISTORY_VERSIONS } from "../../rules.js";
import { factReaders, readersText } from "../../trust/receipts.js";
import { fullFactSchema, nameField, READ_ONLY, scopeField, uriField } from "../../tools/schemas.js";

const input = {
  name: nameField,
  scope: scopeField.optional().describe("Needed if the name is in several scopes."),
  versionsBefore: z
    .number()
    .int()
    .min(2)
    .optional()
    .describe("Older history: versions[0].version of an answer with earlierVersions."),
};

const output = {
  fact: fullFactSchema,
  uri: uriField,
  readBy: z
    .object({
      readers: z.array(z.object({ agent: z.string(), reads: z.number().int(), firstAt: z.string(), lastAt: z.string(), versions: z.array(z.number().int()) })),
      more: z.number().int(),
    })
    .optional()
    .describe("For humans and reviewers of its scope: the agents served this fact, most recent first."),
};

export const memoryGetTool = defineTool({
  name: "memory_get",
  memoryOperation: "search_memory",
  title: "Get a fact with its history",
  description:
    `Read one fact by its exact name: the whole body, status, version, and history (the newest ${GET_HISTORY_VERSIONS} versions, who confirmed or deprecated them, when, why). ` +
    "Call it for a shortened recalled body, and before updating, confirming or deprecating a fact.",
  input,
  output,
  annotations: READ_ONLY,
  readsMayLag: true,
  async run(args, { caller, deps, served }) {
    const fact = await getFact(deps.db, caller, args);
    served([fact]);
    const readBy = await factReaders(deps.db, caller, fact);
    const text = fullFactText(fact) + (readBy ? `\n\n${readersText(readBy)}` : "");
    return { text, structured: { fact, uri: factUri(fact.scope, fact.name), ...(readBy ? { readBy } : {}) } };
  },
});
