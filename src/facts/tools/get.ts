// memory_get: one fact whole, with its recent versions and reviews (older ones page by page).
import * as z from "zod/v4";
import { defineTool } from "../../mcp/tool.js";
import { fullFactText } from "../format.js";
import { factUri } from "../model.js";
import { getFact } from "../read.js";
import { GET_HISTORY_VERSIONS } from "../rules.js";
import { fullFactSchema, nameField, READ_ONLY, scopeField, uriField } from "./schemas.js";

const input = {
  name: nameField,
  scope: scopeField.optional().describe("The fact's scope; needed only when the name exists in several scopes you can read."),
  versionsBefore: z
    .number()
    .int()
    .min(2)
    .optional()
    .describe(`Show the ${GET_HISTORY_VERSIONS} versions before this version number (with their events) instead of the newest: pass versions[0].version of an answer that says earlierVersions.`),
};

const output = { fact: fullFactSchema, uri: uriField };

export const memoryGetTool = defineTool({
  name: "memory_get",
  title: "Get a fact with its history",
  description:
    `Read one fact by its exact name: the whole body, its current status and version, and its history — the newest ${GET_HISTORY_VERSIONS} versions (who wrote what, when) and their confirmations and deprecations (who, when, why); older versions with versionsBefore. ` +
    "Call it when a recalled body was shortened, before updating a fact (you need its current version), and before confirming or deprecating one.",
  input,
  output,
  annotations: READ_ONLY,
  async run(args, { caller, deps }) {
    const fact = await getFact(deps.db, caller, args);
    return { text: fullFactText(fact), structured: { fact, uri: factUri(fact.scope, fact.name) } };
  },
});
