// A bare HTTP client for one JSON-RPC tools/call: a kept-alive node:http
// connection, the headers the MCP transport requires, and JSON.parse of the
// answer. No MCP client library: it shows how much of the floor is the
// service's and how much the SDK client's own work (request building, fetch,
// answer validation), which runs on the same cores.
import http from "node:http";

interface RawClient {
  /** `headers`: sent with this call (e.g. a traceparent that names its trace). */
  call(tool: string, args?: Record<string, unknown>, headers?: Record<string, string>): Promise<unknown>;
  close(): void;
}

export function rawClient(mcpUrl: string, token: string, protocolVersion: string): RawClient {
  const url = new URL(mcpUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let id = 0;
  return {
    call(tool, args = {}, headers = {}) {
      const body = JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: tool, arguments: args } });
      return new Promise((resolve, reject) => {
        const req = http.request(
          {
            agent,
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: "POST",
            headers: {
              authorization: `Bearer ${token}`,
              accept: "application/json, text/event-stream",
              "content-type": "application/json",
              "mcp-protocol-version": protocolVersion,
              "content-length": Buffer.byteLength(body),
              ...headers,
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => {
              const answer = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { result?: { isError?: boolean }; error?: unknown };
              if (res.statusCode !== 200 || answer.error || answer.result?.isError) reject(new Error(`${tool}: HTTP ${res.statusCode} ${JSON.stringify(answer).slice(0, 200)}`));
              else resolve(answer.result);
            });
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}
