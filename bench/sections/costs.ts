// What two opt-outs cost a call: recall with its receipts recorded against
// RECEIPTS_RETENTION_DAYS=0 (none recorded), and whoami with tracing on (OTEL_*
// pointing at a sink that accepts every span; and with no trace sampled) against
// off. Four services on the
// shared database, measured in interleaved rounds (so that drift in the machine's
// load falls on all alike), from a bare HTTP client.
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { call, connect } from "../lib/clients.js";
import type { BenchContext } from "../lib/context.js";
import { startOtlpReceiver } from "../lib/otlp-receiver.js";
import { rawClient } from "../lib/raw-client.js";
import { startBenchService } from "../lib/service.js";
import { round, summarize } from "../lib/stats.js";
import { printTable } from "../lib/table.js";

const FACTS = 30;

export async function benchCosts(ctx: BenchContext): Promise<void> {
  // An OTLP endpoint that takes everything and keeps nothing.
  const sink = await startOtlpReceiver({ keep: false });
  const sinkUrl = sink.url;
  const services = {
    plain: await startBenchService(ctx.service.databaseUrl, { RECEIPTS_RETENTION_DAYS: "0" }),
    receipts: await startBenchService(ctx.service.databaseUrl, {}),
    traced: await startBenchService(ctx.service.databaseUrl, { RECEIPTS_RETENTION_DAYS: "0", OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl }),
    // Instrumented, but no trace sampled: what the instrumentation costs without recording and exporting spans.
    sampledOut: await startBenchService(ctx.service.databaseUrl, { RECEIPTS_RETENTION_DAYS: "0", OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_TRACES_SAMPLER: "always_off" }),
  };
  try {
    const writer = ctx.agents.writers[0]!;
    const client = await connect(services.plain.mcpUrl, writer.token);
    for (let i = 0; i < FACTS; i++) {
      await call(client, "memory_store", { name: `cost-rollout-${i}`, description: `Rollout step ${i} of the canary release`, type: "project", body: `Canary rollout step ${i}: watch the error rate for ten minutes.` });
    }
    await client.close();
    const clients = Object.fromEntries(Object.entries(services).map(([k, s]) => [k, rawClient(s.mcpUrl, writer.token, LATEST_PROTOCOL_VERSION)])) as Record<keyof typeof services, ReturnType<typeof rawClient>>;
    // Quick (CI): enough calls to run every path, not to measure.
    const n = ctx.quick ? 50 : 1000;
    const rounds = ctx.quick ? 1 : 3;
    const warmUp = ctx.quick ? 20 : 100;
    const recallArgs = { keywords: ["canary rollout"], limit: 10 };
    const samples = { recallPlain: [] as number[], recallReceipts: [] as number[], whoamiPlain: [] as number[], whoamiTraced: [] as number[], whoamiSampledOut: [] as number[] };
    const time = async (into: number[], run: () => Promise<unknown>, count: number) => {
      for (let i = 0; i < count; i++) {
        const t0 = performance.now();
        await run();
        into.push(performance.now() - t0);
      }
    };
    // Warm-up: JIT, prepared statements, pools.
    for (const c of Object.values(clients)) {
      await time([], () => c.call("memory_recall", recallArgs), warmUp);
      await time([], () => c.call("whoami"), warmUp);
    }
    for (let r = 0; r < rounds; r++) {
      await time(samples.recallPlain, () => clients.plain.call("memory_recall", recallArgs), n);
      await time(samples.recallReceipts, () => clients.receipts.call("memory_recall", recallArgs), n);
      await time(samples.whoamiPlain, () => clients.plain.call("whoami"), n);
      await time(samples.whoamiTraced, () => clients.traced.call("whoami"), n);
      await time(samples.whoamiSampledOut, () => clients.sampledOut.call("whoami"), n);
    }
    for (const c of Object.values(clients)) c.close();
    const s = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)])) as Record<keyof typeof samples, ReturnType<typeof summarize>>;
    const receiptsCost = s.recallReceipts.p50 - s.recallPlain.p50;
    const tracingCost = s.whoamiTraced.p50 - s.whoamiPlain.p50;
    printTable(
      "Costs: receipts and tracing (ms, sequential, bare HTTP client)",
      ["call", "p50", "p99", "added p50", "target"],
      [
        ["memory_recall, receipts off (RECEIPTS_RETENTION_DAYS=0)", s.recallPlain.p50, s.recallPlain.p99, "", ""],
        ["memory_recall, receipts on", s.recallReceipts.p50, s.recallReceipts.p99, round(receiptsCost, 3), "≤ 0.2"],
        ["whoami, tracing off", s.whoamiPlain.p50, s.whoamiPlain.p99, "", ""],
        ["whoami, tracing on (OTLP http/protobuf to a sink)", s.whoamiTraced.p50, s.whoamiTraced.p99, round(tracingCost, 3), "≤ 0.3"],
        ["whoami, tracing on, no trace sampled (always_off)", s.whoamiSampledOut.p50, s.whoamiSampledOut.p99, round(s.whoamiSampledOut.p50 - s.whoamiPlain.p50, 3), ""],
      ],
    );
    ctx.results.costs = { ...s, receiptsAddedP50Ms: receiptsCost, tracingAddedP50Ms: tracingCost };
  } finally {
    await Promise.all(Object.values(services).map((svc) => svc.stop()));
    await sink.close();
  }
}
