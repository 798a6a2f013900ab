// memory_get: one fact whole, with its recent versions and reviews (older ones page by page).
import * as z from "zod/v4";
import { defineTool } from "../../../mcp/tool.js";
import { fullFactText } from "../format.js";
import { factUri } from "../../model.js";
import { getFact } from "../get.js";
import { GET_HISTORY_VERSIONS } from "../../rules.js";
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

const output = { fact: fullFactSchema, uri: uriField };

export const memoryGetTool = defineTool({
  name: "memory_get",
  title: "Get a fact with its history",
  description:
    `Read one fact by its exact name: the whole body, status, version, and history (the newest ${GET_HISTORY_VERSIONS} versions, who confirmed or deprecated them, when, why). ` +
    "Call it for a shortened recalled body, and before updating, confirming or deprecating a fact.",
  input,
  output,
  annotations: READ_ONLY,
  readsMayLag: true,
  async run(args, { caller, deps }) {
    const fact = await getFact(deps.db, caller, args);
    return { text: fullFactText(fact), structured: { fact, uri: factUri(fact.scope, fact.name) } };
  },
});
