// EXPLAIN (FORMAT JSON) plans, as the plan and work-bound tests read them: the
// fields they look at, and every node of a plan in one list.

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
