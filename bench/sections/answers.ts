// Answer sizes: the bytes an agent's context receives (text + structured
// content, UTF-8) for a typical call of every tool, beside the reference
// server's search_nodes / open_nodes answers for the same entities. Facts and
// entities hold the same text (name; description + body as two observations),
// so "bytes per recall hit" and "bytes per search_nodes hit" compare like with like.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { call, connect } from "../lib/clients.js";
import type { BenchContext } from "../lib/context.js";
import { referenceFile } from "../lib/reference.js";
import { printTable } from "../lib/table.js";

const ITEMS = 10;
const PREFIX = "ans-rule";

function item(i: number) {
  return {
    name: `${PREFIX}-${i}`,
    description: `Run the smoke tests before deploying service ${i} to production`,
    body:
      `Why: on deploy ${100 + i} the service started with a broken config and answered errors for 12 minutes. ` +
      `How to apply: run the smoke tests against staging, wait for them to pass, then deploy; link the run in the change request.`,
  };
}

interface Size {
  text: number;
  structured: number;
  total: number;
}

function sizeOf(r: CallToolResult): Size {
  const text = r.content.reduce((n, c) => n + (c.type === "text" ? Buffer.byteLength(c.text) : 0), 0);
  const structured = r.structuredContent === undefined ? 0 : Buffer.byteLength(JSON.stringify(r.structuredContent));
  return { text, structured, total: text + structured };
}

export async function benchAnswers(ctx: BenchContext): Promise<void> {
  const writer = ctx.agents.writers[2]!; // shared, team-a, team-b
  const ours = await connect(ctx.service.mcpUrl, writer.token);
  const reviewer = await connect(ctx.service.mcpUrl, ctx.agents.reviewer.token);
  const ref = referenceFile();
  const reference: Client = await ref.connect();
  const rows: Array<[string, string, Size, Size | null, number]> = [];
  const measure = async (tool: string, what: string, client: Client, args: Record<string, unknown>, refArgs?: Record<string, unknown>, hits = 1) => {
    const mine = sizeOf(await call(client, tool, args));
    const theirs = refArgs ? sizeOf(await call(reference, tool, refArgs)) : null;
    rows.push([tool, what, mine, theirs, hits]);
    return mine;
  };

  try {
    // The same content as facts (ours) and as entities (ours and the reference's).
    const entities = Array.from({ length: ITEMS }, (_, i) => {
      const f = item(i);
      return { name: f.name, entityType: "rule", observations: [f.description, f.body] };
    });
    const first = item(ITEMS);
    await measure("whoami", "", ours, {});
    await measure("memory_store", "new fact", ours, { ...item(0), type: "project" });
    for (let i = 1; i < ITEMS; i++) await call(ours, "memory_store", { ...item(i), type: "project" });
    await measure("memory_store", "new fact, similar ones exist", ours, { ...first, type: "project" });
    await measure("memory_store", "new version", ours, { ...first, description: `${first.description}, always`, type: "project", version: 1 });
    await measure("memory_promote", "confirm", reviewer, { name: item(0).name, to: "confirmed", reason: "checked the deploy log" });
    await measure("memory_get", "one fact, 1 version", ours, { name: item(0).name });
    await measure("memory_list", `${ITEMS} facts`, ours, { limit: ITEMS });
    await measure("memory_list", "review queue", reviewer, { reviewable: true, limit: ITEMS });
    await measure("memory_recall", `${ITEMS} hits`, ours, { keywords: [PREFIX], limit: ITEMS }, undefined, ITEMS);
    await measure("memory_recall", "no hit", ours, { keywords: ["qqzzxxyyww"] });

    await measure("ledger_check", "not executed", ours, { action: "deploy_prod", target: "ans-1" });
    await measure("ledger_claim", "", ours, { action: "deploy_prod", target: "ans-1" });
    await measure("ledger_record", "", ours, { action: "deploy_prod", target: "ans-1", evidence: "https://ci.example.com/runs/1" });
    await measure("ledger_check", "executed", ours, { action: "deploy_prod", target: "ans-1" });
    await call(ours, "ledger_claim", { action: "deploy_prod", target: "ans-2" });
    await measure("ledger_release", "", ours, { action: "deploy_prod", target: "ans-2", reason: "postponed" });
    await measure("ledger_list", "3 events", ours, { action: "deploy_prod", limit: 3 });

    const graphArgs = { entities };
    await measure("create_entities", `${ITEMS} entities`, ours, graphArgs, graphArgs);
    const relations = { relations: entities.slice(1).map((e) => ({ from: e.name, to: entities[0]!.name, relationType: "follows" })) };
    await measure("create_relations", `${ITEMS - 1} relations`, ours, relations, relations);
    const obs = { observations: [{ entityName: entities[0]!.name, contents: ["reviewed in March"] }] };
    await measure("add_observations", "1 observation", ours, obs, obs);
    await measure("search_nodes", `${ITEMS} hits`, ours, { query: PREFIX }, { query: PREFIX }, ITEMS);
    await measure("open_nodes", "2 entities", ours, { names: [entities[1]!.name, entities[2]!.name] }, { names: [entities[1]!.name, entities[2]!.name] });
    await measure("read_relations", "of 1 entity", ours, { names: [entities[0]!.name] });
    await measure("read_observations", "of 1 entity", ours, { name: entities[0]!.name });
    await measure("delete_observations", "1 observation", ours, { deletions: [{ entityName: entities[0]!.name, observations: ["reviewed in March"] }] }, { deletions: [{ entityName: entities[0]!.name, observations: ["reviewed in March"] }] });
    const rel = { relations: [relations.relations[0]!] };
    await measure("delete_relations", "1 relation", ours, rel, rel);
    await measure("delete_entities", "1 entity", ours, { entityNames: [entities[ITEMS - 1]!.name] }, { entityNames: [entities[ITEMS - 1]!.name] });
    await measure("read_graph", `${ITEMS - 1} entities`, ours, {}, {});

    printTable(
      "Answer sizes (bytes an agent receives: text + structured content, UTF-8)",
      ["tool", "call", "text", "structured", "total", "reference total", "per hit", "reference per hit"],
      rows.map(([tool, what, m, r, hits]) => [
        tool,
        what,
        m.text,
        m.structured,
        m.total,
        r ? r.total : NaN,
        hits > 1 ? m.total / hits : NaN,
        r && hits > 1 ? r.total / hits : NaN,
      ]),
    );
    const recallRow = rows.find(([t, w]) => t === "memory_recall" && w.endsWith("hits"))!;
    const searchRow = rows.find(([t]) => t === "search_nodes")!;
    const perRecall = recallRow[2].total / ITEMS;
    const perRef = searchRow[3]!.total / ITEMS;
    ctx.log(
      `\nBytes per hit for the same ${ITEMS} items: memory_recall ${perRecall.toFixed(0)}, reference search_nodes ${perRef.toFixed(0)} ` +
        `(ratio ${(perRecall / perRef).toFixed(2)}; target ≤ 1.00), our search_nodes ${(searchRow[2].total / ITEMS).toFixed(0)}.`,
    );
    ctx.results.answers = {
      items: ITEMS,
      rows: rows.map(([tool, what, m, r, hits]) => ({ tool, what, ...m, reference: r?.total ?? null, hits })),
      recallBytesPerHit: perRecall,
      referenceSearchBytesPerHit: perRef,
    };
  } finally {
    await ours.close();
    await reviewer.close();
    ref.cleanup();
  }
}
