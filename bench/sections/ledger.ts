// The ledger: claim + record pairs per second on distinct keys from 16 clients,
// and 50 clients racing for one key (exactly one may win).
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { call, connect, timeConcurrent } from "../lib/clients.js";
import type { BenchContext } from "../lib/context.js";
import { printTable } from "../lib/table.js";

export async function benchLedger(ctx: BenchContext): Promise<void> {
  const writers = ctx.agents.writers;
  const pool = await Promise.all(Array.from({ length: 16 }, (_, i) => connect(ctx.service.mcpUrl, writers[i % writers.length]!.token)));
  const pairs = ctx.quick ? 200 : 2000;
  const run = `${Date.now()}`;
  const claimRecord = await timeConcurrent(pool, pairs, async (client, i) => {
    const key = { action: "publish_article", target: `bench-${run}-${i}` };
    await call(client, "ledger_claim", key);
    await call(client, "ledger_record", { ...key, evidence: `https://example.com/articles/${run}-${i}` });
  });

  // Fifty distinct agents: the same agent claiming again is a renewal, not a second winner.
  const racers = await Promise.all(ctx.agents.racers.slice(0, 50).map((r) => connect(ctx.service.mcpUrl, r.token)));
  const raceKey = { action: "deploy-prod", target: `release-${run}` };
  const claims = (await Promise.all(racers.map((r) => r.callTool({ name: "ledger_claim", arguments: raceKey })))) as CallToolResult[];
  const claimWinners = claims.filter((r) => !r.isError).length;
  // Then everyone tries to record it: only the claim holder's record may land.
  const records = (await Promise.all(racers.map((r, i) => r.callTool({ name: "ledger_record", arguments: { ...raceKey, evidence: `https://example.com/deploys/${run}/${i}` } })))) as CallToolResult[];
  const recordWinners = records.filter((r) => !r.isError).length;
  const check = (await call(racers[0]!, "ledger_check", raceKey)).structuredContent as { status: string };

  printTable(
    "Ledger",
    ["measure", "value"],
    [
      ["claim+record pairs/s (16 clients, distinct keys)", claimRecord.perSecond],
      ["pair latency p50 ms", claimRecord.latency.p50],
      ["pair latency p99 ms", claimRecord.latency.p99],
      ["50 clients claim one key: winners", String(claimWinners)],
      ["then 50 clients record it: records kept", String(recordWinners)],
      ["ledger_check afterwards", check.status],
    ],
  );
  await Promise.all([...pool, ...racers].map((c) => c.close()));
  ctx.results.ledger = { claimRecord, race: { clients: 50, claimWinners, recordWinners, status: check.status } };
}
