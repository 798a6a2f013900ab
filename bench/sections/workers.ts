// WORKERS: the same database served by one process and by two (node:cluster),
// 16 clients each, rounds alternated (1, 2, 1, 2, …) so that other load on the
// machine hits both. On this 2-core machine client, service and Postgres share
// the cores, so two workers cannot double anything; the figure shows what is left.
import { call, connect, timeConcurrent } from "../lib/clients.js";
import type { BenchContext } from "../lib/context.js";
import { generateFact, RARE_WORD, area } from "../lib/corpus.js";
import { startBenchService } from "../lib/service.js";
import { summarize } from "../lib/stats.js";
import { printTable } from "../lib/table.js";

const CLIENTS = 16;

export async function benchWorkers(ctx: BenchContext): Promise<void> {
  const reader = ctx.agents.writers[2]!; // reads shared, team-a, team-b
  const probe = await connect(ctx.service.mcpUrl, reader.token);
  if (((await call(probe, "memory_recall", { keywords: [RARE_WORD] })).structuredContent as { total: number }).total === 0) {
    // The facts section did not run: a small corpus so that recall has something to find.
    const writer = await connect(ctx.service.mcpUrl, ctx.agents.reviewer.token);
    for (let i = 0; i < 1000; i++) {
      const f = generateFact(i, 1000);
      await call(writer, "memory_store", { name: f.name, description: f.description, type: f.type, body: f.body, scope: f.scope });
    }
    await writer.close();
  }
  await probe.close();

  const services = { 1: await startBenchService(ctx.service.databaseUrl, { WORKERS: "1" }), 2: await startBenchService(ctx.service.databaseUrl, { WORKERS: "2" }) };
  try {
    const pools = {
      1: await Promise.all(Array.from({ length: CLIENTS }, () => connect(services[1].mcpUrl, reader.token))),
      2: await Promise.all(Array.from({ length: CLIENTS }, () => connect(services[2].mcpUrl, reader.token))),
    };
    const tools = {
      whoami: () => ({}),
      memory_recall: (i: number) => ({ keywords: [i % 2 ? RARE_WORD : area("ja", i % 200)] }),
    };
    const rounds = ctx.quick ? 2 : 3;
    const perRound = ctx.quick ? 200 : 2000;
    const totals: Record<string, { calls: number; seconds: number; samples: number[] }> = {};
    for (let r = 0; r <= rounds; r++) {
      for (const workers of [1, 2] as const) {
        for (const [tool, args] of Object.entries(tools)) {
          const t = await timeConcurrent(pools[workers], perRound, (c, i) => call(c, tool, args(i)));
          if (r === 0) continue; // warm-up
          const key = `${tool} ${workers}`;
          totals[key] ??= { calls: 0, seconds: 0, samples: [] };
          totals[key].calls += t.calls;
          totals[key].seconds += t.seconds;
          totals[key].samples.push(t.latency.p50);
        }
      }
    }
    await Promise.all([...pools[1], ...pools[2]].map((c) => c.close()));
    const rows = Object.keys(tools).map((tool) => {
      const one = totals[`${tool} 1`]!;
      const two = totals[`${tool} 2`]!;
      const [perSecondOne, perSecondTwo] = [one.calls / one.seconds, two.calls / two.seconds];
      return [tool, perSecondOne, perSecondTwo, perSecondTwo / perSecondOne, summarize(one.samples).p50, summarize(two.samples).p50];
    });
    ctx.results.workers = { clients: CLIENTS, rounds, callsPerRound: perRound, totals: Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, { calls: v.calls, seconds: v.seconds, perSecond: v.calls / v.seconds }])) };
    printTable(`WORKERS: ${CLIENTS} clients, 1 vs 2 worker processes (rounds alternated)`, ["tool", "1 worker calls/s", "2 workers calls/s", "ratio", "1 worker p50 ms", "2 workers p50 ms"], rows);
  } finally {
    await services[1].stop();
    await services[2].stop();
  }
}
