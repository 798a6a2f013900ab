// memory_store: record a reusable fact, or a new version of one.
import * as z from "zod/v4";
import { withRule } from "../../../mcp/arguments.js";
import { defineTool } from "../../../mcp/tool.js";
import { SIMILAR_ADVICE, storeText } from "../format.js";
import { factUri } from "../../model.js";
import { validateDescription } from "../../rules.js";
import { storeFact } from "../store.js";
import { nameField, scopeField, similarFactSchema, summarySchema, typeField, uriField, versionField } from "../../tools/schemas.js";

const input = {
  name: nameField,
  description: withRule(z.string(), validateDescription).describe("The fact in one line, 1-200 characters (e.g. \"Run migrations before deploying\")."),
  type: typeField,
  body: z
    .string()
    .describe("Why the fact holds (the evidence or incident) and how to apply it."),
  scope: scopeField.optional().describe('A scope you may write; default "shared".'),
  version: versionField.optional().describe("Omit to create; to change a fact, its current version (memory_get)."),
  supersedes: z.string().optional().describe('The fact this replaces ("name" or "scope/name"); deprecated when this is confirmed.'),
};

const output = {
  outcome: z.enum(["created", "updated", "unchanged"]).describe("unchanged: the content equals the current version, which was left as it is."),
  fact: summarySchema,
  previousVersion: z.number().int().optional().describe("The version this call replaced (absent when created)."),
  uri: uriField,
  similar: z
    .array(similarFactSchema)
    .optional()
    .describe("Only when a fact was created: up to 3 facts you can read whose name and description are much alike, or whose description is the same (then with any similarity), most similar first. If one is the same fact, update it instead."),
  supersedes: z.string().optional().describe("The fact this one will replace."),
  similarAdvice: z.string().optional().describe("With `similar`: what to do if one of them is the same fact."),
};

export const memoryStoreTool = defineTool({
  name: "memory_store",
  memoryOperation: "upsert_memory",
  title: "Store a fact",
  description:
    "Store one reusable fact in the team's shared memory, or a new version of one: what the next agent needs and cannot see elsewhere " +
    "(corrections, settled decisions, prevention rules from a failure, where things are). Not chat, progress notes or what the code says. " +
    "One fact per record; memory_recall first, to update instead of duplicating. A new fact is a draft until someone else confirms it. " +
    "A stale version is refused: memory_get and merge.",
  input,
  output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, { caller, deps }) {
    const result = await storeFact(deps.db, caller, args, {
      bodyMaxChars: deps.config.limits.factBodyMaxChars,
      duplicateWarning: deps.config.facts.duplicateWarning,
      duplicateTimeoutMs: deps.config.facts.duplicateTimeoutMs,
      secrets: deps.secrets,
    });
    // Recall by meaning: the queue embeds the new text now, off this call.
    deps.embeddings?.written();
    // Some clients (Claude Code among them) show their model the structured answer and not the text: the advice goes there too.
    const advice = result.similar?.length ? { similarAdvice: SIMILAR_ADVICE } : {};
    if (result.similar?.length) deps.metrics.duplicateWarnings.inc();
    return { text: storeText(result), structured: { ...result, uri: factUri(result.fact.scope, result.fact.name), ...advice } };
  },
});
