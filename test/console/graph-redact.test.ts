// Redacting graph text in the console over real HTTP on both backends: the
// form only for a human who may write the scope, a reason required, one
// observation or the whole entity gone, and nothing of it in the deletion records.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEntities, deleteEntities, deleteObservations } from "../../src/graph/store.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { callerOf, type ConsoleApp, postForm, signIn, startConsoleApp } from "./support.js";

describe.each(["postgres", "pglite"] as const)("console graph redaction (%s)", (backend) => {
  let t: TestDatabase;
  let app: ConsoleApp;
  let alice: TestAgent; // human, writes shared
  let bob: TestAgent; // human, reads shared only

  beforeAll(async () => {
    t = await createTestDatabase(backend);
    app = await startConsoleApp(t.db);
    alice = await addAgent(t.db, "alice", { kind: "human", scopes: ["shared"] });
    bob = await addAgent(t.db, "bob", { kind: "human", scopes: ["other"] });
    const writer = await callerOf(t.db, (await addAgent(t.db, "writer", { scopes: ["shared"] })).token);
    await createEntities(t.db, { scope: "shared", agentId: writer.agentId, maxChars: 4096 }, [
      { name: "printer", entityType: "device", observations: ["floor 2", "owner Wombatheron"] },
      { name: "box-ocelot", entityType: "host", observations: ["rack 4"] },
    ]);
  });
  afterAll(async () => {
    await app?.close();
  });

  it("offers the form only to a human who may write the scope, and refuses anyone else", async () => {
    const reader = await signIn(app.base, bob.token);
    expect((await request(app.base).get("/console/graph/shared/printer").set("Cookie", reader.cookie)).text).not.toMatch(/data-redact[\s>]/);
    const refused = await postForm(app.base, reader, "/console/graph/redact", { scope: "shared", name: "printer", what: "observation:owner Wombatheron", reason: "x" });
    expect(refused.status).toBe(403);
  });

  it("needs a reason, then removes one observation or the whole entity", async () => {
    const who = await signIn(app.base, alice.token);
    const page = await request(app.base).get("/console/graph/shared/printer").set("Cookie", who.cookie);
    expect(page.text).toContain("Observation 2: owner Wombatheron");
    expect((await postForm(app.base, who, "/console/graph/redact", { scope: "shared", name: "printer", what: "observation:owner Wombatheron", reason: " " })).status).toBe(400);

    const one = await postForm(app.base, who, "/console/graph/redact", { scope: "shared", name: "printer", what: "observation:owner Wombatheron", reason: "a person's name" });
    expect(one.status).toBe(303);
    const after = await request(app.base).get(one.headers.location!).set("Cookie", who.cookie);
    expect(after.text).toContain("floor 2");
    expect(after.text).not.toContain("Wombatheron");

    const whole = await postForm(app.base, who, "/console/graph/redact", { scope: "shared", name: "box-ocelot", what: "entity", reason: "host names are confidential" });
    expect(whole.status).toBe(303);
    const rows = await t.db.query<{ n: number }>(
      "select (select count(*) from graph_entities where name = 'box-ocelot')::int + (select count(*) from graph_deletions where subject like '%ocelot%' or detail like '%Wombatheron%')::int as n",
    );
    expect(rows.rows[0]!.n).toBe(0);
    expect((await t.db.query<{ kind: string }>("select kind from graph_redactions order by id")).rows.map((r) => r.kind)).toEqual(["observation", "entity"]);
  });

  it("redacts the observation a person chose, by its text, even after another agent deleted one before it; a chosen one deleted meanwhile is refused", async () => {
    const who = await signIn(app.base, alice.token);
    const writer = await callerOf(t.db, (await addAgent(t.db, "writer2", { scopes: ["shared"] })).token);
    await createEntities(t.db, { scope: "shared", agentId: writer.agentId, maxChars: 4096 }, [{ name: "ledger-host", entityType: "host", observations: ["obs-A", "obs-B", "obs-C", "obs-D"] }]);
    // The person opens the page and picks "Observation 3: obs-C" as a browser would send it.
    const page = await request(app.base).get("/console/graph/shared/ledger-host").set("Cookie", who.cookie);
    const chosen = /<option value="([^"]*)">Observation 3: obs-C<\/option>/.exec(page.text)?.[1];
    const gone = /<option value="([^"]*)">Observation 2: obs-B<\/option>/.exec(page.text)?.[1];
    expect(chosen).toBeDefined();
    // Meanwhile an agent deletes observation 1 and observation 2.
    await deleteObservations(t.db, { scope: "shared", agentId: writer.agentId }, [{ entityName: "ledger-host", observations: ["obs-A", "obs-B"] }]);
    const done = await postForm(app.base, who, "/console/graph/redact", { scope: "shared", name: "ledger-host", what: chosen!, reason: "chosen text" });
    expect(done.status).toBe(303);
    const left = (await t.db.query<{ content: string }>("select o.content from graph_observations o join graph_entities e on e.id = o.entity_id where e.name = 'ledger-host' order by o.id")).rows;
    expect(left.map((r) => r.content)).toEqual(["obs-D"]);
    const refused = await postForm(app.base, who, "/console/graph/redact", { scope: "shared", name: "ledger-host", what: gone!, reason: "deleted meanwhile" });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain("changed since you opened it");
    expect((await t.db.query<{ content: string }>("select o.content from graph_observations o join graph_entities e on e.id = o.entity_id where e.name = 'ledger-host'")).rows).toEqual([{ content: "obs-D" }]);
  });

  it("blanks only the deletion records about the redacted entity, never one whose subject merely equals a redacted observation's text", async () => {
    const who = await signIn(app.base, alice.token);
    const writer = await callerOf(t.db, (await addAgent(t.db, "writer3", { scopes: ["shared"] })).token);
    await createEntities(t.db, { scope: "shared", agentId: writer.agentId, maxChars: 4096 }, [
      { name: "audit-log", entityType: "service", observations: [] },
      { name: "notes", entityType: "doc", observations: ["audit-log"] },
    ]);
    await deleteEntities(t.db, { scope: "shared", agentId: writer.agentId }, ["audit-log"]);
    const one = await postForm(app.base, who, "/console/graph/redact", { scope: "shared", name: "notes", what: "observation:audit-log", reason: "not needed" });
    expect(one.status).toBe(303);
    const records = (await t.db.query<{ subject: string; detail: string }>("select subject, detail from graph_deletions where kind = 'entity' and subject = 'audit-log'")).rows;
    expect(records).toEqual([{ subject: "audit-log", detail: "service, with 0 observations" }]);
  });
});
