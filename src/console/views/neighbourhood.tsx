// An entity's neighbourhood as a server-side SVG (no script): the entity in the
// middle, entities one hop away on an inner ring, two hops away on an outer
// ring next to the neighbour that leads to them. Every node links to its page.
import type { GraphRelation } from "../../graph/types.js";
import { entityHref } from "./entity-href.js";

export const MAX_FIRST_HOP = 16;
export const MAX_SECOND_HOP = 24;

const W = 960;
const H = 640;
const CX = W / 2;
const CY = H / 2;
const R1 = 170;
const R2 = 280;

const key = (name: string) => name.toLowerCase();
const short = (s: string, n = 22) => ([...s].length > n ? `${[...s].slice(0, n - 1).join("")}…` : s);

interface Node {
  name: string;
  x: number;
  y: number;
  hop: 0 | 1 | 2;
}

interface Edge {
  from: Node;
  to: Node;
  label: string;
}

/** Places nodes and edges; pure, so the layout is testable without a browser. */
export function layoutNeighbourhood(center: string, firstHop: GraphRelation[], secondHop: GraphRelation[]) {
  const nodes = new Map<string, Node>([[key(center), { name: center, x: CX, y: CY, hop: 0 }]]);
  const edges: Edge[] = [];
  const other = (r: GraphRelation, name: string) => (key(r.from) === key(name) ? r.to : r.from);

  const ring1 = [...new Map(firstHop.map((r) => [key(other(r, center)), other(r, center)])).values()].filter((n) => key(n) !== key(center)).slice(0, MAX_FIRST_HOP);
  ring1.forEach((name, i) => {
    const angle = (2 * Math.PI * i) / ring1.length - Math.PI / 2;
    nodes.set(key(name), { name, x: CX + R1 * Math.cos(angle), y: CY + R1 * Math.sin(angle), hop: 1 });
  });

  // Second hop: grouped by the first-hop neighbour that reaches them, fanned out around its angle.
  const byParent = new Map<string, string[]>();
  let placed = 0;
  for (const r of secondHop) {
    if (placed >= MAX_SECOND_HOP) break;
    const parentName = nodes.has(key(r.from)) && nodes.get(key(r.from))!.hop === 1 ? r.from : nodes.has(key(r.to)) && nodes.get(key(r.to))!.hop === 1 ? r.to : undefined;
    if (!parentName) continue;
    const far = other(r, parentName);
    if (nodes.has(key(far)) || byParent.get(key(parentName))?.some((n) => key(n) === key(far))) continue;
    byParent.set(key(parentName), [...(byParent.get(key(parentName)) ?? []), far]);
    placed++;
  }
  for (const [parentKey, children] of byParent) {
    const parent = nodes.get(parentKey)!;
    const base = Math.atan2(parent.y - CY, parent.x - CX);
    const spread = Math.min(0.5, (Math.PI * 2) / Math.max(ring1.length, 1) / 2);
    children.forEach((name, i) => {
      const angle = base + (children.length === 1 ? 0 : -spread + (2 * spread * i) / (children.length - 1));
      nodes.set(key(name), { name, x: CX + R2 * Math.cos(angle), y: CY + R2 * Math.sin(angle), hop: 2 });
    });
  }

  const seen = new Set<string>();
  for (const r of [...firstHop, ...secondHop]) {
    const from = nodes.get(key(r.from));
    const to = nodes.get(key(r.to));
    const id = `${key(r.from)}\0${key(r.to)}\0${r.relationType}`;
    if (!from || !to || from === to || seen.has(id)) continue;
    seen.add(id);
    edges.push({ from, to, label: r.relationType });
  }
  return { nodes: [...nodes.values()], edges };
}

export function NeighbourhoodSvg({ scope, center, firstHop, secondHop }: { scope: string; center: string; firstHop: GraphRelation[]; secondHop: GraphRelation[] }) {
  const { nodes, edges } = layoutNeighbourhood(center, firstHop, secondHop);
  return (
    <svg class="graph" viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={`Entities within two hops of ${center}`}>
      <g stroke="#9aa7b0" stroke-width="1.2">
        {edges.map((e) => (
          <line x1={e.from.x.toFixed(1)} y1={e.from.y.toFixed(1)} x2={e.to.x.toFixed(1)} y2={e.to.y.toFixed(1)} />
        ))}
      </g>
      <g font-size="11" fill="#5f6b73" text-anchor="middle">
        {edges
          .filter((e) => e.from.hop + e.to.hop <= 1)
          .map((e) => (
            <text x={((e.from.x + e.to.x) / 2).toFixed(1)} y={((e.from.y + e.to.y) / 2 - 4).toFixed(1)}>
              {short(e.label, 18)}
            </text>
          ))}
      </g>
      <g font-size="12" text-anchor="middle">
        {nodes.map((n) => (
          <a href={entityHref(scope, n.name)}>
            <title>{n.name}</title>
            <circle cx={n.x.toFixed(1)} cy={n.y.toFixed(1)} r={n.hop === 0 ? 14 : n.hop === 1 ? 9 : 6} fill={n.hop === 0 ? "#0b5cad" : n.hop === 1 ? "#4f8fd1" : "#b9cde3"} />
            <text x={n.x.toFixed(1)} y={(n.y + (n.hop === 0 ? 30 : 22)).toFixed(1)} fill="#1d2327">
              {short(n.name)}
            </text>
          </a>
        ))}
      </g>
    </svg>
  );
}
