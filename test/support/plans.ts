// EXPLAIN (FORMAT JSON) plans, as the plan and work-bound tests read them: the
// fields they look at, and every node of a plan in one list.
import pg from "pg";
import type { Queryable } from "../../src/db/database.js";

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
