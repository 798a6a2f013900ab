// Where a service's CPU time goes, from a V8 .cpuprofile (node --cpu-prof): each
// sample is given to the innermost frame that belongs to a known part of the
// stack (so pg called from the token check counts as "SQL driver", not "auth"),
// and the table shows microseconds per call.
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/** Tested from the innermost frame outwards; the first part found wins (Node's own frames last). */
const PARTS: Array<[string, (url: string, fn: string) => boolean]> = [
  // The send system calls themselves (answer to the client, query to Postgres), whoever makes them.
  ["socket writes (writev system call)", (u, fn) => u === "" && /^(writev|writeUtf8String|writeBuffer|writeLatin1String)$/.test(fn)],
  ["logging (pino; the request log)", (u) => /node_modules\/(pino|pino-http|pino-std-serializers|thread-stream|sonic-boom|@pinojs)\//.test(u) || u.includes("dist/http/logging.js")],
  ["metrics (prom-client)", (u) => u.includes("node_modules/prom-client/")],
  ["SQL driver (pg, pg-protocol)", (u) => /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+)\//.test(u)],
  ["auth: token check (hash, lookup, requireBearerAuth)", (u) => /dist\/auth\/|auth\/middleware\/bearerAuth/.test(u) || u.includes("dist/http-shared/auth.js")],
  ["rate limits (express-rate-limit)", (u) => u.includes("node_modules/express-rate-limit/")],
  ["MCP transport (SDK: hono conversion, web Request/Response)", (u) => /@hono\/node-server|server\/(webStandardStreamableHttp|streamableHttp)\.js/.test(u)],
  ["MCP transport (ours)", (u) => u.includes("dist/http-shared/mcp-transport.js")],
  ["server construction per request", (u, fn) => u.includes("dist/server/server.js") || (u.includes("sdk/dist/esm/server/mcp.js") && /^(McpServer|register|_create|set|_register)/.test(fn)) || /Server$|^Protocol$/.test(fn)],
  ["tool: whoami", (u) => u.includes("dist/whoami/")],
  ["tool: graph (search_nodes)", (u) => u.includes("dist/graph/")],
  ["tool: facts (recall, mapping, text)", (u) => u.includes("dist/facts/")],
  ["tool wrapper (guard, metrics timer)", (u) => u.includes("dist/mcp/guard.js")],
  ["answer validation (zod, Ajv)", (u) => /node_modules\/(zod|ajv|ajv-formats)\//.test(u)],
  ["MCP protocol (JSON-RPC dispatch)", (u) => /@modelcontextprotocol\/sdk\//.test(u)],
  ["JSON body parsing (body-parser, raw-body)", (u) => /node_modules\/(body-parser|raw-body|iconv-lite|type-is|content-type|media-typer)\//.test(u)],
  ["Express routing, other middlewares", (u) => /node_modules\/(express|router|finalhandler|send|on-finished|cors|vary)\//.test(u) || /dist\/http\//.test(u)],
  ["Node HTTP + sockets", (u) => /^node:(_http|http|net|stream|internal\/(streams|http|stream_base))/.test(u) || /_http_|internal\/streams|stream_base_commons/.test(u)],
  ["Node core: module loading at start-up, microtask queue, other", (u, fn) => u.startsWith("node:") || (u === "" && !fn.startsWith("("))],
  ["garbage collection", (_u, fn) => fn === "(garbage collector)"],
  ["idle (waiting for Postgres / the client)", (_u, fn) => fn === "(idle)"],
  ["native / unattributed", (_u, fn) => fn === "(program)"],
];

const NODE_CORE = ["Node HTTP + sockets", "Node core: module loading at start-up, microtask queue, other"];

export function summarizeProfile(file: string, calls: number): string {
  const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const partOf = new Map<number, string>();
  const classify = (id: number): string => {
    const known = partOf.get(id);
    if (known) return known;
    // Node's own frames (sockets, streams, JSON) go to the innermost package
    // or service frame that called them; only stacks with none stay "Node".
    let part: string | undefined;
    let core: string | undefined;
    for (let at: number | undefined = id; at !== undefined && part === undefined; at = parent.get(at)) {
      const { url, functionName } = byId.get(at)!.callFrame;
      const hit = PARTS.find(([, test]) => test(url, functionName))?.[0];
      if (hit && NODE_CORE.includes(hit)) core ??= hit;
      else if (hit) part = hit;
    }
    part ??= core ?? "other";
    partOf.set(id, part);
    return part;
  };
  const micros = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const part = classify(id);
    micros.set(part, (micros.get(part) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  // Only the part of the run spent on calls: start-up and shutdown are left out by per-call division.
  const rows = [...micros.entries()].sort((a, b) => b[1] - a[1]);
  const busy = rows.filter(([p]) => !p.startsWith("idle")).reduce((s, [, us]) => s + us, 0);
  const lines = ["| part | µs per call | share of busy CPU |", "|---|---:|---:|"];
  for (const [part, us] of rows) lines.push(`| ${part} | ${(us / calls).toFixed(1)} | ${part.startsWith("idle") ? "" : `${((100 * us) / busy).toFixed(1)} %`} |`);
  lines.push(`| **busy CPU in total** | **${(busy / calls).toFixed(1)}** | |`);
  return lines.join("\n");
}
