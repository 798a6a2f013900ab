// Fresh planner statistics once the graph has grown by a large share. Until
// ANALYZE runs, the planner plans reads of new rows from statistics that do not
// know them: 50,000 entities loaded through create_entities and read at once
// gave open_nodes 130 ms and search_nodes 80 ms, 6 and 9 ms after ANALYZE
// (bench/README.md, third round). Autovacuum would come by within about a minute
// on Postgres, and never on the embedded database; `graph import` analyzes when
// it is done, and this does the same for loads through the tools: in the
// background, one ANALYZE at a time, once the rows written since the last one
// reach a quarter of what the tables held then (at least MIN_ROWS), so a growing
// graph is analyzed a logarithmic number of times.
import type { Database } from "../db/database.js";
import type { Logger } from "pino";

const MIN_ROWS = 1000;
const GROWTH = 0.25;
const TABLES = ["graph_entities", "graph_observations", "graph_relations"];

interface Growth {
  /** Rows written through this process since the last ANALYZE. */
  since: number;
  /** Rows the tables held at the last ANALYZE (pg_class.reltuples); unknown until first needed. */
  base: number | undefined;
  running: boolean;
}

const growthByDb = new WeakMap<Database, Growth>();

/** Counts rows a graph write added; starts a background ANALYZE when they are many. */
export function noteGraphGrowth(db: Database, logger: Logger, rows: number): void {
  if (rows <= 0) return;
  let g = growthByDb.get(db);
  if (!g) growthByDb.set(db, (g = { since: 0, base: undefined, running: false }));
  g.since += rows;
  if (g.running || g.since < MIN_ROWS || (g.base !== undefined && g.since < g.base * GROWTH)) return;
  g.running = true;
  const state = g;
  refreshIfGrown(db, state)
    .catch((error: unknown) => logger.warn({ err: error }, "refreshing the graph's planner statistics failed; autovacuum will do it later"))
    .finally(() => {
      state.running = false;
    });
}

async function refreshIfGrown(db: Database, g: Growth): Promise<void> {
  g.base ??= await storedRows(db);
  if (g.since < Math.max(MIN_ROWS, g.base * GROWTH)) return;
  const counted = g.since;
  await db.exec(`analyze ${TABLES.join(", ")}`);
  g.since -= counted;
  g.base = await storedRows(db);
}

async function storedRows(db: Database): Promise<number> {
  const r = await db.query<{ n: number }>("select coalesce(sum(greatest(reltuples, 0)), 0)::float8 as n from pg_class where relname = any($1::text[])", [TABLES]);
  return r.rows[0]?.n ?? 0;
}
