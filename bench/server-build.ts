// The per-request cost of building the MCP server (stateless HTTP builds one per
// request), the way it is done now and the naive way, in one run, alternated:
//   node --import tsx bench/server-build.ts          (ROUNDS=15 by default)
// naive: a new McpServer (with its own Ajv validator) and every capability's
// registrations built again from the definitions; now: the factory replays
// registrations built once, with one shared validator.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { loadConfig } from "../src/config.js";
import { openPglite } from "../src/db/pglite.js";
import { createLogger } from "../src/logger.js";
import { createDeps } from "../src/app-deps.js";
import { capabilities } from "../src/server/capabilities.js";
import { buildRegistrations, createMcpServerFactory } from "../src/server/server.js";
import { SERVER_INSTRUCTIONS } from "../src/mcp/instructions.js";

// Real deps (an in-memory embedded database, never queried here): building a
// server touches none of them, but the factory takes what the service passes.
const config = loadConfig({ LOG_LEVEL: "silent" });
const db = await openPglite({ dataDir: undefined, statementTimeoutMs: 10_000, lockTimeoutMs: 3000 });
const deps = await createDeps(config, db, createLogger(config.logLevel));

/**
 * Wall and CPU microseconds per build over n builds. CPU time (this process,
 * all its threads) leaves out the time the process waited for a core, which is
 * most of the wall time when other work shares the machine.
 */
function perCallMicroseconds(build: () => unknown, n: number): { wall: number; cpu: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) build();
  const wall = ((performance.now() - t0) / n) * 1000;
  const c = process.cpuUsage(c0);
  return { wall, cpu: (c.user + c.system) / n };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

const naive = () => {
  const server = new McpServer({ name: "agent-memory", version: "0" }, { instructions: SERVER_INSTRUCTIONS, capabilities: { tools: {}, resources: {} } });
  for (const register of buildRegistrations(deps, capabilities)) register(server);
  return server;
};
const factory = createMcpServerFactory(deps);

// The machine may be shared: the two variants alternate in rounds (A B A B …)
// so that a burst of other load hits both, and each reports its median round.
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const variants = [
  { label: "naive: new McpServer + register every tool", build: naive, n: 300, wall: [] as number[], cpu: [] as number[] },
  { label: "now: recorded registrations + shared validator", build: factory, n: 3000, wall: [] as number[], cpu: [] as number[] },
];
for (const v of variants) perCallMicroseconds(v.build, v.n / 10); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  for (const v of variants) {
    const { wall, cpu } = perCallMicroseconds(v.build, v.n);
    v.wall.push(wall);
    v.cpu.push(cpu);
  }
}
const us = (x: number) => x.toFixed(0).padStart(6);
console.log(`median of ${ROUNDS} alternated rounds (naive ${variants[0]!.n}, now ${variants[1]!.n} builds per round); min-max in brackets`);
for (const v of variants) {
  const range = (xs: number[]) => `[${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}]`;
  console.log(`${v.label.padEnd(50)} ${us(median(v.wall))} µs wall ${range(v.wall)}  ${us(median(v.cpu))} µs CPU ${range(v.cpu)} per request`);
}
await db.close();
