// Zod shapes shared by the facts tools. Built once at module load: the server
// is created per request (stateless HTTP), so nothing here is rebuilt per call.
import * as z from "zod/v4";
import { withRule } from "../../mcp/arguments.js";
import { FACT_EVENT_KINDS, FACT_STATUSES, FACT_TYPES, GET_HISTORY_VERSIONS, MAX_KEYWORDS, validateName } from "../rules.js";

export const nameField = withRule(z.string(), validateName).describe("Exact kebab-case name, e.g. deploy-needs-migrations.");

export const scopeField = z
  .string()
  .describe('A scope you may use (see whoami), e.g. "shared" or "blog".');

export const typeField = z
  .enum(FACT_TYPES)
  .describe("feedback: a correction; project: a decision or rule; reference: where something is.");

export const statusField = z
  .enum(FACT_STATUSES)
  .describe("draft: not reviewed; confirmed: checked by another; deprecated: found wrong.");

export const versionField = z
  .number()
  .int()
  .describe("The current version (memory_get); a stale one is refused.");

export const keywordsField = z
  .array(
    z
      .string()
      .describe(
        'A word or short phrase, in the language of the facts; "in double quotes" for an exact phrase.',
      ),
  )
  .min(1)
  .max(MAX_KEYWORDS)
  .describe("A fact matches any keyword in its name, description or body.");

const iso = z.string().describe("ISO 8601 time, UTC.");

export const summaryShape = {
  name: z.string(),
  scope: z.string(),
  type: z.enum(FACT_TYPES),
  status: z.enum(FACT_STATUSES),
  description: z.string(),
  author: z.string().describe("Author of the current version."),
  version: z.number().int(),
  createdAt: iso,
  updatedAt: iso.describe("When the current version was stored."),
  statusBy: z.string().optional().describe("Who confirmed or deprecated the current version; absent for a draft."),
  statusAt: iso.optional(),
  statusReason: z.string().optional().describe("Why it was confirmed or deprecated. For a deprecated fact: why it must not be applied."),
  bodyChars: z.number().int().describe("Length of the whole body in characters."),
  stale: z
    .boolean()
    .optional()
    .describe("True for a confirmed fact nobody has reviewed for a long time (STALE_AFTER_DAYS): check it still holds; someone other than its author may confirm it again."),
};

export const summarySchema = z.object(summaryShape);

// Lean (memory_recall's leanHit): the date of the current version instead of its
// exact time; no createdAt, matchedIn or statusAt; statusBy only once reviewed,
// statusReason only when deprecated; bodyTruncated and bodyChars only for a
// shortened body; stale only when true.
const { createdAt: _createdAt, updatedAt: _updatedAt, statusBy, statusAt: _statusAt, statusReason, bodyChars, stale: _stale, ...recallShape } = summaryShape;

export const recallHitSchema = z.object({
  ...recallShape,
  updatedOn: z.string().describe("The day the current version was stored (YYYY-MM-DD, UTC); memory_get has the exact time."),
  statusBy: statusBy.optional().describe("Who confirmed or deprecated the current version; absent for a draft."),
  statusReason: statusReason.optional().describe("Only for a deprecated fact: why it was withdrawn and must not be applied."),
  body: z.string().describe("The body; only its start when bodyTruncated."),
  bodyTruncated: z.literal(true).optional().describe("Present when the body was shortened; memory_get returns it whole."),
  bodyChars: bodyChars.optional().describe("Length of the whole body in characters (only when shortened)."),
  matches: z
    .array(
      z.object({
        keyword: z.string().describe("The keyword as given."),
        in: z.enum(["summary", "body"]).describe("summary: the fact's name or one-line description (these hits rank first); body: its body."),
        how: z
          .enum(["exact", "stemmed", "similar", "most-words"])
          .describe(
            "exact: as written; stemmed: by its words (other inflection or order, or the quoted phrase); similar: a near spelling (typo); most-words: a question's keyword, by most of its words.",
          ),
        words: z.array(z.string()).optional().describe("most-words only: the words it holds."),
      }),
    )
    .describe("Why it was found: each keyword that matched, where and how (its best match)."),
  stale: z
    .literal(true)
    .optional()
    .describe("Present (true) for a confirmed fact nobody has reviewed for a long time: follow it, but check it still holds."),
  confirmedBefore: z
    .object({
      version: z.number().int().describe("The earlier version that was confirmed; memory_get shows its text."),
      by: z.string().describe("Who confirmed it."),
      on: z.string().describe("The day of that confirmation (YYYY-MM-DD, UTC)."),
    })
    .optional()
    .describe("Only for a draft of a later version: its earlier version had been confirmed (the current text is not reviewed yet)."),
  copyOf: z
    .object({ scope: z.string(), name: z.string() })
    .optional()
    .describe("Only for a draft that, when stored, looked like this confirmed fact (the duplicate warning): follow the confirmed one."),
  supersededBy: z.string().optional().describe('Only for a deprecated fact a confirmed one replaced: that one ("scope/name"); follow it.'),
  matchedBy: z
    .enum(["words", "meaning", "both"])
    .optional()
    .describe("Only where recall by meaning is set up: found by the keywords' words (matches), by meaning alone (no keyword in it: check it is what you need), or both."),
  similarity: z.number().optional().describe("Found by meaning: how alike it is to the keywords (cosine similarity, 0-1)."),
});

export const similarFactSchema = z.object({
  name: z.string(),
  scope: z.string(),
  status: z.enum(FACT_STATUSES),
  version: z.number().int().describe("Its current version: pass it to memory_store to update that fact."),
  description: z.string(),
  similarity: z.number().describe("Trigram similarity of name and description (English function words left out), 0-1."),
});

const versionSchema = z.object({
  version: z.number().int(),
  description: z.string(),
  type: z.enum(FACT_TYPES),
  body: z.string(),
  author: z.string(),
  at: iso,
});

const eventSchema = z.object({
  kind: z.enum(FACT_EVENT_KINDS),
  version: z.number().int(),
  actor: z.string(),
  at: iso,
  from: z.enum(FACT_STATUSES).optional().describe("Absent for a creation."),
  to: z.enum(FACT_STATUSES),
  reason: z.string().optional(),
});

export const fullFactSchema = z.object({
  ...summaryShape,
  body: z.string(),
  versions: z
    .array(versionSchema)
    .describe(`The stored versions, oldest first: the newest ${GET_HISTORY_VERSIONS} (the last is the current one), or those before versionsBefore.`),
  events: z.array(eventSchema).describe("Every creation, new version, confirmation and deprecation of those versions, oldest first."),
  earlierVersions: z
    .number()
    .int()
    .optional()
    .describe("Only when older versions exist than the first one shown: how many. memory_get with versionsBefore = versions[0].version shows them."),
  supersedes: z.string().optional().describe('The fact this one replaces ("scope/name"), deprecated when this one is confirmed.'),
  supersededBy: z.string().optional().describe("The confirmed fact that replaced this one."),
  replacements: z.array(z.string()).optional().describe("Drafts that replace this one once someone confirms them."),
  redactions: z
    .array(z.object({ version: z.number().int(), by: z.string(), at: z.string(), reason: z.string() }))
    .optional()
    .describe('Versions whose text a human removed (it reads "[redacted]"): who, when (ISO 8601) and why.'),
});

export const uriField = z.string().describe("The fact's MCP resource URI (memory://facts/{scope}/{name}).");

export const READ_ONLY = { readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false } as const;
