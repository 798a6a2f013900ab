// The embedded database (PGlite) under a statement that runs too long (audit
// finding 1). PGlite cannot cancel its own statements; in the service's thread
// one slow statement froze every request, /healthz included, and ran to its
// end whatever DB_STATEMENT_TIMEOUT_MS said. Now the database lives in a worker
// thread: the service keeps answering while it works, and a watchdog refuses a
// statement past the timeout (retryable, as on Postgres), restarts the worker on
// the same folder, and the service carries on with the data intact. The slow
// statement is a trigger of this test's own database that burns CPU.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { openPglite } from "../../src/db/embedded/pglite.js";
import { startServe, type ServeProcess } from "../support/cli.js";
import { tempDirForFile } from "../support/file-teardown.js";
import { TEST_TIMEOUTS } from "../support/databases.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { callToolOk, callTool, until } from "./support.js";

const STATEMENT_TIMEOUT_MS = 1500;
const BURN_SECONDS = 6;
// Generous: it proves "answers while the database works", not a latency.
const LIVENESS_MS = 1000;
const RETRY_SLOW = "The database took too long to answer and the call was cancelled. Nothing was written; retry, or narrow the request.";

let dataDir: string;
let serve: ServeProcess;
let mcpUrl: string;
let agent: TestAgent;

beforeAll(async () => {
  dataDir = await tempDirForFile("am-watchdog-");
  // The migrated template on disk: the service's own folder, without initdb's seconds.
  const db = await openPglite({ ...TEST_TIMEOUTS, dataDir, template: inject("pgliteTemplate") });
  agent = await addAgent(db, "writer");
  // An entity named "slow" keeps the database busy for BURN_SECONDS.
  await db.exec(`
    create function test_burn() returns trigger language plpgsql as $$
    declare t0 timestamptz := clock_timestamp();
    begin
      if new.name = 'slow' then
        loop exit when clock_timestamp() > t0 + interval '${BURN_SECONDS} seconds'; end loop;
      end if;
      return new;
    end $$;
    create trigger test_burn before insert on graph_entities for each row execute function test_burn();`);
  await db.close();
  serve = startServe({ AGENT_MEMORY_DATA_DIR: dataDir, FIRST_START_OWNER: "false", LOG_LEVEL: "warn", DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) });
  mcpUrl = await serve.ready;
});

async function timedHealthz(): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(mcpUrl.replace(/\/mcp$/, "/healthz"));
  expect(res.status).toBe(200);
  return performance.now() - t0;
}

describe("a statement past the timeout on the embedded database", () => {
  it("leaves /healthz answering, is refused as retryable, and the service carries on with its data", async () => {
    await callToolOk(mcpUrl, agent.token, "create_entities", { entities: [{ name: "kept", entityType: "t", observations: ["before"] }] });

    const slow = callTool(mcpUrl, agent.token, "create_entities", { entities: [{ name: "slow", entityType: "t", observations: [] }] });
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, 300));
    const healthz: number[] = [];
    for (let i = 0; i < 3; i++) healthz.push(await timedHealthz());
    for (const ms of healthz) expect(ms, `healthz took ${ms.toFixed(0)} ms while the database worked`).toBeLessThan(LIVENESS_MS);

    const outcome = await slow;
    const waited = performance.now() - t0;
    expect(outcome).toMatchObject({ kind: "refused", text: RETRY_SLOW });
    // Refused at the timeout, not after the statement's own end.
    expect(waited).toBeLessThan(BURN_SECONDS * 1000);

    // The worker was restarted on the same folder: earlier data is there, the slow one is not, writes work.
    // While the new worker opens the folder, a call may be told "unavailable, retry"
    // (503 with Retry-After; seen once under heavy machine load); nothing else is accepted.
    const after = await until(
      "open_nodes to answer after the restart",
      async () => {
        const outcome = await callTool(mcpUrl, agent.token, "open_nodes", { names: ["kept", "slow"] });
        if (outcome.kind === "http" && outcome.status === 503 && outcome.retryAfter) return false;
        return outcome;
      },
      60_000,
      500,
      () => serve.stdout() + serve.stderr(),
    );
    expect(after.kind, `${JSON.stringify(after)}\n${serve.stdout()}${serve.stderr()}`).toBe("ok");
    const found = (after as unknown as { result: { structuredContent: { entities: Array<{ name: string }> } } }).result.structuredContent;
    expect(found.entities.map((e) => e.name)).toEqual(["kept"]);
    await callToolOk(mcpUrl, agent.token, "add_observations", { observations: [{ entityName: "kept", contents: ["after"] }] });
    expect(await callToolOk(mcpUrl, agent.token, "whoami", {})).toMatchObject({ name: "writer" });
    expect(serve.stdout() + serve.stderr()).toMatch(/restarted by the statement watchdog/);
  });
});
