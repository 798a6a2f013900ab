// handoff: execute an external side effect exactly once, with the ledger's
// check → claim → act → record, and leave evidence the next agent can verify.
import * as z from "zod/v4";
import { ACTION_PATTERN, actionSpelling, completeAction, completeTarget } from "../ledger/index.js";
import { LEDGER_LIMITS } from "../limits.js";
import { completableArg } from "../mcp/complete.js";
import { lineArg } from "./args.js";
import { json, protocolPrompt } from "./prompt.js";

// The ledger's spelling rule (ACTION_PATTERN, as normalizeAction checks it): snake_case or kebab-case.
const actionArg = z
  .string()
  .trim()
  .toLowerCase()
  .regex(ACTION_PATTERN, "action is not valid: use a snake_case or kebab-case identifier such as publish_qiita or deploy-prod.")
  .max(LEDGER_LIMITS.keyMaxChars, `action is longer than ${LEDGER_LIMITS.keyMaxChars} characters.`)
  .transform(actionSpelling);

const evidenceArg = z
  .string()
  .trim()
  .regex(/^https?:\/\/\S+$/, "evidence is not valid: give an absolute http:// or https:// URL where the result can be seen.")
  .max(LEDGER_LIMITS.evidenceMaxChars, `evidence is longer than ${LEDGER_LIMITS.evidenceMaxChars} characters.`);

export const handoffPrompt = protocolPrompt({
  name: "handoff",
  title: "Execute an action exactly once",
  description: "Before an external side effect (publish, deploy, send, call a paid API): check the ledger, claim, act, then record with evidence, so that no two agents do it twice.",
  args: {
    action: completableArg(actionArg.describe("The operation, snake_case or kebab-case (e.g. publish_qiita, deploy-prod)."), (prefix, { deps }) => completeAction(deps.db, prefix)),
    target: completableArg(
      lineArg("target", LEDGER_LIMITS.keyMaxChars).describe("What the action applies to, exact and case-sensitive (e.g. an article id, an environment, a URL)."),
      (prefix, { deps }, args) => completeTarget(deps.db, args.action, prefix),
    ),
    evidence: evidenceArg.optional().describe("Optional: the URL where the result will be visible, if you know it already."),
  },
  text: ({ action, target, evidence }) => {
    const key = { action, target };
    const recordArgs = { ...key, evidence: evidence ?? "https://…(the URL that proves the result)" };
    return [
      `Execute "${action}" on "${target}" exactly once, through the ledger. Do the steps in order and stop where a step says so:`,
      "",
      `1. Check: ledger_check with ${json(key)}.`,
      "   - EXECUTED: it was already done (the answer names who, when and the evidence). Do NOT execute it again; report the existing record to me and stop.",
      "   - CLAIMED by another agent and not expired: someone is doing it now. Do not execute; tell me who holds it and until when, and stop.",
      "   - NOT_EXECUTED (or your own claim): go on.",
      `2. Claim: ledger_claim with ${json({ ...key, ttlSeconds: LEDGER_LIMITS.ttlDefaultSeconds })} (ttlSeconds must cover the whole operation, ${LEDGER_LIMITS.ttlMinSeconds}-${LEDGER_LIMITS.ttlMaxSeconds}).`,
      "   If the claim is refused, another agent (or another worker of yours) won the race or it was executed meanwhile: do not execute; report and stop.",
      "   Keep the claimId the claim answers with: it proves the claim is yours, and the next steps pass it.",
      `3. Act: perform the operation once. Before a risky step, memory_recall with keywords of the action (e.g. ${json({ keywords: [action.replace(/_/g, " "), target] })}) for confirmed facts and deprecated mistakes about it.`,
      `   If it fails or you decide not to do it, give the claim back: ledger_release with ${json({ ...key, reason: "why it was not done", claimId: "<your claimId>" })}.`,
      `4. Record, right after it succeeded: ledger_record with ${json({ ...recordArgs, claimId: "<your claimId>" })}; add a short note if the next agent needs one.`,
      "   The evidence is an http(s) URL where anyone can see the result (the published page, the deploy log, the API response id). A second record of the same action and target is refused; an identical retry is answered with the existing record.",
      "5. Tell me what you did, with the evidence URL. If you learned something reusable on the way, store it with the remember prompt.",
    ].join("\n");
  },
});
