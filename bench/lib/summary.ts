// The run's headline figures in one table at its end, from the results every
// section recorded (a section that did not run has no row): what
// bench/README.md's "Current figures" table is copied from.
import { printTable } from "./table.js";

interface Latency {
  p50: number;
}
interface GraphSize {
  n: number;
  corpus: string;
  latency: Record<string, Record<string, Latency>>;
  readGraph: Record<string, { ms: number; error?: string } | undefined>;
}
interface Results {
  floor?: { sequential: Latency; bareHttpClient: Latency };
  graph?: { sizes: GraphSize[] };
  scaling?: { sizes: number[]; reads: Record<string, { ratio: number }> };
  replicas?: {
    readsP50Ms: Record<string, { primary: number; replica: number }>;
    routing: { chooseMicroseconds: number; noteWriteMs: { p50: number } };
    failover: { firstSuccessAfterPromotionMs: number; acknowledged: number; lost: number };
  };
}

const times = (x: number) => `${x >= 10 ? x.toFixed(1) : x.toFixed(2)}×`;

/** Reference ÷ ours for each operation of one size that both sides measured. */
function ratios(size: GraphSize, prefix: string): number[] {
  const ours = size.latency["agent-memory"] ?? {};
  const theirs = size.latency.reference ?? {};
  return Object.keys(ours)
    .filter((op) => op.startsWith(prefix) && theirs[op])
    .map((op) => theirs[op]!.p50 / ours[op]!.p50);
}

const span = (xs: number[]) => (xs.length === 0 ? "–" : xs.length === 1 ? times(xs[0]!) : `${times(Math.min(...xs))}–${times(Math.max(...xs))}`);

export function printSummary(results: Results, durationSeconds: number, peakRssMiB: number, failures: string[]): void {
  const rows: Array<[string, string]> = [["run", `${(durationSeconds / 60).toFixed(1)} min${failures.length > 0 ? `, ${failures.length} failed check(s)` : ""}`]];
  if (results.floor) rows.push(["whoami p50 (SDK client / bare HTTP)", `${results.floor.sequential.p50.toFixed(2)} / ${results.floor.bareHttpClient.p50.toFixed(2)} ms`]);
  for (const size of results.graph?.sizes ?? []) {
    const [theirs, ours] = [size.readGraph.reference, size.readGraph["agent-memory"]];
    const read = theirs?.error ? "reference failed" : theirs && ours ? times(theirs.ms / ours.ms) : "–";
    rows.push([
      `${size.corpus} ${size.n.toLocaleString("en-US")}: search / open_nodes / read_graph (ref ÷ ours)`,
      `${span(ratios(size, "search_nodes"))} / ${span(ratios(size, "open_nodes"))} / ${read}`,
    ]);
  }
  if (results.scaling) {
    const [label, worst] = Object.entries(results.scaling.reads).sort((a, b) => b[1].ratio - a[1].ratio)[0]!;
    const { sizes } = results.scaling;
    rows.push([`scaling: worst p50 at ${sizes.at(-1)!.toLocaleString("en-US")} ÷ at ${sizes[0]!.toLocaleString("en-US")}`, `${times(worst.ratio)} (${label})`]);
  }
  if (results.replicas) {
    const { readsP50Ms, routing, failover } = results.replicas;
    for (const [tool, p50] of Object.entries(readsP50Ms)) rows.push([`replicas: ${tool} p50 primary / replica`, `${p50.primary.toFixed(1)} / ${p50.replica.toFixed(1)} ms`]);
    rows.push(["replicas: routing per read / per write", `${routing.chooseMicroseconds.toFixed(1)} µs / ${routing.noteWriteMs.p50.toFixed(2)} ms`]);
    rows.push(["replicas: failover, first write after promotion", `${failover.firstSuccessAfterPromotionMs} ms (${failover.acknowledged - failover.lost} of ${failover.acknowledged} acknowledged present)`]);
  }
  rows.push(["service RSS peak", `${peakRssMiB.toFixed(0)} MiB`]);
  printTable("Summary", ["measure", "figure"], rows);
}
