// start-task: read what the team knows before touching anything. The seeds'
// worst incidents were agents that repeated a mistake already written down
// because they never looked.
import type { PromptDefinition } from "../mcp/tool.js";
import { startNotices } from "../facts/index.js";
import { json, protocolPrompt } from "./prompt.js";
import { keywordListArg, lineArg } from "./args.js";

const startTaskProtocol = protocolPrompt({
  name: "start-task",
  title: "Start a task",
  description: "Before starting work on a topic: who you are, what the team already knows about it (confirmed facts first), and which related actions are done or claimed.",
  args: {
    topic: lineArg("topic", 300).describe("The task you are about to start, in a few words (e.g. deploy the billing API)."),
    keywords: keywordListArg.optional().describe("Optional: comma-separated keywords to recall with (e.g. deploy, migration, デプロイ). By default you choose them from the topic."),
  },
  text: ({ topic, keywords }) => {
    const recall = keywords
      ? `Call memory_recall with ${json({ keywords })}, then again with other words if that finds little.`
      : `Call memory_recall with 2-6 short keywords of the topic, not the whole sentence, e.g. ${json({ keywords: ["deploy", "migration", "デプロイ"] })}.`;
    return [
      `I am starting this task: ${topic}`,
      "",
      "Before doing anything else, read what the team already knows, in this order:",
      "",
      "1. Call whoami (no arguments): your agent name and the scopes you may read and write. Everything you write is attributed to you.",
      `2. ${recall}`,
      "   - Write keywords in every language the team writes its facts in (for example English and Japanese or Korean: deploy, デプロイ, 배포).",
      "   - Use words or short phrases; a keyword of several words matches them in any order; put a keyword in double quotes to match that exact phrase.",
      "   - Add type (feedback, project, reference), scope or status to narrow a long answer; limit goes up to 50.",
      "3. Read the hits in this order and act on them:",
      "   - CONFIRMED facts were reviewed by someone other than their author: follow them. A fact marked stale has not been reviewed for a long time: follow it, but check it still holds.",
      "   - DRAFT facts are unverified claims: use them with care and say so.",
      "   - DEPRECATED facts are kept so that nobody repeats them: never do what they describe; read the reason. One withdrawn as a duplicate names the fact to read instead.",
      "   - A shortened body is not the whole fact: memory_get with its name (and scope) returns it whole, with its history.",
      "4. If the task has external side effects (publishing, deploying, sending, calling a paid API), look them up in the ledger before acting:",
      `   ledger_list with the action (e.g. ${json({ action: "deploy_prod", limit: 20 })}) shows what was already done; ledger_check with ${json({ action: "deploy_prod", target: "billing-api" })} says EXECUTED, CLAIMED (by whom, until when) or NOT_EXECUTED for one target.`,
      "   Never execute an action that is EXECUTED or CLAIMED by someone else. Use the handoff prompt (check → claim → act → record) when you execute one.",
      "5. Then tell me in a few lines: the confirmed facts that apply, the drafts and deprecated facts to keep in mind, and the related ledger entries. Only then start the work.",
      "",
      "When you learn something reusable during the task (a correction, a settled decision, a prevention rule), store it with the remember prompt.",
    ].join("\n");
  },
});

/**
 * The protocol, preceded by the caller's withdrawal notices when it has any
 * (facts it read that were deprecated since, as memory_recall shows them once).
 */
export const startTaskPrompt: PromptDefinition = {
  ...startTaskProtocol,
  async get(args, ctx) {
    const notices = startNotices(ctx.deps, ctx.caller);
    const result = await startTaskProtocol.get(args, ctx);
    const withdrawn = await notices.deliver();
    if (withdrawn.length === 0) return result;
    const first = result.messages[0]!;
    const text = first.content.type === "text" ? first.content.text : "";
    return { ...result, messages: [{ ...first, content: { type: "text", text: `${withdrawn.join("\n")}\n\n${text}` } }, ...result.messages.slice(1)] };
  },
};
