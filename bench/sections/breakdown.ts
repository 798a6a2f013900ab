// Where one call's time goes, inside the service: `whoami` and `memory_recall`
// (rare keyword) through a service of their own on the shared database, traced
// (OTLP http/json to a receiver in this process), from a bare HTTP client. Each
// call is one trace: the HTTP request's span, the MCP request's span inside it
// (tools/call …), and a span per Postgres statement. The parts of each call are
// taken from its own spans, then summarized over the calls: the mean parts add up
// to the mean call. Tracing adds its own cost to each span (the costs section
// measures it): the shares are what this table is for, not the absolute times.
import { randomBytes } from "node:crypto";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { call, connect } from "../lib/clients.js";
import type { BenchContext } from "../lib/context.js";
import { RARE_WORD } from "../lib/corpus.js";
import { startOtlpReceiver, type ReceivedSpan } from "../lib/otlp-receiver.js";
import { rawClient } from "../lib/raw-client.js";
import { startBenchService } from "../lib/service.js";
import { round, summarize } from "../lib/stats.js";
import { printTable } from "../lib/table.js";

const isMcp = (s: ReceivedSpan) => s.name.startsWith("tools/call");
const isStatement = (s: ReceivedSpan) => s.name.startsWith("pg.query");

interface CallParts {
  client: number;
  http: number;
  mcp: number;
  /** Statements inside the MCP request, by span name. */
  inside: Map<string, number[]>;
  /** Statements before it (the token check), by span name. */
  outside: Map<string, number[]>;
}

function partsOf(trace: ReceivedSpan[], client: number, statementName: (span: ReceivedSpan) => string): CallParts | undefined {
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  // The HTTP request's span: its parent is the client's (the traceparent header), not in the trace.
  const root = trace.find((s) => s.parentSpanId === undefined || !byId.has(s.parentSpanId));
  const mcp = trace.find(isMcp);
  if (!root || !mcp) return undefined;
  const under = (s: ReceivedSpan, ancestor: ReceivedSpan) => {
    for (let p = s.parentSpanId; p !== undefined; p = byId.get(p)?.parentSpanId) if (p === ancestor.spanId) return true;
    return false;
  };
  const inside = new Map<string, number[]>();
  const outside = new Map<string, number[]>();
  for (const s of trace.filter(isStatement)) {
    const into = under(s, mcp) ? inside : outside;
    const name = statementName(s);
    into.set(name, [...(into.get(name) ?? []), s.durationMs]);
  }
  return { client, http: root.durationMs, mcp: mcp.durationMs, inside, outside };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const total = (m: Map<string, number[]>) => sum([...m.values()].map(sum));

function rows(label: string, calls: CallParts[]): Array<Array<string | number>> {
  const line = (name: string, values: number[], per?: number) => {
    const s = summarize(values);
    return [name, s.p50, round(sum(values) / calls.length, 3), per === undefined ? "" : round(per, 2)];
  };
  const statementRows = (m: (c: CallParts) => Map<string, number[]>, indent: string) => {
    const names = [...new Set(calls.flatMap((c) => [...m(c).keys()]))].sort();
    return names.map((n) => {
      const durations = calls.flatMap((c) => m(c).get(n) ?? []);
      return line(`${indent}${n}`, durations, durations.length / calls.length);
    });
  };
  return [
    line(`${label}: the call at the client`, calls.map((c) => c.client)),
    line("  outside the service (network, the client's work)", calls.map((c) => c.client - c.http)),
    line("  the service: its HTTP request span", calls.map((c) => c.http)),
    line("    before and after the MCP request (HTTP, auth, transport)", calls.map((c) => c.http - c.mcp - total(c.outside))),
    ...statementRows((c) => c.outside, "    statement "),
    line("    the MCP request (tools/call span)", calls.map((c) => c.mcp)),
    ...statementRows((c) => c.inside, "      statement "),
    line("      in the process (arguments, keywords, formatting, SDK)", calls.map((c) => c.mcp - total(c.inside))),
  ];
}

export async function benchBreakdown(ctx: BenchContext): Promise<void> {
  const receiver = await startOtlpReceiver({ keep: true });
  const service = await startBenchService(ctx.service.databaseUrl, {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_BSP_SCHEDULE_DELAY: "200",
    OTEL_BSP_MAX_QUEUE_SIZE: "100000",
  });
  try {
    // The facts section's corpus has ten facts with the rare word at any size; run alone, store ten.
    const reader = ctx.agents.writers[2]!;
    const sdk = await connect(service.mcpUrl, reader.token);
    const hits = async () => ((await call(sdk, "memory_recall", { keywords: [RARE_WORD] })).structuredContent as { total: number }).total;
    if ((await hits()) === 0) {
      for (let i = 0; i < 10; i++) await call(sdk, "memory_store", { name: `breakdown-${i}`, description: `Breakdown note ${i}`, type: "project", body: `The ${RARE_WORD} release, step ${i}.`, scope: "shared" });
    }
    await sdk.close();
    const raw = rawClient(service.mcpUrl, reader.token, LATEST_PROTOCOL_VERSION);
    const n = ctx.quick ? 100 : 1000;
    const kinds: Array<[string, string, Record<string, unknown>]> = [
      ["whoami", "whoami", {}],
      [`memory_recall (${RARE_WORD})`, "memory_recall", { keywords: [RARE_WORD] }],
    ];
    for (const [, tool, args] of kinds) for (let i = 0; i < 100; i++) await raw.call(tool, args);
    // Each timed call names its trace (a W3C traceparent header), so that its spans are found by the trace's id.
    const calls = new Map<string, { label: string; ms: number }>();
    for (let block = 0; block < 10; block++) {
      for (const [label, tool, args] of kinds) {
        for (let i = 0; i < n / 10; i++) {
          const traceId = randomBytes(16).toString("hex");
          const t0 = performance.now();
          await raw.call(tool, args, { traceparent: `00-${traceId}-${randomBytes(8).toString("hex")}-01` });
          calls.set(traceId, { label, ms: performance.now() - t0 });
        }
      }
    }
    raw.close();
    // The spans are exported in batches (every 200 ms here): wait until none has come for a second.
    for (let count = -1, deadline = Date.now() + 30_000; count !== receiver.spans.length && Date.now() < deadline; ) {
      count = receiver.spans.length;
      await new Promise((r) => setTimeout(r, 1000));
    }
    const traces = new Map<string, ReceivedSpan[]>();
    for (const s of receiver.spans) if (calls.has(s.traceId)) traces.set(s.traceId, [...(traces.get(s.traceId) ?? []), s]);
    // "pg.query:am_facts_recall am_bench_123" (the statement's first word and the database) as "am_facts_recall".
    const statementName = (span: ReceivedSpan) => span.name.replace(/^pg\.query:/, "").split(" ")[0]!;
    const byKind: Record<string, CallParts[]> = {};
    for (const [traceId, trace] of traces) {
      const { label, ms } = calls.get(traceId)!;
      const parts = partsOf(trace, ms, statementName);
      if (parts) (byKind[label] ??= []).push(parts);
    }
    const table = kinds.flatMap(([label]) => rows(label, byKind[label] ?? []));
    printTable(
      `Breakdown of one call, from its trace (ms; ${n} calls each, bare HTTP client, tracing on; mean parts add up to the mean call)`,
      ["part", "p50", "mean", "per call"],
      table,
    );
    ctx.results.breakdown = { calls: n, rows: table };
  } finally {
    await service.stop();
    await receiver.close();
  }
}
