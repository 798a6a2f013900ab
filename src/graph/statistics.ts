// Fresh planner statistics once the graph has grown by a large share. Until
// ANALYZE runs, the planner plans reads of new rows from statistics that do not
// know them: 50,000 entities loaded through create_entities and read at once
// gave open_nodes 130 ms and search_nodes 80 ms, 6 and 9 ms after ANALYZE.
// Autovacuum would come by within about a minute
// on Postgres, and never on the embedded database; `graph import` analyzes when
// it is done, and this does the same for loads through the tools: in the
// background, one ANALYZE at a time, once the rows written since the last one
// reach a quarter of what the tables held then (at least MIN_ROWS), so a growing
// graph is analyzed a logarithmic number of times.
//
// The same holds for each scope on its own: the planner estimates a scope's rows
// from the statistics of the scope column, so 10,000 entities loaded into a new
// scope of a graph of 50,000 read as if that scope were empty (open_nodes 26 ms
// instead of 4) although the whole graph grew by less than a quarter. So a scope
// that grew by a quarter of its own rows (at least MIN_ROWS) triggers it too.
import type { Database } from "../db/core/database.js";
import type { Logger } from "pino";

const MIN_ROWS = 1000;
const GROWTH = 0.25;
const TABLES = ["graph_entities", "graph_observations", "graph_relations"];

/** Rows written through this process since the last ANALYZE, and rows stored at that ANALYZE. */
interface Count {
  since: number;
  /** Unknown until first needed (counted then). */
  base: number | undefined;
}

interface Growth {
  total: Count;
  byScope: Map<string, Count>;
  /** The refresh in progress, if any (one at a time). */
  running: Promise<void> | undefined;
  /** After a failed refresh, not before this time (ms): each write would otherwise start it again. */
  retryAt: number;
}

const RETRY_AFTER_MS = 60_000;

const growthByDb = new WeakMap<Database, Growth>();

const due = (c: Count) => c.since >= MIN_ROWS && (c.base === undefined || c.since >= c.base * GROWTH);

/** Counts rows a graph write added to a scope; starts a background ANALYZE when they are many. */
export function noteGraphGrowth(db: Database, logger: Logger, scope: string, rows: number): void {
  if (rows <= 0) return;
  let g = growthByDb.get(db);
  if (!g) growthByDb.set(db, (g = { total: { since: 0, base: undefined }, byScope: new Map(), running: undefined, retryAt: 0 }));
  g.total.since += rows;
  let s = g.byScope.get(scope);
  if (!s) g.byScope.set(scope, (s = { since: 0, base: undefined }));
  s.since += rows;
  if (g.running || !(due(g.total) || due(s)) || Date.now() < g.retryAt) return;
  const state = g;
  state.running = refreshIfGrown(db, state)
    .catch((error: unknown) => {
      state.retryAt = Date.now() + RETRY_AFTER_MS;
      logger.warn({ err: error }, "refreshing the graph's planner statistics failed; trying again in a minute (autovacuum may do it first)");
    })
    .finally(() => {
      state.running = undefined;
    });
}

/** Resolves once no refresh started by noteGraphGrowth is in progress on `db`: a write that did not start one leaves nothing to wait for. */
export async function graphStatisticsSettled(db: Database): Promise<void> {
  await growthByDb.get(db)?.running;
}

async function refreshIfGrown(db: Database, g: Growth): Promise<void> {
  g.total.base ??= await storedRows(db);
  for (const [scope, c] of g.byScope) if (c.base === undefined && c.since >= MIN_ROWS) c.base = await scopeRows(db, scope, c.since);
  if (!due(g.total) && ![...g.byScope.values()].some(due)) return;
  const counted = new Map([...g.byScope].map(([scope, c]) => [scope, c.since]));
  const countedTotal = g.total.since;
  await db.exec(`analyze ${TABLES.join(", ")}`);
  g.total.since -= countedTotal;
  g.total.base = await storedRows(db);
  for (const [scope, n] of counted) {
    const c = g.byScope.get(scope)!;
    c.since -= n;
    // A scope not counted yet stays so (it is counted once it is due): what
    // this process wrote to it says nothing of what it held before.
    if (c.base !== undefined) c.base += n;
    if (c.since === 0 && (c.base === undefined || c.base < MIN_ROWS)) g.byScope.delete(scope);
  }
}

async function storedRows(db: Database): Promise<number> {
  const r = await db.query<{ n: number }>("select coalesce(sum(greatest(reltuples, 0)), 0)::float8 as n from pg_class where relname = any($1::text[])", [TABLES]);
  return r.rows[0]?.n ?? 0;
}

/** The scope's rows before the writes not yet analyzed (its rows now, less those). */
async function scopeRows(db: Database, scope: string, since: number): Promise<number> {
  const r = await db.query<{ n: number }>(
    `select ((select count(*) from graph_entities where scope = $1) + (select count(*) from graph_observations where scope = $1)
             + (select count(*) from graph_relations where scope = $1))::float8 as n`,
    [scope],
  );
  return Math.max(0, (r.rows[0]?.n ?? 0) - since);
}
