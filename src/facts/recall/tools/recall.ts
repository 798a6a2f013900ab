// memory_recall: find what the team already knows before starting work.
import * as z from "zod/v4";
import { defineTool } from "../../../mcp/tool.js";
import { recallText } from "../format.js";
import { type RecallHit, recallFacts } from "../recall.js";
import { wordHints } from "../recall-hints.js";
import { startNotices } from "../../trust/receipts.js";
import { keywordsField, READ_ONLY, recallHitSchema, scopeField, statusField, typeField } from "../../tools/schemas.js";
import { RECALL_DEFAULT_LIMIT, RECALL_MAX_LIMIT } from "../../../limits.js";

const input = {
  keywords: keywordsField,
  type: typeField.optional().describe("Only facts of this type."),
  status: statusField.optional().describe("Only facts in this status (default: all)."),
  scope: scopeField.optional().describe("Only this scope (default: all yours)."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(RECALL_MAX_LIMIT)
    .optional()
    .describe(`Most hits to return, 1-${RECALL_MAX_LIMIT}; default ${RECALL_DEFAULT_LIMIT}.`),
};

const output = {
  hits: z
    .array(recallHitSchema)
    .describe("Best first: facts matching more keywords, and in name/description rather than body, first; among equally relevant ones confirmed, draft, deprecated, then most recent."),
  total: z.number().int().describe("How many facts matched in all."),
  truncated: z.boolean().describe("True when more facts matched than were returned."),
  wordHints: z
    .array(z.object({ keyword: z.string(), words: z.array(z.object({ word: z.string(), facts: z.number().int() })) }))
    .optional()
    .describe("Only when nothing matched: for each Chinese, Japanese or Korean keyword of several words, how many facts each word finds on its own (try those as separate keywords)."),
  meaningUnavailable: z
    .string()
    .optional()
    .describe("Only where recall by meaning is set up and it was left out of this answer (the embeddings endpoint slow or down): why. The hits match by words only."),
  withdrawn: z.array(z.string()).optional().describe("Facts you read earlier that were withdrawn since: do not act on them any more. Shown once."),
};

/**
 * A hit as the structured content carries it: what an agent acts on, nothing
 * it can tell from the rest (lean answers). Complete on its own: some
 * clients (Claude Code among them) show their model this JSON and not the text.
 * The day of the current version (`updatedOn`) instead of its exact time: an
 * agent weighs a fact's age in days. Left out: createdAt (the first version's
 * time; memory_get has the history), matchedIn (the best field of `matches`),
 * statusAt (`stale` says when a review is old; memory_get has the time),
 * statusBy of a draft (null), the reason of a confirmation (memory_get has it;
 * a withdrawal's reason stays), bodyTruncated/bodyChars unless the body was
 * shortened, and stale unless true.
 */
function leanHit(h: RecallHit) {
  // Field by field, not by rest and spread, for the same reason as recallHit (read.ts): about 3 µs a hit.
  const lean: LeanHit = {
    name: h.name,
    scope: h.scope,
    type: h.type,
    status: h.status,
    description: h.description,
    author: h.author,
    version: h.version,
    body: h.body,
    matches: h.matches,
    updatedOn: h.updatedAt.slice(0, 10),
  };
  if (h.status !== "draft") lean.statusBy = h.statusBy;
  if (h.status === "deprecated") lean.statusReason = h.statusReason;
  if (h.bodyTruncated) {
    lean.bodyTruncated = true;
    lean.bodyChars = h.bodyChars;
  }
  if (h.stale) lean.stale = true;
  if (h.confirmedBefore) lean.confirmedBefore = { version: h.confirmedBefore.version, by: h.confirmedBefore.by, on: h.confirmedBefore.at.slice(0, 10) };
  if (h.copyOf) lean.copyOf = h.copyOf;
  if (h.supersededBy) lean.supersededBy = h.supersededBy;
  if (h.matchedBy) lean.matchedBy = h.matchedBy;
  if (h.similarity !== undefined) lean.similarity = h.similarity;
  return lean;
}

type LeanHit = Pick<RecallHit, "name" | "scope" | "type" | "status" | "description" | "author" | "version" | "body" | "matches"> & {
  updatedOn: string;
  statusBy?: string | null;
  statusReason?: string | null;
  bodyTruncated?: true;
  bodyChars?: number;
  stale?: true;
  confirmedBefore?: { version: number; by: string; on: string };
  copyOf?: { scope: string; name: string };
  supersededBy?: string;
  matchedBy?: "words" | "meaning" | "both";
  similarity?: number;
};

export const memoryRecallTool = defineTool({
  name: "memory_recall",
  memoryOperation: "search_memory",
  title: "Recall facts",
  description:
    "Search the team's shared memory before starting any task and before a risky step, with a few keywords of the task " +
    "(e.g. [\"database migration\", \"deploy\"]); inflections, word order and typos do not matter (\"記事のタグ\" finds \"記事にはタグを付ける\"). " +
    "Each hit says why it matched, who wrote it, whether another confirmed it, and why a deprecated one was withdrawn. " +
    "Follow confirmed facts; treat drafts as unverified; never do what a deprecated fact describes. memory_get has a shortened body whole.",
  input,
  output,
  annotations: READ_ONLY,
  readsMayLag: true,
  async run(args, { caller, deps, served }) {
    const options = { staleAfterDays: deps.config.facts.staleAfterDays, embeddings: deps.embeddings };
    // Read beside the recall (on the primary, where notices are written), not after it.
    const notices = startNotices(deps, caller);
    const result = await recallFacts(deps.db, caller, args, options);
    deps.metrics.recalls.inc({ result: result.total > 0 ? "hits" : "empty" });
    if (result.semantic) deps.metrics.recallSemantic.observe({ result: result.semantic.unavailable ? "unavailable" : "used" }, result.semantic.seconds);
    served(result.hits);
    const hints = result.total === 0 ? await wordHints(deps.db, caller, args, options) : [];
    const withdrawn = await notices.deliver();
    const text = recallText(args.keywords, result, hints);
    const { semantic, ...found } = result;
    return {
      text: withdrawn.length > 0 ? `${withdrawn.join("\n")}\n\n${text}` : text,
      structured: {
        ...found,
        hits: result.hits.map(leanHit),
        ...(semantic?.unavailable ? { meaningUnavailable: semantic.unavailable } : {}),
        ...(hints.length > 0 ? { wordHints: hints } : {}),
        ...(withdrawn.length > 0 ? { withdrawn } : {}),
      },
    };
  },
});
