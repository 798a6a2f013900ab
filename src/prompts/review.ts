// review: work through the caller's review queue. A draft is an unverified
// claim until someone other than its author confirms it; a fact nobody has
// looked at for a long time (stale) comes back to the queue for the same reason.
import * as z from "zod/v4";
import { completeWritableScope } from "../facts/index.js";
import { completableArg } from "../mcp/complete.js";
import { scopeArg } from "./args.js";
import { json, protocolPrompt } from "./prompt.js";

const limitArg = z
  .string()
  .trim()
  .regex(/^\d+$/, "limit is not valid: give a whole number from 1 to 100.")
  .transform(Number)
  .refine((n) => n >= 1 && n <= 100, "limit is not valid: give a whole number from 1 to 100.");

export const reviewPrompt = protocolPrompt({
  name: "review",
  title: "Review drafts",
  description: "Walk your review queue: read each draft (or stale fact) written by someone else, then confirm or deprecate it with a reason.",
  args: {
    scope: completableArg(scopeArg.optional().describe("Optional: only review facts in this scope."), (prefix, { deps, caller }) => completeWritableScope(deps.db, caller, prefix)),
    limit: limitArg.optional().describe("Optional: how many facts to review in this pass, 1-100 (default 20)."),
  },
  text: ({ scope, limit }) => {
    const list = { reviewable: true, ...(scope ? { scope } : {}), limit: limit ?? 20 };
    return [
      "Review the facts waiting for me in the shared memory:",
      "",
      `1. Call memory_list with ${json(list)}. It lists drafts written by someone else in scopes I may write, and confirmed facts marked stale (not reviewed for a long time); follow nextCursor for more.`,
      "2. For each fact, one at a time:",
      "   - Read it whole with memory_get (name and scope): the body, who wrote it, and its history.",
      '   - Check it against what you can verify (the code, the docs, the ledger, other facts found with memory_recall). Do not confirm what you cannot check.',
      `   - Correct and useful: memory_promote with ${json({ name: "<name>", scope: "<scope>", to: "confirmed", reason: "what you checked and how" })}.`,
      `   - Wrong or obsolete: memory_promote with ${json({ name: "<name>", scope: "<scope>", to: "deprecated", reason: "why it must not be applied" })}. A deprecated fact stays visible with that reason, so that nobody repeats it.`,
      "   - A stale confirmed fact that still holds: confirm it again (to: confirmed) with what you re-checked; that records a new review.",
      "   - Right idea but needs changes: do not confirm it; store a corrected version with memory_store (its name and current version), which someone else then reviews.",
      "   - Not sure: leave it in the queue and say why.",
      "   You never confirm a version you wrote yourself; the service refuses it.",
      "3. End with a short list: each fact, what you decided, and the reason.",
    ].join("\n");
  },
});
