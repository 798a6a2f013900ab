// The benchmark's chart: one SVG file written next to its JSON (bench/results/),
// drawn here with no network service and no browser. Two panels:
//   1. reference ÷ agent-memory for each graph operation, one bar per graph size
//      (log scale, a line at 1×: right of it we are faster);
//   2. latency by tool: p50 bar and p99 tick (log scale, ms).
// Drawn as plain bars with preact-render-to-string, already a dependency for the
// console's pages: every label (tool names, operations, anything a results file
// holds) is escaped by the renderer, so the file is well-formed whatever it says.
// No maintained chart library renders SVG on the server without a DOM or a canvas.
import { renderToString } from "preact-render-to-string";

/** The parts of a bench/results/*.json report the chart reads (all optional: any section may be skipped). */
export interface ChartInput {
  date?: string;
  quick?: boolean;
  results: {
    floor?: { sequential: Pct };
    facts?: { total?: number; latency?: Record<string, Pct> };
    ledger?: { claimRecord?: { clients?: number; latency: Pct } };
    graph?: { sizes: GraphSize[] };
  };
}

interface Pct {
  p50: number;
  p99: number;
}

interface GraphSize {
  n: number;
  loadSeconds: Record<string, number | undefined>;
  relationSeconds: Record<string, number | undefined>;
  latency: Record<string, Record<string, Pct> | undefined>;
  readGraph: Record<string, { ms?: number; error?: string } | undefined>;
}

interface RatioBar {
  op: string;
  size: number;
  ratio: number;
}

interface LatencyBar {
  tool: string;
  p50: number;
  p99: number;
}

const OURS = "agent-memory";
const REF = "reference";
const ok = (x: number | undefined): x is number => typeof x === "number" && Number.isFinite(x) && x > 0;

/** reference ÷ ours for every graph operation and size (>1: we are faster). */
function ratioBars(input: ChartInput): RatioBar[] {
  const bars: RatioBar[] = [];
  for (const s of input.results.graph?.sizes ?? []) {
    const add = (op: string, ref: number | undefined, ours: number | undefined) => {
      if (ok(ref) && ok(ours)) bars.push({ op, size: s.n, ratio: ref / ours });
    };
    add("load entities", s.loadSeconds[REF], s.loadSeconds[OURS]);
    add("load relations", s.relationSeconds[REF], s.relationSeconds[OURS]);
    const ours = s.latency[OURS] ?? {};
    for (const [op, o] of Object.entries(ours)) add(`${op} p50`, s.latency[REF]?.[op]?.p50, o.p50);
    if (!s.readGraph[REF]?.error) add("read_graph", s.readGraph[REF]?.ms, s.readGraph[OURS]?.ms);
  }
  return bars;
}

/** p50 and p99 of each tool as the run measured it. */
function latencyBars(input: ChartInput): LatencyBar[] {
  const bars: LatencyBar[] = [];
  const add = (tool: string, p?: Pct) => {
    if (p && ok(p.p50) && ok(p.p99)) bars.push({ tool, p50: p.p50, p99: p.p99 });
  };
  const r = input.results;
  add("whoami (floor)", r.floor?.sequential);
  for (const [label, p] of Object.entries(r.facts?.latency ?? {})) add(label, p);
  const sizes = r.graph?.sizes ?? [];
  const largest = sizes[sizes.length - 1];
  for (const [op, p] of Object.entries(largest?.latency[OURS] ?? {})) add(`${op} (${largest!.n.toLocaleString("en-US")} entities)`, p);
  add(`ledger claim+record pair (${r.ledger?.claimRecord?.clients ?? 16} clients)`, r.ledger?.claimRecord?.latency);
  return bars;
}

const W = 960;
const LABEL_W = 300;
const PLOT_W = W - LABEL_W - 70;
const ROW = 16;
const PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#e15759"];

/** A log10 scale over [lo, hi] (widened to whole decades) onto [0, PLOT_W]. */
function logScale(values: number[], floorValue: number) {
  const lo = Math.pow(10, Math.floor(Math.log10(Math.min(floorValue, ...values))));
  const hi = Math.pow(10, Math.ceil(Math.log10(Math.max(floorValue * 10, ...values))));
  const x = (v: number) => ((Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * PLOT_W;
  const ticks: number[] = [];
  for (let t = lo; t <= hi * 1.0001; t *= 10) ticks.push(t);
  return { x, ticks };
}

const fmt = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

function Axis({ y, height, ticks, x, unit }: { y: number; height: number; ticks: number[]; x: (v: number) => number; unit: string }) {
  return (
    <g font-size="10" fill="#5f6b73" stroke="#d0d7de">
      {ticks.map((t) => (
        <g key={t}>
          <line x1={LABEL_W + x(t)} x2={LABEL_W + x(t)} y1={y} y2={y + height} />
          <text x={LABEL_W + x(t)} y={y + height + 12} text-anchor="middle" stroke="none">
            {`${t >= 1 ? t.toFixed(0) : t}${unit}`}
          </text>
        </g>
      ))}
    </g>
  );
}

function RatioPanel({ bars, top }: { bars: RatioBar[]; top: number }) {
  const ops = [...new Set(bars.map((b) => b.op))];
  const sizes = [...new Set(bars.map((b) => b.size))].sort((a, b) => a - b);
  const { x, ticks } = logScale(bars.map((b) => b.ratio), 0.1);
  const groupH = sizes.length * ROW + 8;
  const height = ops.length * groupH;
  const y0 = top + 40;
  return (
    <g>
      <text x={10} y={top + 16} font-size="15" font-weight="bold">Graph: reference ÷ agent-memory (log scale; right of the 1× line agent-memory is faster)</text>
      {sizes.map((s, i) => (
        <g key={s}>
          <rect x={LABEL_W + i * 150} y={top + 24} width={10} height={10} fill={PALETTE[i % PALETTE.length]} />
          <text x={LABEL_W + i * 150 + 14} y={top + 33} font-size="11">{`${s.toLocaleString("en-US")} entities`}</text>
        </g>
      ))}
      <Axis y={y0} height={height} ticks={ticks} x={x} unit="×" />
      {ops.map((op, gi) => (
        <g key={op}>
          <text x={LABEL_W - 8} y={y0 + gi * groupH + (sizes.length * ROW) / 2 + 4} text-anchor="end" font-size="12">
            {op}
          </text>
          {sizes.map((s, si) => {
            const bar = bars.find((b) => b.op === op && b.size === s);
            if (!bar) return null;
            const y = y0 + gi * groupH + si * ROW;
            return (
              <g key={s}>
                <rect class="bar ratio" data-op={op} data-size={String(s)} data-value={bar.ratio.toFixed(3)} x={LABEL_W} y={y + 2} width={Math.max(1, x(bar.ratio))} height={ROW - 4} fill={PALETTE[si % PALETTE.length]} />
                <text x={LABEL_W + x(bar.ratio) + 4} y={y + ROW - 4} font-size="10">{`${fmt(bar.ratio)}×`}</text>
              </g>
            );
          })}
        </g>
      ))}
      <line x1={LABEL_W + x(1)} x2={LABEL_W + x(1)} y1={y0 - 4} y2={y0 + height} stroke="#1d2327" stroke-width="1.5" />
    </g>
  );
}

function LatencyPanel({ bars, top }: { bars: LatencyBar[]; top: number }) {
  const { x, ticks } = logScale(bars.flatMap((b) => [b.p50, b.p99]), 1);
  const y0 = top + 40;
  const height = bars.length * ROW;
  return (
    <g>
      <text x={10} y={top + 16} font-size="15" font-weight="bold">agent-memory latency by tool, ms (log scale; bar p50, tick p99)</text>
      <Axis y={y0} height={height} ticks={ticks} x={x} unit=" ms" />
      {bars.map((b, i) => {
        const y = y0 + i * ROW;
        return (
          <g key={b.tool}>
            <text x={LABEL_W - 8} y={y + ROW - 4} text-anchor="end" font-size="12">{b.tool}</text>
            <rect class="bar latency" data-tool={b.tool} data-p50={b.p50.toFixed(3)} data-p99={b.p99.toFixed(3)} x={LABEL_W} y={y + 2} width={Math.max(1, x(b.p50))} height={ROW - 4} fill="#4e79a7" />
            <line x1={LABEL_W + x(b.p99)} x2={LABEL_W + x(b.p99)} y1={y + 1} y2={y + ROW - 1} stroke="#e15759" stroke-width="2" />
            <text x={LABEL_W + x(b.p99) + 5} y={y + ROW - 4} font-size="10">{`${fmt(b.p50)} / ${fmt(b.p99)}`}</text>
          </g>
        );
      })}
    </g>
  );
}

/** The whole chart as an SVG document (UTF-8 text). */
export function renderBenchChart(input: ChartInput): string {
  const ratios = ratioBars(input);
  const latencies = latencyBars(input);
  const sizes = new Set(ratios.map((b) => b.size)).size;
  const ratioH = ratios.length ? new Set(ratios.map((b) => b.op)).size * (sizes * ROW + 8) + 80 : 0;
  const latencyH = latencies.length ? latencies.length * ROW + 80 : 0;
  const height = 40 + ratioH + latencyH;
  const title = `agent-memory benchmark${input.quick ? " (quick)" : ""}${input.date ? `, ${input.date}` : ""}`;
  const svg = (
    <svg xmlns="http://www.w3.org/2000/svg" viewBox={`0 0 ${W} ${height}`} width={W} height={height} font-family="sans-serif" role="img" aria-label={title}>
      <rect width={W} height={height} fill="#ffffff" />
      <text x={10} y={24} font-size="17">{title}</text>
      {ratios.length > 0 && <RatioPanel bars={ratios} top={40} />}
      {latencies.length > 0 && <LatencyPanel bars={latencies} top={40 + ratioH} />}
    </svg>
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n${renderToString(svg)}\n`;
}
