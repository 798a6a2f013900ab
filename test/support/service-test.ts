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
// handling, without a port or background jobs); a file whose subject is the
// transport, a job or what the service puts around the app starts the whole
// service on a port instead (startTestService). Test-scoped with one shared
// value rather than file-scoped: vitest refuses file-scoped fixtures on tests
// declared inside describe.each, which the files run on both databases use.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { test as base } from "vitest";
import { createTestDatabase, type Backend, type TestDatabase } from "./databases.js";
import { addAgent, type AgentOptions, connectClient, type InProcessService, startInProcessService } from "./service.js";

export interface ServiceTestOptions<A extends string> {
  /** Each agent by name, with its kind and scopes (addAgent's); each gets a connected MCP client. */
  agents: Record<A, AgentOptions>;
  backend?: Backend;
  env?: Record<string, string>;
  /** Runs once, when everything is made: what every test of the file starts from (rows, entities). */
  prepare?: (made: ServiceFixtures<A>) => Promise<void>;
}

export interface ServiceFixtures<A extends string> {
  tdb: TestDatabase;
  service: InProcessService;
  clients: Record<A, Client>;
}

async function makeService<A extends string>(options: ServiceTestOptions<A>): Promise<ServiceFixtures<A>> {
  const tdb = await createTestDatabase(options.backend ?? "postgres");
  const service = await startInProcessService(tdb.db, options.env);
  const clients = {} as Record<A, Client>;
  for (const [name, spec] of Object.entries(options.agents) as Array<[A, AgentOptions]>) {
    clients[name] = await connectClient(service, (await addAgent(tdb.db, name, spec)).token, name);
  }
  const made = { tdb, service, clients };
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
    clients: async ({}, use) => use((await shared()).clients),
  });
}
