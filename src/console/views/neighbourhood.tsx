// An entity's neighbourhood as a server-side SVG (no script): the entity in the
// middle, entities one hop away on an inner ring, two hops away on an outer
// ring next to the neighbour that leads to them. Every node links to its page.
import type { GraphRelation } from "../../graph/index.js";
import { entityHref } from "./entity-href.js";

export const MAX_FIRST_HOP = 16;
const MAX_SECOND_HOP = 24;

// Nodes are placed around (0, 0); the picture is then cut to what was drawn
// (viewBox), so two nodes make a small picture, not a 960×640 one.
const CX = 0;
const CY = 0;
const R1 = 170;
const R2 = 280;
const MARGIN = 12;
const RADIUS = { 0: 14, 1: 9, 2: 6 } as const;
const LABEL_DY = { 0: 30, 1: 22, 2: 22 } as const;
// Text is not measured on the server: a generous average advance per character.
const NODE_CHAR_W = 7.2;
const EDGE_CHAR_W = 6.6;
const ARROW_ID = "am-arrow";

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
    // From the right, clockwise: one or two neighbours lie beside the centre, as wide screens have room.
    const angle = (2 * Math.PI * i) / ring1.length;
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
  return { nodes: [...nodes.values()], edges, box: boundingBox([...nodes.values()], edges) };
}

/** What the picture must show: every circle, node label and edge label, with a margin. */
function boundingBox(nodes: Node[], edges: Edge[]) {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const take = (x0: number, y0: number, x1: number, y1: number) => {
    minX = Math.min(minX, x0);
    minY = Math.min(minY, y0);
    maxX = Math.max(maxX, x1);
    maxY = Math.max(maxY, y1);
  };
  for (const n of nodes) {
    const r = RADIUS[n.hop];
    const half = ([...short(n.name)].length * NODE_CHAR_W) / 2;
    take(n.x - r, n.y - r, n.x + r, n.y + r);
    take(n.x - half, n.y, n.x + half, n.y + LABEL_DY[n.hop] + 4);
  }
  for (const e of labelledEdges(edges)) {
    const half = ([...short(e.label, 18)].length * EDGE_CHAR_W) / 2;
    const { x, y } = edgeLabelAt(e);
    take(x - half, y - 11, x + half, y + 3);
  }
  const x = Math.floor(minX - MARGIN);
  const y = Math.floor(minY - MARGIN);
  return { x, y, width: Math.ceil(maxX + MARGIN) - x, height: Math.ceil(maxY + MARGIN) - y };
}

/** Edges whose relation type is written on them: those touching the centre. */
const labelledEdges = (edges: Edge[]) => edges.filter((e) => e.from.hop + e.to.hop <= 1);
const edgeLabelAt = (e: Edge) => ({ x: (e.from.x + e.to.x) / 2, y: (e.from.y + e.to.y) / 2 - 4 });

/** The edge from rim to rim, so the arrowhead at its end sits outside the target's circle. */
function edgeEnds(e: Edge) {
  const dx = e.to.x - e.from.x;
  const dy = e.to.y - e.from.y;
  const length = Math.hypot(dx, dy) || 1;
  const start = RADIUS[e.from.hop];
  const end = length - RADIUS[e.to.hop] - 1;
  return { x1: e.from.x + (dx * start) / length, y1: e.from.y + (dy * start) / length, x2: e.from.x + (dx * end) / length, y2: e.from.y + (dy * end) / length };
}

export function NeighbourhoodSvg({ scope, center, firstHop, secondHop }: { scope: string; center: string; firstHop: GraphRelation[]; secondHop: GraphRelation[] }) {
  const { nodes, edges, box } = layoutNeighbourhood(center, firstHop, secondHop);
  // Arrowheads are an SVG marker, drawn with presentation attributes: the CSP
  // (style-src 'self') allows no inline style, and needs none for this. A group,
  // not an image: each entity in it is a link (an image holds nothing to focus).
  return (
    <svg class="graph" viewBox={`${box.x} ${box.y} ${box.width} ${box.height}`} width={box.width} height={box.height} role="group" aria-label={`Entities within two hops of ${center}`}>
      <defs>
        <marker id={ARROW_ID} viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto">
          <path d="M0,0 L10,5 L0,10 z" fill="#7d8b95" />
        </marker>
      </defs>
      <g stroke="#9aa7b0" stroke-width="1.2">
        {edges.map((e) => {
          const { x1, y1, x2, y2 } = edgeEnds(e);
          return <line x1={x1.toFixed(1)} y1={y1.toFixed(1)} x2={x2.toFixed(1)} y2={y2.toFixed(1)} marker-end={`url(#${ARROW_ID})`} />;
        })}
      </g>
      {/* Labels get a white halo (paint-order: stroke under fill), so lines and arrowheads under them do not cut through the words. */}
      <g font-size="11" fill="#5f6b73" text-anchor="middle" stroke="#fff" stroke-width="3" stroke-linejoin="round" paint-order="stroke">
        {labelledEdges(edges).map((e) => {
          const { x, y } = edgeLabelAt(e);
          return (
            <text x={x.toFixed(1)} y={y.toFixed(1)}>
              {short(e.label, 18)}
            </text>
          );
        })}
      </g>
      <g font-size="12" text-anchor="middle">
        {nodes.map((n) => (
          <a href={entityHref(scope, n.name)}>
            <title>{n.name}</title>
            <circle cx={n.x.toFixed(1)} cy={n.y.toFixed(1)} r={RADIUS[n.hop]} fill={n.hop === 0 ? "#0b5cad" : n.hop === 1 ? "#4f8fd1" : "#b9cde3"} />
            <text x={n.x.toFixed(1)} y={(n.y + LABEL_DY[n.hop]).toFixed(1)} fill="#1d2327" stroke="#fff" stroke-width="3" stroke-linejoin="round" paint-order="stroke">
              {short(n.name)}
            </text>
          </a>
        ))}
      </g>
    </svg>
  );
}
