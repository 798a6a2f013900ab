// move --to postgres://…: outgrowing the embedded database. Copies everything
// in the data folder into an empty Postgres database (src/db/schema/copy.ts): agents
// with their token hashes (every token keeps working), facts with their
// history, the ledger with its chain and action mappings, the graph with its
// authors, OAuth clients and grants. Then it checks the copy (every table's
// rows, the ledger's chain) and says the one thing to change: DATABASE_URL.
// The embedded database must be stopped: a copy of a database being written to
// would miss what came after it.
import type { Command } from "commander";
import { loadConfig } from "../../config/index.js";
import { connectionFailure } from "../../db/postgres/connect-errors.js";
import { copyDatabase, type CopiedTable } from "../../db/schema/copy.js";
import type { Database } from "../../db/core/database.js";
import { embeddedLeftover, markMoved } from "../../db/embedded/leftover.js";
import { readHoldings } from "../../db/schema/holdings.js";
import { DataDirBusyError } from "../../db/embedded/data-dir-holder.js";
import { migrate, requireSameSchema } from "../../db/schema/migrate.js";
import { describeDatabase, openDatabase } from "../../db/core/open.js";
import { openPostgres } from "../../db/postgres/postgres.js";
import { verifyLedger } from "../../ledger/index.js";
import { restrictFileModes } from "../file-modes.js";
import { UsageError, type Output } from "../output.js";
import { action } from "../run.js";

interface MoveReport {
  from: string;
  to: string;
  tables: CopiedTable[];
  ledger: { events: number; lastHash: string };
  next: string;
}

/** Rows per table on one side, by name. */
async function counts(db: Database, tables: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const t of tables) out.set(t, (await db.query<{ n: number }>(`select count(*)::int as n from "${t.replace(/"/g, '""')}"`)).rows[0]!.n);
  return out;
}

async function openTarget(url: string, timeouts: { statementTimeoutMs: number; lockTimeoutMs: number; connectTimeoutMs: number }): Promise<Database> {
  const target = openPostgres({ ...timeouts, connectionString: url, poolMax: 2, applicationName: "agent-memory-move" });
  try {
    await target.query("select 1");
  } catch (error) {
    await target.close();
    throw connectionFailure(error, url, "--to") ?? error;
  }
  return target;
}

async function moveToPostgres(url: string, env: NodeJS.ProcessEnv): Promise<MoveReport> {
  if (!/^postgres(ql)?:\/\//.test(url)) throw new UsageError(`--to must be a Postgres connection URL (postgres://user@host:5432/database), got "${url.replace(/:[^:@/]*@/, ":***@")}".`);
  const config = loadConfig(env);
  restrictFileModes(config);
  const embedded = { ...config, databaseUrl: undefined };
  const from = describeDatabase(embedded);
  const to = describeDatabase({ ...config, databaseUrl: url });
  if (!embeddedLeftover(config.dataDir)) throw new UsageError(`There is no embedded database in ${config.dataDir} to move (AGENT_MEMORY_DATA_DIR names its folder).`);

  let source: Database;
  try {
    source = await openDatabase(embedded);
  } catch (error) {
    if (!(error instanceof DataDirBusyError)) throw error;
    throw new DataDirBusyError(
      `The embedded database in ${config.dataDir} is in use by a running service. Stop it first (a copy of a database that is being written to would miss what comes after), ` +
        "then run the move again; start the service with the new DATABASE_URL afterwards.",
    );
  }
  try {
    await requireSameSchema(source);
    const target = await openTarget(url, { ...config.db, statementTimeoutMs: 300_000 });
    try {
      if ((await target.query<{ ok: boolean }>("select to_regclass('agents') is not null as ok")).rows[0]!.ok) {
        const holdings = await readHoldings(target);
        if (holdings.agents || holdings.stored.length > 0) {
          throw new UsageError(
            `${to} holds agent-memory data already (${holdings.agents ? "agents" : holdings.stored.join(", ")}): a move goes into an empty database. ` +
              "Create one (createdb …) and name it in --to.",
          );
        }
      }
      await migrate(target);
      const tables = await copyDatabase(source, target);
      // The copy checked: every table's rows on both sides, and the ledger's chain on the new side.
      const names = tables.map((t) => t.table);
      const [before, after] = [await counts(source, names), await counts(target, names)];
      const differ = names.filter((t) => before.get(t) !== after.get(t) || before.get(t) !== tables.find((x) => x.table === t)!.rows);
      if (differ.length > 0) throw new Error(`The copy does not match the embedded database in ${differ.join(", ")}: nothing to rely on; drop ${to} and move again.`);
      const chain = await verifyLedger(target);
      const original = await verifyLedger(source);
      if (!chain.ok || chain.lastHash !== original.lastHash) {
        throw new Error(`The ledger's chain does not verify on ${to} (${chain.broken?.problem ?? "its last hash differs"}): drop that database and move again.`);
      }
      await target.exec("analyze");
      await markMoved(config.dataDir, to);
      return {
        from,
        to,
        tables,
        ledger: { events: chain.rows, lastHash: chain.lastHash },
        next: `Start the service with DATABASE_URL set to the --to URL (nothing else changes; every token keeps working). ${config.dataDir} is left as it was: delete it once the service runs on Postgres.`,
      };
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

const rowsOf = (r: MoveReport, table: string) => r.tables.find((t) => t.table === table)?.rows ?? 0;
const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function registerMoveCommand(program: Command): void {
  program
    .command("move")
    .description("copy the embedded database (agents with their tokens, facts, ledger, graph: everything) into an empty Postgres database, check the copy, and say what to change")
    .requiredOption("--to <url>", "the empty Postgres database: postgres://user@host:5432/database")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output, opts: { to: string }) => {
        const report = await moveToPostgres(opts.to, out.io.env);
        out.result(report, () =>
          [
            `Moved ${report.from} to ${report.to}:`,
            `  ${count(rowsOf(report, "agents"), "agent")} with ${count(rowsOf(report, "agent_tokens"), "token")} (every token keeps working), ` +
              `${count(rowsOf(report, "facts"), "fact")} (${count(rowsOf(report, "fact_versions"), "version")}), ` +
              `${count(report.ledger.events, "ledger event")} (chain verified), ${count(rowsOf(report, "ledger_actions"), "action mapping")}, ` +
              `${count(rowsOf(report, "graph_entities"), "graph entity", "graph entities")}, ${count(rowsOf(report, "graph_relations"), "relation")}`,
            `  ${report.tables.reduce((n, t) => n + t.rows, 0)} rows in ${report.tables.length} tables, each counted on both sides.`,
            `Next: DATABASE_URL=${opts.to.replace(/:[^:@/]*@/, ":***@")} npm start`,
            report.next,
          ].join("\n"),
        );
      }),
    );
}
