// embeddings status | backfill: recall by meaning's vectors (docs/recall.md).
// The service's queue embeds facts as they are written; backfill embeds what
// waits now, in this process, with its progress (a first set-up on a large
// store, or after a change of model), and status says how many wait.
import type { Command } from "commander";
import type { Config } from "../../config/index.js";
import { embeddingStatus, FactEmbeddings, prepareVectorSearch } from "../../facts/index.js";
import { createLogger } from "../../logger.js";
import { withDatabase } from "../context.js";
import { UsageError, type Output } from "../output.js";
import { progress } from "../progress.js";
import { action } from "../run.js";

function settingsOf(config: Config): NonNullable<Config["embeddings"]> {
  if (!config.embeddings) throw new UsageError("Recall by meaning is off: set EMBEDDINGS_URL and EMBEDDINGS_MODEL (docs/recall.md#recall-by-meaning), as for the service.");
  return config.embeddings;
}

export function registerEmbeddingsCommands(program: Command): void {
  const embeddings = program.command("embeddings").description("recall by meaning: how many facts wait for a vector, and embedding them now");
  embeddings
    .command("status")
    .description("the model, the vectors stored and the facts that wait for one")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output) => {
        const status = await withDatabase(out.io, async (db, { config }) => {
          const settings = settingsOf(config);
          return { ...(await embeddingStatus(db, settings.model)), configuredModel: settings.model, ...(await prepareVectorSearch(db)) };
        });
        out.result(status, () =>
          [
            `Model ${status.configuredModel}${status.dims ? ` (${status.dims} dimensions)` : ""}${status.model && status.model !== status.configuredModel ? `; the stored vectors are of ${status.model} and are replaced as facts are embedded again` : ""}.`,
            `${status.embedded} of ${status.facts} facts have a vector; ${status.waiting} wait${status.waiting === 1 ? "s" : ""} (agent-memory embeddings backfill embeds them now).`,
            `Vectors are compared ${status.search === "approximate" ? "through pgvector's approximate (HNSW) index" : status.search === "exact-pgvector" ? "by pgvector, exactly (no approximate index)" : "by an exact scan in SQL (pgvector is not installed)"}${status.why ? `: ${status.why}` : ""}.`,
          ].join("\n"),
        );
      }),
    );
  embeddings
    .command("backfill")
    .description("embed every fact that waits for a vector now, with progress (the service does it in the background too)")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output) => {
        const bar = progress(out.io.stderr, "embedding facts");
        const done = await withDatabase(out.io, async (db, { config }) => {
          const settings = settingsOf(config);
          const queue = new FactEmbeddings(settings, db, createLogger("silent"));
          await queue.prepare();
          const embedded = await queue.embedWaiting(AbortSignal.timeout(24 * 60 * 60_000), (n, total) => bar?.update(n, total));
          return { ...(await embeddingStatus(db, settings.model)), embeddedNow: embedded };
        });
        bar?.end();
        out.result(done, () => `Embedded ${done.embeddedNow} facts with ${done.model ?? "the model"}; ${done.embedded} of ${done.facts} have a vector, ${done.waiting} wait${done.waiting === 1 ? "s" : ""} now.`);
      }),
    );
}
