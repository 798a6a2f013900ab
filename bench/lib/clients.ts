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
