// A real service on a real port, with a real MCP client per agent; each is
// closed when its test file ends (file-teardown.ts), or earlier by hand.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createDeps } from "../../src/start/deps.js";
import { createAgent, issueToken } from "../../src/auth/store.js";
import { loadConfig, type Config } from "../../src/config/index.js";
import type { Database } from "../../src/db/core/database.js";
import { createLogger } from "../../src/logger.js";
import { startService, type RunningService } from "../../src/serve.js";
import type { AppDeps } from "../../src/app-deps.js";
import { closeWhenFileEnds } from "./file-teardown.js";
import { inProcessFetch } from "./in-process.js";
import { MCP_HEADERS, textOf } from "./mcp.js";

/**
 * Bounds of the design that a test shrinks for one service (config fields that
 * no setting sets: src/limits.ts), instead of storing thousands of rows to reach them.
 */
export type DesignBounds = (config: Config) => void;

export function testConfig(overrides: Record<string, string> = {}, bounds?: DesignBounds): Config {
  const config = loadConfig({
    PORT: "0",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    FIRST_START_OWNER: "false",
    AUTH_FAILURES_PER_MINUTE: "0",
    // Every test client is 127.0.0.1, where a team's racing agents come from many
    // addresses; the per-address bound has its own tests (http-hardening.test.ts).
    HTTP_MAX_CONNECTIONS_PER_ADDRESS: "1000",
    // Not the working folder's ./.agent-memory (a developer's embedded database beside a test on Postgres).
    AGENT_MEMORY_DATA_DIR: join(tmpdir(), `am-no-data-dir-${process.pid}`),
    ...overrides,
  });
  bounds?.(config);
  return config;
}

export async function startTestService(db: Database, env: Record<string, string> = {}, bounds?: DesignBounds): Promise<RunningService> {
  const config = testConfig(env, bounds);
  const service = await startService(config, { logger: createLogger(config.logLevel), print: () => undefined, db });
  return { ...service, stop: closeWhenFileEnds(service.stop) };
}

/** What a test that is not about the transport talks to: the app served in process. */
export interface InProcessService {
  url: string;
  mcpUrl: string;
  db: Database;
  deps: AppDeps;
  /** The `fetch` that reaches this service (connectClient's last argument). */
  fetch: typeof fetch;
  stop(): Promise<void>;
}

/**
 * The service's dependencies and HTTP app, served in this process through
 * `inProcessFetch`: a tool's behaviour, its authentication and the MCP endpoint
 * as in production, without a port, a listener or the background jobs
 * (startTestService has those). Closed when the file ends.
 */
export async function startInProcessService(db: Database, env: Record<string, string> = {}, bounds?: DesignBounds): Promise<InProcessService> {
  const config = testConfig(env, bounds);
  const deps = await createDeps(config, db, createLogger(config.logLevel));
  const { createApp } = await import("../../src/http/app.js");
  const served = inProcessFetch(createApp(deps));
  const url = "http://127.0.0.1";
  const stop = closeWhenFileEnds(async () => {
    served.close();
    await deps.receipts.close();
  });
  return { url, mcpUrl: `${url}/mcp`, db, deps, fetch: served.fetch, stop };
}

export interface TestAgent {
  name: string;
  token: string;
}

export interface AgentOptions {
  kind?: "agent" | "human";
  /** Write scopes (each also readable); ["shared"] when left out. */
  scopes?: string[];
  readScopes?: string[];
}

export async function addAgent(db: Database, name: string, options: AgentOptions = {}): Promise<TestAgent> {
  await createAgent(db, { name, kind: options.kind ?? "agent", writeScopes: options.scopes ?? ["shared"], readScopes: options.readScopes ?? [] });
  const { token } = await issueToken(db, name, null);
  return { name, token };
}

/**
 * A real MCP client of a service: over its socket (an MCP URL, or a service on a
 * port), or in process (a service from startInProcessService, through its `fetch`).
 */
export async function connectClient(to: string | { mcpUrl: string; fetch?: typeof fetch }, token: string, name = "test"): Promise<Client> {
  const { mcpUrl, fetch } = typeof to === "string" ? { mcpUrl: to, fetch: undefined } : to;
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    ...(fetch ? { fetch } : {}),
  });
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(transport);
  const close = closeWhenFileEnds(() => Client.prototype.close.call(client));
  client.close = close;
  return client;
}

// Shared with the reliability tests and the benchmark; re-exported for the tool tests.
export { MCP_HEADERS, textOf };

/** Calls a tool and returns its structuredContent, failing with the text if it was an error. */
export async function callOk<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  return result.structuredContent as T;
}

/** Calls a tool that must fail and returns its error text. */
export async function callError(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!result.isError) throw new Error(`${name} was expected to fail but returned: ${textOf(result)}`);
  return textOf(result);
}

/** The Express app alone (for supertest), with its log lines captured for inspection. */
export async function createTestApp(db: Database, env: Record<string, string> = {}, bounds?: DesignBounds) {
  const { createApp } = await import("../../src/http/app.js");
  const { Writable } = await import("node:stream");
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  const config = testConfig({ LOG_LEVEL: "debug", ...env }, bounds);
  const deps = await createDeps(config, db, createLogger(config.logLevel, sink));
  return { app: createApp(deps), deps, logLines };
}

/** A JSON-RPC tools/call body as an MCP client would POST it. */
export function toolCallBody(name: string, args: Record<string, unknown> = {}, id = 1) {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

