// fact redact SCOPE/NAME@VERSION and graph redact SCOPE/ENTITY: remove stored
// text for good, as a human with write access to the scope (docs/redaction.md).
// The version is part of the reference, not a --version option: that flag
// belongs to the program (it prints the program's version and exits).
import type { Command } from "commander";
import type { Caller } from "../../auth/caller.js";
import { callerOf, getAgent } from "../../auth/store.js";
import type { Database } from "../../db/core/database.js";
import { parseVersionRef, redactFactVersion } from "../../facts/index.js";
import { redactGraph } from "../../graph/index.js";
import { withDatabase } from "../context.js";
import { UsageError, type Output } from "../output.js";
import { action } from "../run.js";


async function human(db: Database, name: string): Promise<Caller> {
  const agent = await getAgent(db, name).catch(() => {
    throw new UsageError(`No agent named "${name}": pass --as with a human agent (agent-memory agent add NAME --kind human).`);
  });
  if (agent.disabledAt) throw new UsageError(`"${name}" is disabled; pass another --as HUMAN.`);
  return callerOf(agent);
}

export function registerRedactCommands(program: Command, graph: Command): void {
  const fact = program.command("fact").description("facts: remove a version's text for good (redact)");
  fact
    .command("redact")
    .description("replace the description and body of one version with [redacted] in every table; a tombstone keeps who, when and why")
    .argument("<ref>", "SCOPE/NAME@VERSION, e.g. shared/deploy-window@2")
    .requiredOption("--reason <text>", "why the text must go (kept in the tombstone)")
    .requiredOption("--as <human>", "the human agent redacting (write access to the scope)")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output, ref: string, opts: { reason: string; as: string }) => {
        const target = parseVersionRef(ref);
        const done = await withDatabase(out.io, async (db, { secrets }) => redactFactVersion(db, await human(db, opts.as), { ...target, reason: opts.reason }, { secrets }));
        out.result(done, () => `Redacted version ${done.version} of "${done.name}" (scope ${done.scope}): its description and body now read [redacted]. Tombstone: ${done.by} at ${done.at}: ${done.reason}`);
      }),
    );

  graph
    .command("redact")
    .description("remove an entity (its name, type, observations and relations) or one observation for good; a tombstone keeps who, when and why")
    .argument("<ref>", "SCOPE/ENTITY, e.g. shared/billing-service")
    .option("--observation <text>", "only this observation, by its exact text (as open_nodes shows it)")
    .requiredOption("--reason <text>", "why the text must go (kept in the tombstone)")
    .requiredOption("--as <human>", "the human agent redacting (write access to the scope)")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output, ref: string, opts: { reason: string; as: string; observation?: string }) => {
        const slash = ref.indexOf("/");
        if (slash < 1 || slash === ref.length - 1) throw new UsageError(`"${ref}" is not SCOPE/ENTITY (e.g. shared/billing-service).`);
        const done = await withDatabase(out.io, async (db, { secrets }) =>
          redactGraph(db, await human(db, opts.as), { scope: ref.slice(0, slash), entity: ref.slice(slash + 1), observation: opts.observation, reason: opts.reason }, { secrets }),
        );
        out.result(done, () =>
          done.kind === "observation"
            ? `Redacted one observation of entity #${done.entityId} (scope ${done.scope}). Tombstone: ${done.by} at ${done.at}: ${done.reason}`
            : `Redacted entity #${done.entityId} (scope ${done.scope}) with ${done.removed.observations} observations and ${done.removed.relations} relations. Tombstone: ${done.by} at ${done.at}: ${done.reason}`,
        );
      }),
    );
}
