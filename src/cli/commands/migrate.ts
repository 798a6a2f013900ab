// migrate: apply pending migrations and exit (for deploy pipelines that migrate
// before rolling out replicas).
import type { Command } from "commander";
import { loadConfig } from "../../config/index.js";
import { migrate } from "../../db/schema/migrate.js";
import { prepareVectorSearch } from "../../facts/index.js";
import { describeDatabase, openDatabase, withConnectionAdvice } from "../../db/core/open.js";
import { restrictFileModes } from "../file-modes.js";
import type { Output } from "../output.js";
import { action } from "../run.js";

export function registerMigrateCommand(program: Command): void {
  program
    .command("migrate")
    .description("apply pending database migrations and exit")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output) => {
        const config = loadConfig(out.io.env);
        restrictFileModes(config);
        // A running embedded service lends its database (it migrated at start: nothing is left to do).
        const db = await openDatabase(config, { viaRunningService: true });
        try {
          const report = await migrate(db).catch((error: unknown) => {
            throw withConnectionAdvice(error, config);
          });
          const fns = report.functions;
          // Recall by meaning: pgvector and its index, which a service that owns no table cannot make itself.
          const vectors = config.embeddings ? await prepareVectorSearch(db) : undefined;
          const vectorLine = vectors ? `\nRecall by meaning compares vectors ${vectors.search === "approximate" ? "through pgvector's approximate index" : "exactly"}${vectors.why ? ` (${vectors.why})` : ""}.` : "";
          out.result({ database: describeDatabase(config), applied: report.applied, functions: fns, schemaVersion: report.current, ...(vectors ? { vectorSearch: vectors.search } : {}) }, () =>
            (report.applied.length || fns.applied.length || fns.dropped.length
              ? [
                  `Brought ${describeDatabase(config)} up to date (schema version ${report.current}):`,
                  ...report.applied.map((m) => `  migration ${m}`),
                  ...(fns.applied.length ? [`  ${fns.applied.length} function(s) created or changed`] : []),
                  ...fns.dropped.map((f) => `  function ${f} dropped`),
                ].join("\n")
              : `${describeDatabase(config)} is up to date (schema version ${report.current}).`) + vectorLine,
          );
        } finally {
          await db.close();
        }
      }),
    );
}
