// The web console's pages at the bench's sizes: server time (one keep-alive
// HTTP client on the same machine, so it is the server's time plus a loopback
// round trip) of the review queue, the facts list (first page, filtered) and an
// entity page, signed in as the human reviewer; and the plans of their queries.
// Run after the facts and graph sections (it reads what they loaded).
import pg from "pg";
import { FACT_PAGE_COUNT, LIST_FACTS, REVIEW_QUEUE, STALE_QUEUE } from "../../src/facts/sql.js";
import { FIND_SESSION } from "../../src/console/sql.js";
import { call, connect } from "../lib/clients.js";
import type { BenchContext } from "../lib/context.js";
import { signIn, timePage } from "../lib/console-pages.js";
import type { Summary } from "../lib/stats.js";
import { printTable } from "../lib/table.js";

/** Run without the graph section (e.g. --sections facts,console): load the same shape of graph. */
async function ensureGraph(ctx: BenchContext, base: string, cookie: string, n: number): Promise<void> {
  const probe = await fetch(`${base}/console/graph/graph-${n}/entity-0`, { headers: { Cookie: cookie } });
  await probe.text();
  if (probe.status === 200) return;
  ctx.log(`\nConsole: loading a graph of ${n.toLocaleString("en-US")} entities (the graph section did not run)…`);
  const client = await connect(ctx.service.mcpUrl, ctx.agents.reviewer.token);
  const args = { scope: `graph-${n}` };
  for (let i = 0; i < n; i += 100) {
    const ids = Array.from({ length: Math.min(100, n - i) }, (_, k) => i + k);
    await call(client, "create_entities", { ...args, entities: ids.map((j) => ({ name: `entity-${j}`, entityType: "service", observations: [`created in sprint ${j % 97}`, `depends on entity-${(j * 31) % n}`] })) });
    await call(client, "create_relations", { ...args, relations: ids.map((j) => ({ from: `entity-${j}`, to: `entity-${(j + 1) % n}`, relationType: "depends_on" })) });
  }
  await client.close();
  const admin = new pg.Client({ connectionString: ctx.service.databaseUrl });
  await admin.connect();
  await admin.query("vacuum analyze graph_entities, graph_observations, graph_relations");
  await admin.end();
}

export async function benchConsole(ctx: BenchContext): Promise<void> {
  const base = ctx.service.mcpUrl.replace(/\/mcp$/, "");
  const cookie = await signIn(base, ctx.agents.reviewer.token);
  const n = ctx.quick ? 40 : 300;
  const graphN = Math.max(...ctx.graphSizes);
  await ensureGraph(ctx, base, cookie, graphN);
  const latency: Record<string, Summary & { bytes: number }> = {
    "review queue (/console)": await timePage(base, cookie, n, () => "/console"),
    "facts, first page, filtered": await timePage(base, cookie, n, () => "/console/facts?scope=team-a&status=draft&type=project"),
    [`entity page (graph of ${graphN.toLocaleString("en-US")})`]: await timePage(base, cookie, n, (i) => `/console/graph/graph-${graphN}/entity-${(i * 7919) % graphN}`),
  };
  printTable(
    `Console pages at ${ctx.factsCount.toLocaleString("en-US")} facts / ${graphN.toLocaleString("en-US")} entities (ms, sequential, one client; target p50 ≤ 20, p99 ≤ 50)`,
    ["page", "KiB", "p50", "p95", "p99"],
    Object.entries(latency).map(([label, s]) => [label, s.bytes / 1024, s.p50, s.p95, s.p99]),
  );

  // The plans, with the service's own SQL and the reviewer's parameters.
  const admin = new pg.Client({ connectionString: ctx.service.databaseUrl });
  await admin.connect();
  const plans: Record<string, string[]> = {};
  try {
    const reviewerId = (await admin.query<{ id: string }>("select id from agents where name = $1", [ctx.agents.reviewer.name])).rows[0]!.id;
    const explain = async (label: string, sql: string, params: unknown[]) => {
      plans[label] = (await admin.query<{ "QUERY PLAN": string }>(`explain ${sql}`, params)).rows.map((r) => r["QUERY PLAN"]);
      ctx.log(`\n${label} plan:\n${plans[label]!.map((l) => `  ${l}`).join("\n")}`);
    };
    // am_fact_page's parameters (src/facts/sql.ts FACT_PAGE): order, status, from, stale days,
    // after (time, id), facts read at most, wanted, readable, type, scope, author, reviewer, writable.
    // Its plan is inside the function (a bounded index scan, am_fact_page); these show the joins around it.
    const page = (order: string, status: string | null, days: number | null, want: number, type: string | null, scope: string | null, reviewer: boolean) =>
      [order, status, null, days, null, null, 5000, want, true, [], type, scope, null, reviewer ? reviewerId : null, reviewer ? true : null, []];
    await explain("review queue", REVIEW_QUEUE, page("oldest", "draft", null, 11, null, null, true));
    await explain("review queue count", FACT_PAGE_COUNT, page("oldest", "draft", null, 1001, null, null, true));
    await explain("stale facts", STALE_QUEUE, page("stale", null, 180, 10, null, null, true));
    await explain("stale facts count", FACT_PAGE_COUNT, page("stale", null, 180, 1001, null, null, true));
    await explain("facts list (team-a, draft, project)", LIST_FACTS, page("newest", "draft", null, 51, "project", "team-a", false));
    await explain("console session lookup", FIND_SESSION, ["0".repeat(64)]);
  } finally {
    await admin.end();
  }
  ctx.results.console = { latency, plans };
}
