// The facts tools end to end: a real service over HTTP, real MCP clients, one
// token per agent, on both backends.
import { describe, expect } from "vitest";
import { BACKENDS } from "../support/databases.js";
import { addAgent, callError, callOk, connectClient, textOf } from "../support/service.js";
import { serviceTest } from "../support/service-test.js";
import { counts } from "./helpers.js";

interface Summary {
  name: string;
  scope: string;
  status: string;
  version: number;
  author: string;
  statusBy: string | null;
  statusReason: string | null;
}

describe.each(BACKENDS)("facts tools over HTTP on %s", (backend) => {
  const test = serviceTest({
    backend,
    agents: {
      "blog-writer": { scopes: ["shared", "blog"] },
      "qa-bot": { scopes: ["shared", "blog"] },
      alice: { kind: "human", scopes: ["*"] },
      deployer: { scopes: ["shared"] },
    },
  });

  test("lists the five tools with output schemas, annotations and working rules", async ({ clients: { "blog-writer": writer } }) => {
    const { tools } = await writer.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ["memory_store", "memory_recall", "memory_get", "memory_list", "memory_promote"]) {
      const tool = byName.get(name);
      expect(tool?.outputSchema, name).toBeDefined();
      expect(tool?.annotations?.openWorldHint, name).toBe(false);
      for (const [field, schema] of Object.entries(tool?.inputSchema.properties ?? {})) {
        expect((schema as { description?: string }).description, `${name}.${field}`).toBeTruthy();
      }
    }
    for (const name of ["memory_recall", "memory_get", "memory_list"]) expect(byName.get(name)?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    for (const name of ["memory_store", "memory_promote"]) expect(byName.get(name)?.annotations?.readOnlyHint).toBe(false);
    expect(byName.get("memory_recall")?.description).toContain("before starting any task");
    expect(byName.get("memory_store")?.description).toContain("Not chat, progress notes");
    expect(byName.get("memory_promote")?.description).toContain("Never confirm a version you wrote");
  });

  test("runs the working loop: recall, store a draft, another agent confirms, a human deprecates", async ({ clients: { "blog-writer": writer, "qa-bot": reviewer, alice: human, deployer: outsider } }) => {
    const none = await writer.callTool({ name: "memory_recall", arguments: { keywords: ["rollback"] } });
    expect(textOf(none)).toContain("No facts match");

    const stored = await callOk<{ outcome: string; fact: Summary; uri: string }>(writer, "memory_store", {
      name: "rollback-needs-flag",
      description: "Rollbacks need --keep-data or the queue is wiped",
      type: "project",
      body: "Why: on 2 May a rollback without --keep-data dropped 3,000 queued jobs.\nHow to apply: always pass --keep-data to rollback.",
    });
    expect(stored).toMatchObject({ outcome: "created", fact: { status: "draft", version: 1, author: "blog-writer" }, uri: "memory://facts/shared/rollback-needs-flag" });

    const selfConfirm = await callError(writer, "memory_promote", { name: "rollback-needs-flag", to: "confirmed", reason: "I know it" });
    expect(selfConfirm).toContain("you may not confirm it");
    expect(selfConfirm).toContain("qa-bot");

    const queue = await callOk<{ facts: Summary[] }>(reviewer, "memory_list", { reviewable: true });
    expect(queue.facts.map((f) => f.name)).toContain("rollback-needs-flag");
    const read = await callOk<{ fact: Summary }>(reviewer, "memory_get", { name: "rollback-needs-flag" });
    // The writer improves the fact meanwhile: the reviewer holding the old
    // version is told to review the new one (not to merge a change: it has none).
    await callOk(writer, "memory_store", {
      name: "rollback-needs-flag",
      description: "Rollbacks need --keep-data or the queue is wiped",
      type: "project",
      body: "Why: on 2 May a rollback without --keep-data dropped 3,000 queued jobs.\nHow to apply: always pass --keep-data to rollback (CLI v1).",
      version: read.fact.version,
    });
    const outdated = await callError(reviewer, "memory_promote", { name: "rollback-needs-flag", to: "confirmed", reason: "Checked.", version: read.fact.version });
    expect(outdated).toContain(`read version ${read.fact.version + 1} with memory_get and review that one`);
    expect(outdated).not.toContain("merge your change");
    const got = await callOk<{ fact: Summary }>(reviewer, "memory_get", { name: "rollback-needs-flag" });
    const confirmed = await callOk<{ from: string; to: string; fact: Summary }>(reviewer, "memory_promote", {
      name: "rollback-needs-flag",
      to: "confirmed",
      reason: "Reproduced on staging: without the flag the queue table is truncated.",
      version: got.fact.version,
    });
    expect(confirmed).toMatchObject({ from: "draft", to: "confirmed", fact: { statusBy: "qa-bot" } });
    expect((await callOk<{ facts: Summary[] }>(reviewer, "memory_list", { reviewable: true })).facts.map((f) => f.name)).not.toContain("rollback-needs-flag");

    await callOk(human, "memory_promote", { name: "rollback-needs-flag", to: "deprecated", reason: "v2 of the CLI keeps data by default; the flag was removed." });
    const recalled = await outsider.callTool({ name: "memory_recall", arguments: { keywords: ["ROLLBACK"] } });
    const hit = (recalled.structuredContent as { hits: Summary[] }).hits[0]!;
    expect(hit).toMatchObject({ name: "rollback-needs-flag", status: "deprecated", statusReason: "v2 of the CLI keeps data by default; the flag was removed." });
    expect(textOf(recalled)).toContain("[DEPRECATED] rollback-needs-flag");
    expect(textOf(recalled)).toContain("WITHDRAWN — do not apply. Reason: v2 of the CLI keeps data by default");
    // Why it was found, structured (validated by the output schema) and in the text.
    const why = await outsider.callTool({ name: "memory_recall", arguments: { keywords: ["dropped jobs", "wipped queue"] } });
    expect((why.structuredContent as { hits: Array<{ name: string; matches: unknown[] }> }).hits[0]).toMatchObject({
      name: "rollback-needs-flag",
      matches: [
        { keyword: "dropped jobs", in: "body", how: "stemmed" },
        { keyword: "wipped queue", in: "summary", how: "similar" },
      ],
    });
    expect(textOf(why)).toContain('matched: "dropped jobs" by its words in body; "wipped queue" nearly (typo?) in name/description');

    const history = await callOk<{ fact: { events: Array<{ kind: string; actor: string }> } }>(outsider, "memory_get", { name: "rollback-needs-flag" });
    expect(history.fact.events.map((e) => `${e.kind}:${e.actor}`)).toEqual(["created:blog-writer", "updated:blog-writer", "confirmed:qa-bot", "deprecated:alice"]);
  });

  test("refuses a stale version, naming the current version and its author", async ({ clients: { "blog-writer": writer, "qa-bot": reviewer } }) => {
    const base = { name: "cache-ttl", description: "Cache TTL is 5 minutes", type: "reference", body: "Set in config/cache.yml." };
    await callOk(writer, "memory_store", base);
    await callOk(reviewer, "memory_store", { ...base, body: "Set in config/cache.yml; 10 minutes for images.", version: 1 });
    const missing = await callError(writer, "memory_store", { ...base, body: "late edit" });
    expect(missing).toContain("version 2 by qa-bot");
    const stale = await callError(writer, "memory_store", { ...base, body: "late edit", version: 1 });
    expect(stale).toContain("the current version is 2, stored by qa-bot");
  });

  test("refuses bad input, naming the field, and writes nothing", async ({ clients: { "blog-writer": writer }, tdb }) => {
    const before = await counts(tdb.db);
    const good = { name: "valid-name", description: "One line", type: "project", body: "Why and how." };
    expect(await callError(writer, "memory_store", { ...good, name: "Not A Slug" })).toContain("name");
    expect(await callError(writer, "memory_store", { ...good, description: "x".repeat(201) })).toContain("description is 201 characters");
    expect(await callError(writer, "memory_store", { ...good, description: "two\nlines" })).toContain("single line");
    expect(await callError(writer, "memory_store", { ...good, type: "gossip" })).toContain("type");
    expect(await callError(writer, "memory_store", { ...good, body: "y".repeat(16_001) })).toContain("body is 16001 characters");
    expect(await callError(writer, "memory_store", { ...good, body: "" })).toContain("body is empty");
    expect(await callError(writer, "memory_recall", { keywords: [] })).toContain("keywords");
    expect(await callError(writer, "memory_recall", { keywords: ["a\nb"] })).toContain("line break");
    expect(await counts(tdb.db)).toEqual(before);
  });

  test("isolates scopes both ways without revealing facts", async ({ clients: { "blog-writer": writer, deployer: outsider } }) => {
    await callOk(writer, "memory_store", { name: "blog-voice", description: "Blog posts use the informal voice", type: "feedback", body: "Editor's rule.", scope: "blog" });
    // Cannot read it: recall, get and the resource all behave as if it did not exist.
    expect((await callOk<{ total: number }>(outsider, "memory_recall", { keywords: ["informal voice"] })).total).toBe(0);
    const getHidden = await callError(outsider, "memory_get", { name: "blog-voice", scope: "blog" });
    const getMissing = await callError(outsider, "memory_get", { name: "blog-voice", scope: "drafts" });
    expect(getHidden).toBe(getMissing.replace('"drafts"', '"blog"'));
    const promoteHidden = await callError(outsider, "memory_promote", { name: "blog-voice", to: "deprecated", reason: "x" });
    expect(promoteHidden).toMatch(/^No fact named "blog-voice" in the scopes you can read \(shared\)/);
    // Cannot write there.
    expect(await callError(outsider, "memory_store", { name: "blog-voice-2", description: "d", type: "project", body: "b", scope: "blog" })).toContain(
      'may not write to scope "blog"',
    );
    // And the writer, who can, sees it.
    expect((await callOk<{ total: number }>(writer, "memory_recall", { keywords: ["informal voice"] })).total).toBe(1);
  });

  test("pages memory_list with cursors", async ({ tdb, service }) => {
    const pager = await addAgent(tdb.db, "pager", { scopes: ["pages"] });
    const client = await connectClient(service, pager.token);
    try {
      for (let i = 0; i < 7; i++) await callOk(client, "memory_store", { name: `page-${i}`, description: `page ${i}`, type: "reference", body: "b", scope: "pages" });
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { facts: Summary[]; nextCursor: string | null } = await callOk(client, "memory_list", { scope: "pages", limit: 3, ...(cursor ? { cursor } : {}) });
        seen.push(...page.facts.map((f) => f.name));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(["page-6", "page-5", "page-4", "page-3", "page-2", "page-1", "page-0"]);
    } finally {
      await client.close();
    }
  });

  test("memory_get answers the newest versions and pages back with versionsBefore", async ({ clients: { "blog-writer": writer } }) => {
    let version = (await callOk<{ fact: Summary }>(writer, "memory_store", { name: "often-revised", description: "Revised often", type: "project", body: "v1" })).fact.version;
    for (let v = 2; v <= 12; v++) {
      version = (await callOk<{ fact: Summary }>(writer, "memory_store", { name: "often-revised", description: "Revised often", type: "project", body: `v${v}`, version })).fact.version;
    }
    type Got = { fact: { versions: Array<{ version: number; body: string }>; earlierVersions?: number } };
    const result = await writer.callTool({ name: "memory_get", arguments: { name: "often-revised" } });
    const latest = (result.structuredContent as Got).fact;
    expect(latest.versions.map((v) => v.version)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(latest.earlierVersions).toBe(2);
    expect(textOf(result)).toContain("memory_get with versionsBefore 3");
    const older = (await callOk<Got>(writer, "memory_get", { name: "often-revised", versionsBefore: 3 })).fact;
    expect(older.versions.map((v) => v.body)).toEqual(["v1", "v2"]);
    expect(older).not.toHaveProperty("earlierVersions");
    expect(await callError(writer, "memory_get", { name: "often-revised", versionsBefore: 1 })).toMatch(/versionsBefore/);
  });

  test("exposes facts as resources, listable and readable, only where the caller may read", async ({ clients: { "blog-writer": writer, deployer: outsider } }) => {
    await callOk(writer, "memory_store", { name: "resource-fact", description: "Readable as a resource", type: "reference", body: "Resource body." });
    const templates = await outsider.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toContain("memory://facts/{scope}/{name}");
    const listed = (await outsider.listResources()).resources.map((r) => r.uri);
    expect(listed).toContain("memory://facts/shared/resource-fact");
    expect(listed).not.toContain("memory://facts/blog/blog-voice");
    expect((await writer.listResources()).resources.map((r) => r.uri)).toContain("memory://facts/blog/blog-voice");

    const read = await outsider.readResource({ uri: "memory://facts/shared/resource-fact" });
    expect(read.contents[0]).toMatchObject({ uri: "memory://facts/shared/resource-fact", mimeType: "text/plain" });
    expect((read.contents[0] as { text: string }).text).toContain("Resource body.");

    const hidden = await outsider.readResource({ uri: "memory://facts/blog/blog-voice" }).then(
      () => "read",
      (e: Error) => e.message,
    );
    const missing = await outsider.readResource({ uri: "memory://facts/blog/no-such-fact" }).then(
      () => "read",
      (e: Error) => e.message,
    );
    // Invalid params, as 2026-07-28 asks of a resource that is not there (and the SDK answers on every revision); the code once.
    expect(hidden).toMatch(/^MCP error -32602: No fact named/);
    expect(hidden).toBe(missing.replace("no-such-fact", "blog-voice"));
  });
});
