// Real MCP clients over HTTP, and the loops that time them.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { textOf } from "../../test/support/mcp.js";
import { summarize, type Summary } from "./stats.js";

export async function connect(mcpUrl: string, token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();
  return client;
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (r.isError) throw new Error(`${name} failed: ${textOf(r)}`);
  return r;
}

/** Sequential latency of one call shape, in ms. */
export async function timeSequential(client: Client, n: number, makeCall: (i: number) => Promise<unknown>): Promise<Summary> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await makeCall(i);
    samples.push(performance.now() - t0);
  }
  void client;
  return summarize(samples);
}

export interface Throughput {
  clients: number;
  calls: number;
  seconds: number;
  perSecond: number;
  latency: Summary;
}

/** `clients` workers each issue calls back to back until `total` calls are done. */
export async function timeConcurrent(clients: Client[], total: number, makeCall: (client: Client, i: number) => Promise<unknown>): Promise<Throughput> {
  let next = 0;
  const samples: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const s = performance.now();
        await makeCall(client, i);
        samples.push(performance.now() - s);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { clients: clients.length, calls: total, seconds, perSecond: total / seconds, latency: summarize(samples) };
}

/**
 * A call's sequential latency (ms) beside whoami's from the same client, in
 * alternating blocks after a warm-up of the call: the floor as it stands beside
 * the call (on the same service, data and client), not only as the floor
 * section measured it before a load.
 */
export async function timeBeside(client: Client, n: number, makeCall: () => Promise<unknown>): Promise<{ call: number[]; whoami: number[] }> {
  await timeSequential(client, Math.min(50, n), makeCall);
  const samples = { call: [] as number[], whoami: [] as number[] };
  const timed = async (work: () => Promise<unknown>, into: number[]) => {
    const t0 = performance.now();
    await work();
    into.push(performance.now() - t0);
  };
  const block = Math.max(10, Math.floor(n / 10));
  for (let done = 0; done < n; done += block) {
    const size = Math.min(block, n - done);
    for (let i = 0; i < size; i++) await timed(() => call(client, "whoami"), samples.whoami);
    for (let i = 0; i < size; i++) await timed(makeCall, samples.call);
  }
  return samples;
}
