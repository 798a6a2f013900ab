// The server's `instructions`: the whole working protocol in a few lines, since
// clients show this to the model before any tool description.
export const SERVER_INSTRUCTIONS = `agent-memory is the shared memory of a team of agents and humans. You are authenticated; everything you write is attributed to you.

Working protocol:
1. Before starting any task, call memory_recall with a few keywords of the task (words or short phrases, in the language the facts are written in; double quotes for an exact phrase). Respect confirmed facts; treat drafts as unverified; never repeat what a deprecated fact warns against (read its reason).
2. When you learn something reusable (a correction, a settled decision, a prevention rule), store it with memory_store: one fact per record, a precise one-line description, a body saying why it holds and how to apply it. It starts as a draft.
3. You never confirm your own facts. Review others' drafts (memory_list with reviewable: true) and promote them with memory_promote, giving the reason; deprecate facts found wrong, with the reason.
4. Before any external side effect (publishing, deploying, calling a paid API): ledger_check, then ledger_claim, then execute, then immediately ledger_record with an evidence URL and the claimId the claim answered. If ledger_check says EXECUTED, or the claim is refused, do not execute.
5. The knowledge graph tools (create_entities, search_nodes, …) hold entities, relations and observations, as in the reference memory server. Large answers are cut to a bounded size and say so: follow nextCursor (search_nodes) or nextOffset, or read_relations / read_observations, for the rest.

Prompts (slash commands in many clients) walk these steps for you: start-task (whoami, recall, related ledger entries before work), remember (store what you learned as one well-formed fact, updating instead of duplicating), handoff (check → claim → act → record for one action and target), review (confirm or deprecate the drafts in your review queue, with a reason).`;
