// The table a benchmark run ends with, from a small fixed results object: one
// row per figure, ratios as reference ÷ ours, a reference that failed said so.
import { afterEach, describe, expect, it, vi } from "vitest";
import { printSummary } from "../../bench/lib/summary.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the benchmark's summary table", () => {
  it("lists the floor, each graph size's ratios, the worst scaling read and the RSS peak", () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const latency = (p50: number) => ({ p50 });
    printSummary(
      {
        floor: { sequential: latency(1.5), bareHttpClient: latency(0.9) },
        graph: {
          sizes: [
            {
              n: 50_000,
              corpus: "sprint",
              latency: {
                "agent-memory": { "search_nodes (10 hits)": latency(5), "search_nodes (no hit)": latency(4), "open_nodes (5 names)": latency(4) },
                reference: { "search_nodes (10 hits)": latency(250), "search_nodes (no hit)": latency(400), "open_nodes (5 names)": latency(200) },
              },
              readGraph: { "agent-memory": { ms: 25 }, reference: { ms: 3000, error: "Connection closed" } },
            },
          ],
        },
        scaling: { sizes: [1000, 50_000], reads: { "search_nodes, 1 hit": { ratio: 0.9 }, "open_nodes, 5 names": { ratio: 1.5 } } },
      },
      600,
      200,
      ["one check"],
    );
    const text = log.mock.calls.map((c) => String(c[0])).join("\n");
    expect(text).toContain("## Summary");
    expect(text).toMatch(/run\s+10\.0 min, 1 failed check\(s\)/);
    expect(text).toMatch(/whoami p50 \(SDK client \/ bare HTTP\)\s+1\.50 \/ 0\.90 ms/);
    expect(text).toMatch(/sprint 50,000: search \/ open_nodes \/ read_graph \(ref ÷ ours\)\s+50\.0×–100\.0× \/ 50\.0× \/ reference failed/);
    expect(text).toMatch(/scaling: worst p50 at 50,000 ÷ at 1,000\s+1\.50× \(open_nodes, 5 names\)/);
    expect(text).toMatch(/service RSS peak\s+200 MiB/);
  });
});
