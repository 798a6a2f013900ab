// Supersession over real MCP calls: a new fact names the one it replaces; the
// old one changes only when someone else confirms the new one, then both link
// to each other (memory_get, recall); racing confirmations of two replacements
// leave exactly one successor.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getFact } from "../../src/facts/lifecycle/get.js";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callError, callOk, connectClient, startInProcessService, type InProcessService } from "../support/service.js";
import { callerOf } from "../console/support.js";
import { exportTo, importFrom } from "../snapshots/helpers.js";

type Fact = { status: string; statusReason?: string; supersedes?: string; supersededBy?: string; replacements?: string[]; version: number };

describe.each(["postgres", "pglite"] as const)("supersession (%s)", (kind) => {
  let tdb: TestDatabase;
  let service: InProcessService;
  let writer: Client;
  let reviewer: Client;
  let reviewer2: Client;

  beforeAll(async () => {
    tdb = await createTestDatabase(kind);
    service = await startInProcessService(tdb.db);
    writer = await connectClient(service, (await addAgent(tdb.db, "writer", { scopes: ["shared", "ops"] })).token);
    reviewer = await connectClient(service, (await addAgent(tdb.db, "reviewer", { kind: "human", scopes: ["shared", "ops"] })).token);
    reviewer2 = await connectClient(service, (await addAgent(tdb.db, "reviewer2", { scopes: ["shared", "ops"] })).token);
  });

  const store = (client: Client, name: string, extra: Record<string, unknown> = {}) =>
    callOk<{ outcome: string; supersedes?: string }>(client, "memory_store", { name, description: `Deploy window rule (${name})`, type: "project", body: "Deploys run Tuesday to Thursday.", ...extra });
  const get = (name: string, scope = "shared") => callOk<{ fact: Fact }>(reviewer, "memory_get", { name, scope }).then((r) => r.fact);

  it("deprecates the old fact only when someone else confirms the new one, and links both ways", async () => {
    await store(writer, "deploy-window");
    await callOk(reviewer, "memory_promote", { name: "deploy-window", to: "confirmed", reason: "checked the calendar" });

    const created = await store(writer, "deploy-window-v2", { supersedes: "deploy-window" });
    expect(created).toMatchObject({ outcome: "created", supersedes: "shared/deploy-window" });
    expect(await get("deploy-window")).toMatchObject({ status: "confirmed", replacements: ["shared/deploy-window-v2"] });
    expect(await get("deploy-window-v2")).toMatchObject({ status: "draft", supersedes: "shared/deploy-window" });

    expect(await callError(writer, "memory_promote", { name: "deploy-window-v2", to: "confirmed", reason: "mine" })).toMatch(/may not confirm it/);
    expect((await get("deploy-window")).status).toBe("confirmed");

    const promoted = await callOk<{ superseded?: { name: string; version: number } }>(reviewer, "memory_promote", { name: "deploy-window-v2", to: "confirmed", reason: "new calendar" });
    expect(promoted.superseded).toEqual({ scope: "shared", name: "deploy-window", version: 1 });
    const old = await get("deploy-window");
    expect(old).toMatchObject({ status: "deprecated", statusReason: "superseded by deploy-window-v2 (version 1), confirmed by reviewer", supersededBy: "shared/deploy-window-v2" });
    expect(old.replacements).toBeUndefined();
    expect(await get("deploy-window-v2")).toMatchObject({ status: "confirmed", supersedes: "shared/deploy-window" });

    const recall = await callOk<{ hits: { name: string; supersededBy?: string }[] }>(reviewer, "memory_recall", { keywords: ["deploy window"] });
    expect(recall.hits.find((h) => h.name === "deploy-window")?.supersededBy).toBe("shared/deploy-window-v2");
    const text = (await reviewer.callTool({ name: "memory_recall", arguments: { keywords: ["deploy window"] } })).content as { text: string }[];
    expect(text[0]!.text).toContain("superseded by shared/deploy-window-v2: follow that one");
  });

  it("carries the links in an export and restores them on import", async () => {
    const dir = await mkdtemp(join(tmpdir(), "am-supersede-"));
    const copy = await createTestDatabase(kind);
    try {
      await exportTo(tdb.db, dir, { scopes: ["shared"] });
      expect(await readFile(join(dir, "shared/project_deploy-window.md"), "utf8")).toContain("superseded-by: shared/deploy-window-v2\n");
      expect(await readFile(join(dir, "shared/project_deploy-window-v2.md"), "utf8")).toContain("supersedes: shared/deploy-window\n");
      for (const name of ["writer", "reviewer"]) await addAgent(copy.db, name, { kind: name === "reviewer" ? "human" : "agent", scopes: ["shared", "ops"] });
      const report = await importFrom(copy.db, dir);
      expect(report.facts.invalid).toBe(0);
      const reader = await callerOf(copy.db, (await addAgent(copy.db, "reader", { scopes: ["shared"] })).token);
      expect(await getFact(copy.db, reader, { name: "deploy-window", scope: "shared" })).toMatchObject({ status: "deprecated", supersededBy: "shared/deploy-window-v2" });
      expect(await getFact(copy.db, reader, { name: "deploy-window-v2", scope: "shared" })).toMatchObject({ supersedes: "shared/deploy-window" });
    } finally {
      await copy.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a replacement of a missing, unwritable or already replaced fact, and with version; nothing is written", async () => {
    expect(await callError(writer, "memory_store", { name: "x-one", description: "d", type: "project", body: "b", supersedes: "no-such-fact" })).toMatch(/no fact named "no-such-fact" in scope "shared"/);
    expect(await callError(writer, "memory_store", { name: "x-two", description: "d", type: "project", body: "b", supersedes: "secret/thing" })).toMatch(/scope "secret"/);
    expect(await callError(writer, "memory_store", { name: "x-three", description: "d", type: "project", body: "b", supersedes: "deploy-window" })).toMatch(/already replaced by "shared\/deploy-window-v2"/);
    expect(await callError(writer, "memory_store", { name: "deploy-window-v2", description: "d", type: "project", body: "b", version: 1, supersedes: "deploy-window" })).toMatch(/supersedes is given when a fact is created/);
    for (const name of ["x-one", "x-two", "x-three"]) expect(await callError(reviewer, "memory_get", { name })).toMatch(/No fact named/);
  });

  it("replaces a fact in another writable scope with scope/name", async () => {
    await store(writer, "ops-window", { scope: "ops" });
    await store(writer, "ops-window-shared", { supersedes: "ops/ops-window" });
    await callOk(reviewer, "memory_promote", { name: "ops-window-shared", to: "confirmed", reason: "moved to shared" });
    expect(await get("ops-window", "ops")).toMatchObject({ status: "deprecated", supersededBy: "shared/ops-window-shared" });
  });

  it("leaves exactly one successor when two replacements are confirmed at once", async () => {
    await store(writer, "on-call");
    await store(writer, "on-call-a", { supersedes: "on-call" });
    await store(writer, "on-call-b", { supersedes: "on-call" });
    const results = await Promise.allSettled([
      callOk(reviewer, "memory_promote", { name: "on-call-a", to: "confirmed", reason: "a" }),
      callOk(reviewer2, "memory_promote", { name: "on-call-b", to: "confirmed", reason: "b" }),
    ]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(String(lost[0]!.reason)).toMatch(/replaced first \(confirmed meanwhile\)/);
    const winner = results[0]!.status === "fulfilled" ? "on-call-a" : "on-call-b";
    const loser = winner === "on-call-a" ? "on-call-b" : "on-call-a";
    expect(await get("on-call")).toMatchObject({ status: "deprecated", supersededBy: `shared/${winner}` });
    expect((await get(loser)).status).toBe("draft");
  });

  it("confirms a replacement only by a reviewer who may write the replaced fact's scope, and names facts only to readers of their scope", async () => {
    const mover = await connectClient(service, (await addAgent(tdb.db, "mover", { scopes: ["alpha", "vault"] })).token);
    const alphaOnly = await connectClient(service, (await addAgent(tdb.db, "alpha-reviewer", { scopes: ["alpha"] })).token);
    const both = await connectClient(service, (await addAgent(tdb.db, "both-reviewer", { kind: "human", scopes: ["alpha", "vault"] })).token);
    const vaultOnly = await connectClient(service, (await addAgent(tdb.db, "vault-writer", { scopes: ["vault"] })).token);
    try {
      await store(mover, "launch-plan", { scope: "vault" });
      await store(mover, "new-plan", { scope: "alpha", supersedes: "vault/launch-plan" });
      const refused = await callError(alphaOnly, "memory_promote", { name: "new-plan", scope: "alpha", to: "confirmed", reason: "looks right" });
      expect(refused).toMatch(/would deprecate the fact it replaces, a fact in a scope you cannot read, in a scope you \(alpha-reviewer\) may not write/);
      expect(refused).not.toContain("launch-plan");
      expect(await callOk<{ fact: Fact }>(both, "memory_get", { name: "launch-plan", scope: "vault" })).toMatchObject({ fact: { status: "draft" } });
      expect(await callOk<{ fact: Fact }>(both, "memory_get", { name: "new-plan", scope: "alpha" })).toMatchObject({ fact: { status: "draft" } });

      await callOk(both, "memory_promote", { name: "new-plan", scope: "alpha", to: "confirmed", reason: "replaces the vault plan" });
      const old = (await callOk<{ fact: Fact }>(both, "memory_get", { name: "launch-plan", scope: "vault" })).fact;
      expect(old).toMatchObject({ status: "deprecated", supersededBy: "alpha/new-plan" });
      // The reason is read by every reader of the vault fact: it does not name the alpha fact.
      expect(old.statusReason).toBe("superseded by a fact in another scope, confirmed by both-reviewer");
      const fromVault = (await callOk<{ fact: Fact }>(vaultOnly, "memory_get", { name: "launch-plan", scope: "vault" })).fact;
      expect(JSON.stringify(fromVault)).not.toContain("new-plan");

      const again = await callError(vaultOnly, "memory_store", { name: "plan-c", description: "d", type: "project", body: "b", scope: "vault", supersedes: "launch-plan" });
      expect(again).toMatch(/already replaced by a fact in a scope you cannot read/);
      expect(again).not.toContain("new-plan");
    } finally {
      for (const c of [mover, alphaOnly, both, vaultOnly]) await c.close();
    }
  });

  it("restores from an import's front matter only links between facts of the tree, never a fact to itself", async () => {
    const dir = await mkdtemp(join(tmpdir(), "am-supersede-links-"));
    const copy = await createTestDatabase(kind);
    try {
      await store(writer, "lone-rule");
      await exportTo(tdb.db, dir, { scopes: ["shared"] });
      const file = join(dir, "shared/project_lone-rule.md");
      // Edited by hand: a link to itself, and one to a fact the tree does not hold (it exists in the target database).
      await writeFile(file, (await readFile(file, "utf8")).replace("\nname: lone-rule\n", "\nname: lone-rule\nsupersedes: shared/lone-rule\nsuperseded-by: ops/ops-window\n"));
      expect(await readFile(file, "utf8")).toContain("supersedes: shared/lone-rule\nsuperseded-by: ops/ops-window\n");
      for (const name of ["writer", "reviewer"]) await addAgent(copy.db, name, { kind: name === "reviewer" ? "human" : "agent", scopes: ["shared", "ops"] });
      const owner = await callerOf(copy.db, (await addAgent(copy.db, "owner2", { scopes: ["ops"] })).token);
      const { storeFact } = await import("../../src/facts/lifecycle/store.js");
      await storeFact(copy.db, owner, { name: "ops-window", scope: "ops", description: "Ops window", type: "project", body: "b" }, { bodyMaxChars: 16_000 });
      const report = await importFrom(copy.db, dir);
      expect(report.facts.invalid).toBe(0);
      const row = (await copy.db.query<{ supersedes_id: number | null; superseded_by_id: number | null }>("select supersedes_id, superseded_by_id from facts where name = 'lone-rule'")).rows[0];
      expect(row).toEqual({ supersedes_id: null, superseded_by_id: null });
    } finally {
      await copy.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
