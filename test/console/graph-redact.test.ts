// Redacting graph text in the console over real HTTP on both backends: the
// form only for a human who may write the scope, a reason required, one
// observation or the whole entity gone, and nothing of it in the deletion records.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEntities } from "../../src/graph/store.js";
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
    await t?.drop();
  });

  it("offers the form only to a human who may write the scope, and refuses anyone else", async () => {
    const reader = await signIn(app.base, bob.token);
    expect((await request(app.base).get("/console/graph/shared/printer").set("Cookie", reader.cookie)).text).not.toMatch(/data-redact[\s>]/);
    const refused = await postForm(app.base, reader, "/console/graph/redact", { scope: "shared", name: "printer", what: "2", reason: "x" });
    expect(refused.status).toBe(403);
  });

  it("needs a reason, then removes one observation or the whole entity", async () => {
    const who = await signIn(app.base, alice.token);
    const page = await request(app.base).get("/console/graph/shared/printer").set("Cookie", who.cookie);
    expect(page.text).toContain("Observation 2: owner Wombatheron");
    expect((await postForm(app.base, who, "/console/graph/redact", { scope: "shared", name: "printer", what: "2", reason: " " })).status).toBe(400);

    const one = await postForm(app.base, who, "/console/graph/redact", { scope: "shared", name: "printer", what: "2", reason: "a person's name" });
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
});
