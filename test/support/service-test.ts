// A fixture for the common test file: a database, a service on it and a real MCP
// client per agent, declared once at the top of the file instead of written out
// in a beforeAll. The first test that asks for any of them makes them all, every
// later test of the declaration shares them, and each part closes itself when
// the file ends (file-teardown.ts): the file writes no set-up and no teardown.
//
//   const test = serviceTest({ agents: { writer: { scopes: ["shared"] }, reader: {} } });
//   test("…", async ({ clients }) => { await callOk(clients.writer, "memory_store", {…}); });
//
// The service is served in process (startInProcessService: the app's own HTTP
// handling, without a port or background jobs); `http: true` starts the whole
// service on a port, for tests whose subject is the transport, a job or what
// the service puts around the app. Test-scoped with one shared value rather than
// file-scoped: vitest refuses file-scoped fixtures on tests declared inside
// describe.each, which the files run on both databases use.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { test as base } from "vitest";
import type { RunningService } from "../../src/serve.js";
import { createTestDatabase, type Backend, type TestDatabase } from "./databases.js";
import { addAgent, connectClient, startInProcessService, startTestService, type DesignBounds, type InProcessService, type TestAgent } from "./service.js";

export interface AgentSpec {
  kind?: "agent" | "human";
  /** Write scopes (each also readable); ["shared"] when left out. */
  scopes?: string[];
  readScopes?: string[];
  /** No MCP client is connected for this agent (a person, or a token used over plain HTTP). */
  noClient?: boolean;
}

export interface ServiceTestOptions<A extends string> {
  agents: Record<A, AgentSpec>;
  backend?: Backend;
  env?: Record<string, string>;
  bounds?: DesignBounds;
  /** The whole service on a port instead of the app in process. */
  http?: boolean;
  statementTimeoutMs?: number;
  /** Runs once, when everything is made: what every test of the file starts from (rows, entities). */
  prepare?: (made: ServiceFixtures<A>) => Promise<void>;
}

export interface ServiceFixtures<A extends string> {
  tdb: TestDatabase;
  service: InProcessService | RunningService;
  agents: Record<A, TestAgent>;
  clients: Record<A, Client>;
}

async function makeService<A extends string>(options: ServiceTestOptions<A>): Promise<ServiceFixtures<A>> {
  const tdb = await createTestDatabase(options.backend ?? "postgres", options.statementTimeoutMs !== undefined ? { statementTimeoutMs: options.statementTimeoutMs } : {});
  const service = options.http ? await startTestService(tdb.db, options.env, options.bounds) : await startInProcessService(tdb.db, options.env, options.bounds);
  const agents = {} as Record<A, TestAgent>;
  const clients = {} as Record<A, Client>;
  for (const [name, spec] of Object.entries(options.agents) as Array<[A, AgentSpec]>) {
    agents[name] = await addAgent(tdb.db, name, spec);
    if (!spec.noClient) clients[name] = await connectClient(service, agents[name].token, name);
  }
  const made = { tdb, service, agents, clients };
  await options.prepare?.(made);
  return made;
}

/** A vitest `test` whose fixtures are one database, one service and the agents' clients, made once for the file. */
export function serviceTest<A extends string>(options: ServiceTestOptions<A>) {
  let made: Promise<ServiceFixtures<A>> | undefined;
  const shared = () => (made ??= makeService(options));
  return base.extend<ServiceFixtures<A>>({
    tdb: async ({}, use) => use((await shared()).tdb),
    service: async ({}, use) => use((await shared()).service),
    agents: async ({}, use) => use((await shared()).agents),
    clients: async ({}, use) => use((await shared()).clients),
  });
}
