// A fresh near-copy of a confirmed fact, through a real MCP client on both
// databases (new-user trial: recall ranked the copy above the fact it copies).
// At equal match the confirmed fact comes first; the draft's hit says which
// confirmed fact the duplicate warning tied it to when it was stored, in the
// structured answer (copyOf) and in the text.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect } from "vitest";
import { BACKENDS } from "../support/databases.js";
import { callOk, textOf } from "../support/service.js";
import { serviceTest } from "../support/service-test.js";

describe.each(BACKENDS)("recall of a near-copy of a confirmed fact on %s", (backend) => {
  const test = serviceTest({ backend, agents: { author: {}, copier: {}, reviewer: { kind: "human" } } });

  test("ranks the confirmed fact first and says on the draft which confirmed fact it copies", async ({ clients: { author, copier, reviewer } }) => {
    await callOk(author, "memory_store", { name: "deploy-needs-migration", description: "Run database migrations before deploying the API", type: "project", body: "The API fails on the old schema." });
    await callOk(reviewer, "memory_promote", { name: "deploy-needs-migration", to: "confirmed", reason: "Matches the pipeline." });
    const stored = await callOk<{ similar?: Array<{ name: string }> }>(copier, "memory_store", {
      name: "migrate-before-deploy",
      description: "Always run the migrations before a deploy",
      type: "project",
      body: "Otherwise the deploy breaks.",
    });
    expect(stored.similar?.map((s) => s.name)).toEqual(["deploy-needs-migration"]);
    // A draft unlike any confirmed fact carries nothing.
    await callOk(copier, "memory_store", { name: "deploy-window", description: "Deploys before noon so migrations finish in office hours", type: "project", body: "Ops is around then." });

    const r = (await copier.callTool({ name: "memory_recall", arguments: { keywords: ["migrations", "deploy"] } })) as CallToolResult;
    const hits = (r.structuredContent as { hits: Array<{ name: string; status: string; copyOf?: unknown }> }).hits;
    // Equal points (both keywords in the description): confirmed first, then the drafts, newest first.
    expect(hits.map((h) => [h.name, h.status])).toEqual([
      ["deploy-needs-migration", "confirmed"],
      ["deploy-window", "draft"],
      ["migrate-before-deploy", "draft"],
    ]);
    expect(hits.map((h) => h.copyOf)).toEqual([undefined, undefined, { scope: "shared", name: "deploy-needs-migration" }]);
    expect(textOf(r)).toContain("stored as a near-copy of the confirmed deploy-needs-migration in shared: follow that one");
  });
});
