// Both eras of MCP from one server: an SDK v2 client pinned to 2026-07-28, an
// SDK v2 client in its default (2025 handshake) mode, and the v1 SDK client run
// the same scripted session against a real service, and get the same answers.
// The 2026-07-28 list results say how long they may be reused, and that they
// are the caller's alone (every answer depends on the token).
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../../src/serve.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, startTestService } from "../support/service.js";

/** What the session needs of a client, whichever SDK made it. */
interface SessionClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  readResource(params: { uri: string }): Promise<unknown>;
  getPrompt(params: { name: string; arguments: Record<string, string> }): Promise<unknown>;
  complete(params: unknown): Promise<unknown>;
  close(): Promise<void>;
}

const authorized = (token: string) => ({ requestInit: { headers: { Authorization: `Bearer ${token}` } } });

/** The session's answers with what differs by client or by run (times, ids, sequence numbers) taken out. */
function comparable(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value)
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "<time>")
      .replace(/\d{4}-\d{2}-\d{2}/g, "<day>")
      .replace(/aml_[A-Za-z0-9_-]{43}/g, "<claim id>")
      .replace(/"(claimRef|hash)":"[0-9a-f]+"/g, '"$1":"<hex>"')
      .replace(/\[claim [0-9a-f]{12}\]/g, "[claim <ref>]")
      .replace(/ledger #\d+/g, "ledger #<n>")
      .replace(/"seq":\d+/g, '"seq":0')
      .replace(/v2modern|v2legacy|v1/g, "<run>"),
  );
}

describe("one service, both eras of MCP", () => {
  /** A service on a database of its own: each session starts from the same empty memory. */
  interface Served {
    tdb: TestDatabase;
    service: RunningService;
    tokens: { writer: string; reviewer: string };
  }
  const started: Served[] = [];
  const serve = async (): Promise<Served> => {
    const tdb = await createTestDatabase("postgres");
    const service = await startTestService(tdb.db);
    const tokens = {
      writer: (await addAgent(tdb.db, "writer", { scopes: ["shared"] })).token,
      reviewer: (await addAgent(tdb.db, "reviewer", { kind: "human", scopes: ["shared"] })).token,
    };
    started.push({ tdb, service, tokens });
    return started.at(-1)!;
  };
  let first: Served;

  beforeAll(async () => {
    first = await serve();
  });

  const connect = async (served: Served, kind: "v2-modern" | "v2-legacy" | "v1", token: string): Promise<SessionClient & { era?: string }> => {
    const url = new URL(served.service.mcpUrl);
    if (kind === "v1") {
      const client = new V1Client({ name: "v1", version: "1.0.0" });
      await client.connect(new V1Transport(url, authorized(token)));
      return client as unknown as SessionClient;
    }
    const client = new V2Client({ name: kind, version: "1.0.0" }, kind === "v2-modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {});
    await client.connect(new V2Transport(url, authorized(token)));
    return Object.assign(client as unknown as SessionClient, { era: client.getProtocolEra() });
  };

  /** The scripted session: every kind of request an agent makes, each answer kept. */
  async function session(kind: "v2-modern" | "v2-legacy" | "v1"): Promise<unknown[]> {
    const run = kind.replace(/[^a-z0-9]/g, "");
    const served = await serve();
    const writer = await connect(served, kind, served.tokens.writer);
    const reviewer = await connect(served, kind, served.tokens.reviewer);
    const name = `era-${run}`;
    const key = { action: "publish_post", target: `client-${run}` };
    try {
      const answers: unknown[] = [];
      answers.push(await writer.callTool({ name: "whoami", arguments: {} }));
      answers.push(await writer.callTool({ name: "memory_store", arguments: { name, description: `Fact stored by the ${run} session`, type: "project", body: "Both eras see the same." } }));
      answers.push(await writer.callTool({ name: "memory_recall", arguments: { keywords: [name] } }));
      answers.push(await reviewer.callTool({ name: "memory_promote", arguments: { name, to: "confirmed", reason: "checked" } }));
      answers.push(await writer.callTool({ name: "ledger_check", arguments: key }));
      const claimed = (await writer.callTool({ name: "ledger_claim", arguments: key })) as { structuredContent: { claimId: string } };
      answers.push(claimed);
      answers.push(await writer.callTool({ name: "ledger_record", arguments: { ...key, evidence: `https://blog.example/${run}`, claimId: claimed.structuredContent.claimId } }));
      answers.push(await writer.callTool({ name: "create_entities", arguments: { entities: [{ name: `Entity ${run}`, entityType: "test", observations: ["seen by both eras"] }] } }));
      answers.push(await writer.callTool({ name: "search_nodes", arguments: { query: `Entity ${run}` } }));
      answers.push(await writer.callTool({ name: "open_nodes", arguments: { names: [`Entity ${run}`] } }));
      answers.push(await writer.readResource({ uri: `memory://facts/shared/${name}` }));
      answers.push(await writer.getPrompt({ name: "handoff", arguments: { action: key.action, target: key.target } }));
      answers.push(await writer.complete({ ref: { type: "ref/resource", uri: "memory://facts/{scope}/{name}" }, argument: { name: "name", value: `era-${run}` }, context: { arguments: { scope: "shared" } } }));
      return answers;
    } finally {
      await writer.close();
      await reviewer.close();
    }
  }

  it("runs the same session with a 2026-07-28 client, a 2025 one and the v1 SDK client, with the same answers", async () => {
    const modern = await connect(first, "v2-modern", first.tokens.writer);
    expect(modern.era).toBe("modern");
    await modern.close();
    const legacy = await connect(first, "v2-legacy", first.tokens.writer);
    expect(legacy.era).toBe("legacy");
    await legacy.close();

    const [v2Modern, v2Legacy, v1] = [await session("v2-modern"), await session("v2-legacy"), await session("v1")];
    // Results of either era carry fields of their own (2026-07-28: resultType, cache fields, the server's identity in _meta).
    const era = ["_meta", "resultType", "ttlMs", "cacheScope"];
    const bare = (answers: unknown[]) =>
      comparable(answers.map((a) => (typeof a === "object" && a !== null ? Object.fromEntries(Object.entries(a).filter(([k]) => !era.includes(k))) : a)));
    expect(bare(v2Legacy)).toEqual(bare(v1));
    expect(bare(v2Modern)).toEqual(bare(v1));
    for (const answer of v1.slice(0, 10)) expect((answer as { isError?: boolean }).isError, JSON.stringify(answer)).toBeFalsy();
    // A fact read as a resource changes with every write: a 2026-07-28 client may not reuse it.
    expect(v2Modern[10]).toMatchObject({ cacheScope: "private", ttlMs: 0 });
  });

  const modernRequest = (method: string, params: Record<string, unknown> = {}) =>
    fetch(first.service.mcpUrl, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${first.tokens.writer}`,
        Accept: "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": method,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method,
        params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} } },
      }),
    });

  it("answers 2026-07-28 list requests with a private cache scope and a ttl", async () => {
    const response = await modernRequest("tools/list");
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result: { tools: unknown[]; ttlMs: number; cacheScope: string } };
    expect(body.result.tools.length).toBeGreaterThan(20);
    expect(body.result).toMatchObject({ cacheScope: "private", ttlMs: 3_600_000 });
  });

  it("offers no subscriptions: server/discover declares none and subscriptions/listen acknowledges none and ends", async () => {
    const discover = (await (await modernRequest("server/discover")).json()) as { result: { capabilities: Record<string, unknown> } };
    expect(discover.result.capabilities.resources).not.toMatchObject({ subscribe: true });
    expect(discover.result.capabilities).not.toHaveProperty("subscriptions");
    const listen = await modernRequest("subscriptions/listen", { notifications: { resourcesUpdated: ["memory://facts/team/x"] } });
    // The SDK answers listen itself: it acknowledges none of the asked notifications and ends the stream at once.
    const events = (await listen.text()).split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6)));
    expect(events[0]).toMatchObject({ method: "notifications/subscriptions/acknowledged", params: { notifications: {} } });
    expect(events.at(-1)).toMatchObject({ id: 1, result: { resultType: "complete" } });
  });
});
