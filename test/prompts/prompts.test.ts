// The protocol prompts through a real MCP client over HTTP: listed with their
// arguments, rendered with the arguments filled in, bad arguments refused, and
// every tool a prompt names is a real tool of this server.
import { describe, expect } from "vitest";
import { serviceTest } from "../support/service-test.js";

const textOfPrompt = (r: { messages: Array<{ content: { type: string; text?: string } }> }) =>
  r.messages.map((m) => (m.content.type === "text" ? m.content.text : "")).join("\n");

const test = serviceTest({ agents: { "blog-writer": { scopes: ["shared", "blog"] } } });

describe("protocol prompts over HTTP", () => {
  test("advertises the prompts capability and names the prompts in the server instructions", async ({ clients: { "blog-writer": client } }) => {
    expect(client.getServerCapabilities()?.prompts).toBeDefined();
    const instructions = client.getInstructions() ?? "";
    for (const name of ["start-task", "remember", "handoff", "review"]) expect(instructions).toContain(name);
  });

  test("lists the four prompts with their arguments, required ones marked", async ({ clients: { "blog-writer": client } }) => {
    const { prompts } = await client.listPrompts();
    const byName = new Map(prompts.map((p) => [p.name, p]));
    const args = (name: string) => Object.fromEntries((byName.get(name)?.arguments ?? []).map((a) => [a.name, a.required]));
    expect(args("start-task")).toEqual({ topic: true, keywords: false });
    expect(args("remember")).toEqual({ learned: true, scope: false, type: false });
    expect(args("handoff")).toEqual({ action: true, target: true, evidence: false });
    expect(args("review")).toEqual({ scope: false, limit: false });
    for (const p of prompts) {
      expect(p.description, p.name).toBeTruthy();
      for (const a of p.arguments ?? []) expect(a.description, `${p.name}.${a.name}`).toBeTruthy();
    }
  });

  test("start-task walks whoami, recall with the given keywords, confirmed facts first, and the ledger", async ({ clients: { "blog-writer": client } }) => {
    const r = await client.getPrompt({ name: "start-task", arguments: { topic: "deploy the billing API", keywords: "deploy, migration, デプロイ" } });
    const text = textOfPrompt(r);
    expect(r.messages[0]?.role).toBe("user");
    expect(text).toContain("deploy the billing API");
    expect(text).toContain('memory_recall with {"keywords":["deploy","migration","デプロイ"]}');
    expect(text.indexOf("whoami")).toBeLessThan(text.indexOf("memory_recall"));
    expect(text.indexOf("CONFIRMED")).toBeLessThan(text.indexOf("DRAFT"));
    expect(text).toContain("double quotes");
    expect(text).toContain("ledger_check");
    expect(text).toContain("ledger_list");
  });

  test("remember asks for a kebab-case name, a one-line description, why and how, scope and type, and an update instead of a duplicate", async ({ clients: { "blog-writer": client } }) => {
    const r = await client.getPrompt({ name: "remember", arguments: { learned: "Rollbacks without --keep-data wipe the job queue.", scope: "blog", type: "feedback" } });
    const text = textOfPrompt(r);
    expect(text).toContain("Rollbacks without --keep-data wipe the job queue.");
    expect(text).toContain("kebab-case");
    expect(text).toContain("at most 200 characters");
    expect(text).toMatch(/why it holds.*how to apply it/);
    expect(text).toContain("scope: blog.");
    expect(text).toContain("type: feedback.");
    expect(text).toContain("passing its current version");
  });

  test("handoff walks check → claim → act → record for the named action and target, with evidence", async ({ clients: { "blog-writer": client } }) => {
    const r = await client.getPrompt({ name: "handoff", arguments: { action: "Publish-Qiita", target: "article-42" } });
    const text = textOfPrompt(r);
    const steps = ['ledger_check with {"action":"publish_qiita","target":"article-42"}', "ledger_claim with", "Act:", "ledger_record with"];
    const at = steps.map((s) => text.indexOf(s));
    expect(at.every((i) => i >= 0), text).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(text).toContain("evidence");
    expect(text).toContain("Do NOT execute it again");
  });

  test("review walks the review queue and promotes with a reason", async ({ clients: { "blog-writer": client } }) => {
    const text = textOfPrompt(await client.getPrompt({ name: "review", arguments: { scope: "blog", limit: "5" } }));
    expect(text).toContain('memory_list with {"reviewable":true,"scope":"blog","limit":5}');
    expect(text).toContain('"to":"confirmed","reason"');
    expect(text).toContain('"to":"deprecated","reason"');
  });

  test("names only tools this server has", async ({ clients: { "blog-writer": client } }) => {
    const { tools } = await client.listTools();
    const known = new Set(tools.map((t) => t.name));
    const args: Record<string, Record<string, string>> = {
      "start-task": { topic: "x" },
      remember: { learned: "x" },
      handoff: { action: "deploy", target: "prod" },
      review: {},
    };
    for (const [name, a] of Object.entries(args)) {
      const text = textOfPrompt(await client.getPrompt({ name, arguments: a }));
      const named = text.match(/\b(?:memory|ledger)_[a-z]+\b/g) ?? [];
      expect(named.length, name).toBeGreaterThan(0);
      for (const tool of named) expect(known.has(tool), `${name} names ${tool}`).toBe(true);
    }
  });

  test.for([
    ["handoff", { action: "deploy prod!", target: "prod" }, /action is not valid: use a snake_case or kebab-case identifier/],
    ["handoff", { action: "deploy", target: "prod", evidence: "not a url" }, /evidence is not valid: give an absolute http/],
    ["handoff", { action: "deploy" }, /: target is required\.$/],
    ["remember", { learned: "x", type: "note" }, /type must be one of feedback, project, reference/],
    ["remember", { learned: "x", scope: "Blog Team" }, /scope is not valid/],
    ["start-task", { topic: "   " }, /topic is empty/],
    ["review", { limit: "500" }, /limit is not valid: give a whole number from 1 to 100/],
  ] as const)("refuses a bad argument of %s with what to fix", async ([name, args, message], { clients: { "blog-writer": client } }) => {
    const error = await client.getPrompt({ name, arguments: args as Record<string, string> }).then(
      () => undefined,
      (e: unknown) => e as Error & { code?: number },
    );
    expect(error, "the call should fail").toBeDefined();
    expect(error?.code).toBe(-32602);
    // Once: the SDK's own handler sent its "MCP error -32602: " prefix, which the client then repeated.
    expect(error?.message).toMatch(new RegExp(`^MCP error -32602: Invalid arguments for prompt ${name}: `));
    expect(error?.message).toMatch(message);
    expect(error?.message, "the argument's name once, not again after its message").not.toMatch(/ at [a-z]+$/);
  });

  test("refuses an unknown prompt by naming the ones there are", async ({ clients: { "blog-writer": client } }) => {
    const error = await client.getPrompt({ name: "start_task", arguments: {} }).then(
      () => undefined,
      (e: unknown) => e as Error & { code?: number },
    );
    expect(error?.code).toBe(-32602);
    expect(error?.message).toBe('MCP error -32602: No prompt named "start_task": the prompts are start-task, remember, handoff, review (prompts/list describes them).');
  });
});
