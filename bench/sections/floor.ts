// The floor: a trivial tool (whoami) through the whole stack (HTTP, auth lookup,
// MCP server per request). No real tool can be faster; every other figure is
// also shown as a multiple of this one.
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { call, connect, timeConcurrent, timeSequential } from "../lib/clients.js";
import { rawClient } from "../lib/raw-client.js";
import type { BenchContext } from "../lib/context.js";
import { printTable } from "../lib/table.js";

export async function benchFloor(ctx: BenchContext): Promise<void> {
  const token = ctx.agents.writers[0]!.token;
  const client = await connect(ctx.service.mcpUrl, token);
  const n = ctx.quick ? 200 : 3000;
  await timeSequential(client, Math.min(500, n), () => call(client, "whoami"));
  const sequential = await timeSequential(client, n, () => call(client, "whoami"));
  await client.close();
  // The same call from a bare HTTP client (bench/lib/raw-client.ts): the service's
  // part of the floor, without the SDK client's own work on the same two cores.
  const raw = rawClient(ctx.service.mcpUrl, token, LATEST_PROTOCOL_VERSION);
  await timeSequential(client, Math.min(500, n), () => raw.call("whoami"));
  const bare = await timeSequential(client, n, () => raw.call("whoami"));
  raw.close();

  const perSecond: Record<number, number> = {};
  const rows: Array<Array<string | number>> = [
    ["sequential, 1 client", sequential.p50, sequential.p99, 1000 / sequential.mean],
    ["sequential, bare HTTP client", bare.p50, bare.p99, 1000 / bare.mean],
  ];
  for (const clients of [1, 4, 16]) {
    const pool = await Promise.all(Array.from({ length: clients }, () => connect(ctx.service.mcpUrl, token)));
    const t = await timeConcurrent(pool, ctx.quick ? 200 : 4000, (c) => call(c, "whoami"));
    perSecond[clients] = t.perSecond;
    rows.push([`${clients} concurrent clients`, t.latency.p50, t.latency.p99, t.perSecond]);
    await Promise.all(pool.map((c) => c.close()));
  }
  ctx.floor = { p50: sequential.p50, p99: sequential.p99, perSecond };
  ctx.results.floor = { sequential, bareHttpClient: bare, perSecond };
  printTable("Floor: whoami (ms)", ["run", "p50", "p99", "calls/s"], rows);
}
