// completion/complete over a real MCP client: prompt arguments and the fact
// resource template's variables complete only from what the caller may read
// (or write), at most 100 values with hasMore, each lookup one index range.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { NAMES_BY_PREFIX, SCOPES_BY_PREFIX } from "../../src/facts/lifecycle/complete.js";
import { ACTIONS_BY_PREFIX, TARGETS_BY_PREFIX } from "../../src/ledger/complete.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";
import { type PlanNode, planNodes } from "../support/plans.js";
import { addAgent, callOk, connectClient, startInProcessService, type InProcessService } from "../support/service.js";

const FACT_TEMPLATE = "memory://facts/{scope}/{name}";

describe.each(BACKENDS)("completions on %s", (backend) => {
  let t: TestDatabase;
  let service: InProcessService;
  let reader: Client;
  let admin: Client;

  const completeResource = (client: Client, name: string, value: string, args?: Record<string, string>) =>
    client.complete({ ref: { type: "ref/resource", uri: FACT_TEMPLATE }, argument: { name, value }, ...(args ? { context: { arguments: args } } : {}) });
  const completePrompt = (client: Client, prompt: string, name: string, value: string, args?: Record<string, string>) =>
    client.complete({ ref: { type: "ref/prompt", name: prompt }, argument: { name, value }, ...(args ? { context: { arguments: args } } : {}) });

  beforeAll(async () => {
    t = await createTestDatabase(backend);
    service = await startInProcessService(t.db);
    const readerAgent = await addAgent(t.db, "reader", { scopes: ["shared", "blog"], readScopes: ["docs"] });
    const opsAgent = await addAgent(t.db, "ops", { scopes: ["ops"] });
    const adminAgent = await addAgent(t.db, "admin", { scopes: ["*"] });
    reader = await connectClient(service, readerAgent.token);
    admin = await connectClient(service, adminAgent.token);
    const ops = await connectClient(service, opsAgent.token);
    const store = (client: Client, scope: string, name: string) => callOk(client, "memory_store", { name, scope, type: "project", description: `About ${name}`, body: "Why and how." });
    await store(reader, "shared", "deploy-order");
    await store(reader, "shared", "deploy-window");
    await store(reader, "blog", "deploy-blog");
    await store(ops, "ops", "deploy-secret-keys");
    await store(admin, "ops-archive", "deploy-old");
    // 120 names with one prefix: past one answer's 100.
    for (let i = 0; i < 120; i++) await store(reader, "shared", `bulk-${String(i).padStart(3, "0")}`);
    await callOk(admin, "ledger_claim", { action: "deploy_prod", target: "billing-api" });
    await callOk(admin, "ledger_claim", { action: "deploy_prod", target: "web" });
    await callOk(admin, "ledger_claim", { action: "publish_qiita", target: "article-1" });
    await ops.close();
  }, 120_000);

  it("offers only scopes the caller may read, for the fact template", async () => {
    expect((await completeResource(reader, "scope", "")).completion).toEqual({ values: ["blog", "docs", "shared"], hasMore: false });
    expect((await completeResource(reader, "scope", "o")).completion.values).toEqual([]);
    // "*": the scopes facts are stored in, and shared.
    expect((await completeResource(admin, "scope", "o")).completion.values).toEqual(["ops", "ops-archive"]);
    expect((await completeResource(admin, "scope", "")).completion.values).toEqual(["blog", "ops", "ops-archive", "shared"]);
  });

  it("offers names only in a scope the caller may read", async () => {
    expect((await completeResource(reader, "name", "deploy-", { scope: "shared" })).completion.values).toEqual(["deploy-order", "deploy-window"]);
    expect((await completeResource(reader, "name", "deploy-", { scope: "ops" })).completion.values).toEqual([]);
    expect((await completeResource(reader, "name", "deploy-")).completion.values).toEqual([]);
    expect((await completeResource(admin, "name", "", { scope: "ops" })).completion.values).toEqual(["deploy-secret-keys"]);
  });

  it("answers at most 100 values, with hasMore when more exist", async () => {
    const page = (await completeResource(reader, "name", "bulk-", { scope: "shared" })).completion;
    expect(page.values).toHaveLength(100);
    expect(page.values[0]).toBe("bulk-000");
    expect(page.hasMore).toBe(true);
    const few = (await completeResource(reader, "name", "bulk-11", { scope: "shared" })).completion;
    expect(few).toEqual({ values: Array.from({ length: 10 }, (_, i) => `bulk-11${i}`), hasMore: false });
  });

  it("completes prompt arguments: scopes to write, types, ledger actions and targets", async () => {
    expect((await completePrompt(reader, "remember", "scope", "")).completion.values).toEqual(["blog", "shared"]);
    expect((await completePrompt(reader, "review", "scope", "b")).completion.values).toEqual(["blog"]);
    expect((await completePrompt(reader, "remember", "type", "p")).completion.values).toEqual(["project"]);
    expect((await completePrompt(reader, "handoff", "action", "deploy-")).completion.values).toEqual(["deploy_prod"]);
    expect((await completePrompt(reader, "handoff", "action", "")).completion.values).toEqual(["deploy_prod", "publish_qiita"]);
    expect((await completePrompt(reader, "handoff", "target", "", { action: "deploy-prod" })).completion.values).toEqual(["billing-api", "web"]);
    expect((await completePrompt(reader, "handoff", "target", "w")).completion.values).toEqual([]);
    expect((await completePrompt(reader, "start-task", "topic", "x")).completion).toEqual({ values: [], hasMore: false });
  });

  it("refuses an unknown prompt or template with a clear error", async () => {
    await expect(completePrompt(reader, "nope", "scope", "")).rejects.toThrow(/No prompt named "nope"/);
    await expect(reader.complete({ ref: { type: "ref/resource", uri: "memory://nope/{x}" }, argument: { name: "x", value: "" } })).rejects.toThrow(/No resource template/);
  });

  it("reads each through its index, never a scan", async () => {
    const plans: Array<[string, unknown[], string]> = [
      [SCOPES_BY_PREFIX, ["o"], "facts_scope_name_c"],
      [NAMES_BY_PREFIX, ["deploy-", "shared"], "facts_scope_name_c"],
      [ACTIONS_BY_PREFIX, ["deploy"], "ledger_events_action_target_c"],
      [TARGETS_BY_PREFIX, ["b", "deploy_prod"], "ledger_events_action_target_c"],
    ];
    for (const [statement, params, index] of plans) {
      // The tables are small here, so the planner is told to avoid scans: a plan that still scans has no index to use.
      const nodes = await t.db.transaction(
        async (tx) => planNodes(((await tx.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(`explain (format json) ${statement}`, params)).rows[0]!["QUERY PLAN"][0]!).Plan),
        { withoutSeqScans: true },
      );
      expect(nodes.filter((n) => /Seq Scan|Bitmap/.test(n["Node Type"])), statement).toEqual([]);
      expect(nodes.filter((n) => n["Index Name"] === index).length, statement).toBeGreaterThan(0);
    }
  });
});
