// remember: turn what was just learned into one well-formed fact. The seeds'
// second worst habit was a second copy of a fact instead of a new version of
// the first, so the protocol looks for the existing fact before storing.
import { completeFactType, completeWritableScope, DESCRIPTION_MAX_CHARS, NAME_MAX_CHARS } from "../facts/index.js";
import { completableArg } from "../mcp/complete.js";
import { scopeArg, textArg, typeArg } from "./args.js";
import { json, protocolPrompt } from "./prompt.js";

export const rememberPrompt = protocolPrompt({
  name: "remember",
  title: "Remember what you learned",
  description: "Turn a correction, decision or lesson you just learned into one well-formed fact in the shared memory, updating the existing fact instead of writing a duplicate.",
  args: {
    learned: textArg("learned", 4000).describe("What you learned, in your own words (a correction, a settled decision, a prevention rule, where something is)."),
    scope: completableArg(scopeArg.optional().describe('Optional: the scope to store it in (one you may write, see whoami). Default "shared".'), (prefix, { deps, caller }) =>
      completeWritableScope(deps.db, caller, prefix),
    ),
    type: completableArg(
      typeArg.optional().describe("Optional: feedback (a correction someone gave), project (a decision or rule about the work) or reference (where something is)."),
      async (prefix) => completeFactType(prefix),
    ),
  },
  text: ({ learned, scope, type }) =>
    [
      "Store what I just learned in the team's shared memory as one well-formed fact:",
      "",
      learned,
      "",
      "Follow these steps:",
      "",
      "1. Decide whether it is worth a fact: something the next agent needs and cannot see elsewhere (a correction received, a settled decision, a rule learned from a failure, where something is). Not progress notes, chat, or what the code already says. If it is not worth one, say so and stop.",
      `2. Look for an existing fact first: memory_recall with 2-5 keywords of it, in the languages the team writes (e.g. ${json({ keywords: ["rollback", "keep-data", "ロールバック"] })}). If a fact already says this or should say it:`,
      "   - read it whole with memory_get (name, and scope if several),",
      `   - merge what you learned into its description and body, and store it with memory_store passing its current version (e.g. ${json({ name: "rollback-needs-keep-data", version: 3 })} plus the merged fields). Never write a second fact with another name.`,
      "   - If the stored fact is wrong, say so in the new version's body (what changed and why); a deprecated fact comes back only as a new version.",
      "3. Otherwise write a new fact with memory_store (without version):",
      `   - name: a kebab-case slug naming the fact itself, lowercase letters and digits joined by single hyphens, at most ${NAME_MAX_CHARS} characters (e.g. rollback-needs-keep-data, not notes-2 or learnings).`,
      `   - description: one line of at most ${DESCRIPTION_MAX_CHARS} characters stating the fact itself (e.g. "Rollbacks need --keep-data or the job queue is wiped"); recall matches it first.`,
      "   - body: why it holds (the evidence or incident: what happened, when) and how to apply it (what to do, when it applies and when not). One fact per record.",
      type
        ? `   - type: ${type}.`
        : "   - type: feedback (a correction or preference someone gave), project (a decision or rule about the work) or reference (where something is or how to reach it).",
      scope
        ? `   - scope: ${scope}.`
        : '   - scope: "shared" unless the fact only concerns a team scope you may write (whoami lists them); facts in a scope are invisible to agents who cannot read it.',
      "   If memory_store answers that similar facts exist, read them: if one is the same fact, update that one (its name and version) instead of keeping two.",
      "4. The fact is stored as a draft. You cannot confirm your own fact: tell me its name so that someone else reviews it (memory_list reviewable: true, then memory_promote).",
    ].join("\n"),
});
