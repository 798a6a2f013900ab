// The benchmark's chart (bench/lib/chart.tsx), rendered from a small fixed results
// object: well-formed SVG (parsed by an XML parser), one bar per figure, every
// label present and escaped, even one that looks like markup.
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { type ChartInput, renderBenchChart } from "../../bench/lib/chart.js";

const p = (p50: number, p99: number) => ({ p50, p99 });
const HOSTILE = `memory_recall, "odd" <script>alert('x')</script> & co`;

const FIXED: ChartInput = {
  date: "2026-11-30T13:00:00.000Z",
  quick: false,
  results: {
    floor: { sequential: p(2.3, 8.4) },
    facts: { total: 1000, latency: { [HOSTILE]: p(4.1, 9.7), memory_get: p(3.2, 7.5) } },
    ledger: { claimRecord: { clients: 16, latency: p(40, 120) } },
    graph: {
      sizes: [1000, 50_000].map((n) => ({
        n,
        loadSeconds: { reference: n / 1000, "agent-memory": n / 4000 },
        relationSeconds: { reference: n / 400, "agent-memory": n / 10_000 },
        latency: {
          reference: { search_nodes: p(n === 1000 ? 2.5 : 147, 9), open_nodes: p(n === 1000 ? 2 : 124, 9) },
          "agent-memory": { search_nodes: p(n === 1000 ? 6.25 : 5, 9), open_nodes: p(4, 9) },
        },
        readGraph: n === 1000 ? { reference: { ms: 20 }, "agent-memory": { ms: 40 } } : { reference: { error: "connection closed" }, "agent-memory": { ms: 124 } },
      })),
    },
  },
};

type Node = Record<string, unknown>;

/** Every element named `name` anywhere in the parsed tree (preserveOrder form). */
function findAll(tree: Node[], name: string, out: Node[] = []): Node[] {
  for (const node of tree) {
    for (const [key, value] of Object.entries(node)) {
      if (key === name) out.push(node);
      if (Array.isArray(value)) findAll(value as Node[], name, out);
    }
  }
  return out;
}

const attrs = (node: Node) => (node[":@"] ?? {}) as Record<string, string>;
const texts = (tree: Node[]) => findAll(tree, "text").map((t) => ((t.text as Node[]).map((c) => c["#text"]).join("")));

describe("bench chart", () => {
  const svg = renderBenchChart(FIXED);
  const tree = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: "", processEntities: true }).parse(svg) as Node[];

  it("is well-formed SVG", () => {
    expect(XMLValidator.validate(svg)).toBe(true);
    const root = findAll(tree, "svg");
    expect(root).toHaveLength(1);
    expect(attrs(root[0]!).xmlns).toBe("http://www.w3.org/2000/svg");
  });

  it("draws one ratio bar per operation and graph size, reference ÷ ours", () => {
    const bars = findAll(tree, "rect").map(attrs).filter((a) => a.class === "bar ratio");
    // load entities, load relations, 2 ops at both sizes; read_graph only at 1,000 (the reference failed at 50,000).
    expect(bars).toHaveLength(4 * 2 + 1);
    const at = (op: string, size: number) => Number(bars.find((b) => b["data-op"] === op && b["data-size"] === String(size))!["data-value"]);
    expect(at("load entities", 1000)).toBeCloseTo(4, 3);
    expect(at("search_nodes p50", 1000)).toBeCloseTo(0.4, 3);
    expect(at("search_nodes p50", 50_000)).toBeCloseTo(29.4, 3);
    expect(at("read_graph", 1000)).toBeCloseTo(0.5, 3);
    expect(bars.some((b) => b["data-op"] === "read_graph" && b["data-size"] === "50000")).toBe(false);
    expect(bars.every((b) => Number(b.width) > 0)).toBe(true);
  });

  it("draws one latency bar per tool with its p50 and p99", () => {
    const bars = findAll(tree, "rect").map(attrs).filter((a) => a.class === "bar latency");
    expect(bars.map((b) => b["data-tool"])).toEqual([
      "whoami (floor)",
      HOSTILE,
      "memory_get",
      "search_nodes (50,000 entities)",
      "open_nodes (50,000 entities)",
      "ledger claim+record pair (16 clients)",
    ]);
    const ledger = bars.find((b) => b["data-tool"]!.startsWith("ledger"))!;
    expect([Number(ledger["data-p50"]), Number(ledger["data-p99"])]).toEqual([40, 120]);
  });

  it("shows every label as text and escapes markup in them", () => {
    const shown = texts(tree);
    for (const label of ["load entities", "search_nodes p50", "1,000 entities", "50,000 entities", "whoami (floor)", HOSTILE, "4.00×", "0.40×"]) {
      expect(shown).toContain(label);
    }
    expect(svg).not.toContain("<script>");
    expect(svg).toContain("&lt;script>");
    expect(findAll(tree, "script")).toHaveLength(0);
  });

  it("draws what is there when sections were skipped", () => {
    const only = renderBenchChart({ results: { ledger: { claimRecord: { latency: p(30, 90) } } } });
    expect(XMLValidator.validate(only)).toBe(true);
    expect(only).not.toContain("bar ratio");
    expect(only.match(/class="bar latency"/g)).toHaveLength(1);
  });
});
