// EXPLAIN (FORMAT JSON) plans, as the plan and work-bound tests read them: the
// fields they look at, and every node of a plan in one list.
import pg from "pg";
import type { Database, Queryable } from "../../src/db/core/database.js";

/** A plan node of EXPLAIN (FORMAT JSON): what the tests look at. */
export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  "Recheck Cond"?: string;
  Filter?: string;
  "Subplan Name"?: string;
  Plans?: PlanNode[];
}

/** A node of EXPLAIN (ANALYZE, FORMAT JSON) or auto_explain with analyze: what it read. */
export interface AnalyzedPlanNode extends PlanNode {
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  Plans?: AnalyzedPlanNode[];
}

/** The node and all the nodes below it, depth first. */
export function planNodes<T extends PlanNode>(plan: T): T[] {
  return [plan, ...((plan.Plans ?? []) as T[]).flatMap((p) => planNodes(p))];
}

const statements = new WeakMap<object, Map<string, Promise<string>>>();

/**
 * The statement a PL/pgSQL function of sql/functions/ runs (`return query
 * select to_json(r) from (<statement>) r;`), read back from the database: the
 * function file is its one copy, and the plan tests EXPLAIN it with the same
 * parameters the function gets.
 */
export function functionStatement(db: { query: Queryable["query"] }, name: string, branch = 0): Promise<string> {
  let byName = statements.get(db);
  if (!byName) statements.set(db, (byName = new Map()));
  const key = `${name}#${branch}`;
  let found = byName.get(key);
  if (!found) {
    found = db.query<{ src: string }>("select prosrc as src from pg_proc where proname = $1", [name]).then((r) => {
      if (r.rows.length !== 1) throw new Error(`expected one function named ${name}, found ${r.rows.length}`);
      const bodies = [...r.rows[0]!.src.matchAll(/return query select to_json\(r\) from \(\n([\s\S]*?)\n\s*\) r;/g)].map((m) => m[1]!);
      if (!bodies[branch]) throw new Error(`function ${name} has no statement #${branch}`);
      return bodies[branch];
    });
    byName.set(key, found);
  }
  return found;
}

/**
 * EXPLAIN (FORMAT JSON) of a function's statement (functionStatement) as the
 * function runs it, on both databases: under the function's own settings
 * (pg_proc.proconfig: no sequential scan, no memoize, …), prepared and
 * explained as a generic plan (what plan_cache_mode = force_generic_plan
 * keeps). Run bare, the statement gets a custom plan under the session's
 * settings, which the service never runs: a bound measured on it can hold or
 * fail for reasons that are not the service's.
 */
let explained = 0;

export async function explainFunction<T extends PlanNode = PlanNode>(db: Database, name: string, params: unknown[], options: { analyze?: boolean } = {}): Promise<T> {
  const statement = await functionStatement(db, name);
  const config = (await db.query<{ config: string[] | null }>("select proconfig as config from pg_proc where proname = $1", [name])).rows[0]?.config ?? [];
  return db.transaction(async (tx) => {
    for (const setting of config) {
      const [key, ...value] = setting.split("=");
      await tx.query("select set_config($1, $2, true)", [key, value.join("=")]);
    }
    await tx.query("set local plan_cache_mode = force_generic_plan");
    // Prepared statements outlive transactions: a name of its own, dropped after.
    const prepared = `am_explained_${++explained}`;
    await tx.query(`prepare ${prepared} as ${statement}`);
    // EXPLAIN EXECUTE takes no bind parameters: each value as a literal of the type the statement gave it.
    const types = (await tx.query<{ types: string[] }>("select parameter_types::text[] as types from pg_prepared_statements where name = $1", [prepared])).rows[0]!.types;
    const literals = (await tx.query<{ args: string[] }>(`select array[${types.map((t, i) => `quote_nullable($${i + 1}::${t})`).join(", ")}]::text[] as args`, params)).rows[0]!.args;
    const r = await tx.query<{ "QUERY PLAN": Array<{ Plan: T }> | string }>(`explain (${options.analyze ? "analyze, " : ""}format json) execute ${prepared}(${literals.join(", ")})`);
    await tx.query(`deallocate ${prepared}`);
    const raw = r.rows[0]!["QUERY PLAN"];
    return (typeof raw === "string" ? (JSON.parse(raw) as Array<{ Plan: T }>) : raw)[0]!.Plan;
  });
}

/**
 * The plans of every statement `text` runs, the statements of the functions it
 * calls included (auto_explain with nested statements: Postgres only), as the
 * service runs them: a function of sql/functions/ keeps generic plans.
 */
export async function nestedPlans(url: string, text: string, params: unknown[], options: { analyze?: boolean } = {}): Promise<Array<AnalyzedPlanNode & { "Total Cost": number }>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const plans: Array<AnalyzedPlanNode & { "Total Cost": number }> = [];
  client.on("notice", (n) => {
    const message = n.message ?? "";
    if (message.includes('"Plan"')) plans.push((JSON.parse(message.slice(message.indexOf("{"))) as { Plan: AnalyzedPlanNode & { "Total Cost": number } }).Plan);
  });
  try {
    await client.query(
      "load 'auto_explain'; set auto_explain.log_min_duration = 0; set auto_explain.log_nested_statements = on; " +
        `set auto_explain.log_format = json; set auto_explain.log_level = notice; set client_min_messages = notice; set auto_explain.log_analyze = ${options.analyze ? "on" : "off"}`,
    );
    await client.query(text, params);
  } finally {
    await client.end();
  }
  return plans;
}

/**
 * Rows one call read from each of `tables`, over every statement it ran
 * (nestedPlans with analyze): the rows each plan node produced or removed by a
 * filter or a recheck, times its loops. Postgres only.
 */
export async function rowsRead<T extends string>(url: string, text: string, params: unknown[], tables: readonly T[]): Promise<Record<T, number>> {
  const nodes = (await nestedPlans(url, text, params, { analyze: true })).flatMap((p) => planNodes(p));
  const read = (table: string) =>
    nodes
      .filter((n) => n["Relation Name"] === table)
      .reduce((sum, n) => sum + (n["Actual Rows"] + (n["Rows Removed by Filter"] ?? 0) + (n["Rows Removed by Index Recheck"] ?? 0)) * n["Actual Loops"], 0);
  return Object.fromEntries(tables.map((t) => [t, read(t)])) as Record<T, number>;
}
