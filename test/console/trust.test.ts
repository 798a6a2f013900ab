// The fact page's trust parts over real HTTP on both backends: supersession
// links both ways, and the redact form: only for a human who may write the
// scope, a reason required, the text gone and the tombstone listed after it.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "../../src/auth/caller.js";
import { promoteFact } from "../../src/facts/review/promote.js";
import { storeFact } from "../../src/facts/lifecycle/store.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { callerOf, type ConsoleApp, postForm, signIn, startConsoleApp } from "./support.js";

describe.each(["postgres", "pglite"] as const)("console fact page: supersession and redaction (%s)", (backend) => {
  let t: TestDatabase;
  let app: ConsoleApp;
  let alice: TestAgent; // human, writes shared
  let bob: TestAgent; // human, reads shared only
  let writer: Caller;

  beforeAll(async () => {
    t = await createTestDatabase(backend);
    app = await startConsoleApp(t.db);
    alice = await addAgent(t.db, "alice", { kind: "human", scopes: ["shared"] });
    bob = await addAgent(t.db, "bob", { kind: "human", scopes: ["other"] });
    writer = await callerOf(t.db, (await addAgent(t.db, "writer", { scopes: ["shared"] })).token);
    const limits = { bodyMaxChars: 16_000 };
    await storeFact(t.db, writer, { name: "deploy-window", description: "Deploys run Tuesday to Thursday", type: "project", body: "Call Wombatheron <b>now</b> to open it." }, limits);
    await storeFact(t.db, writer, { name: "deploy-window-v2", description: "Deploys run Monday to Thursday", type: "project", body: "New calendar.", supersedes: "deploy-window" }, limits);
  });
  afterAll(async () => {
    await app?.close();
  });

  it("links a replacement and the fact it replaces, both ways", async () => {
    const who = await signIn(app.base, alice.token);
    const old = await request(app.base).get("/console/facts/shared/deploy-window").set("Cookie", who.cookie);
    expect(old.text).toMatch(/Proposed replacements \(drafts\):\s*<a href="\/console\/facts\/shared\/deploy-window-v2">shared\/deploy-window-v2<\/a>/);
    await promoteFact(t.db, await callerOf(t.db, alice.token), { name: "deploy-window-v2", to: "confirmed", reason: "new calendar" });
    const after = await request(app.base).get("/console/facts/shared/deploy-window").set("Cookie", who.cookie);
    expect(after.text).toMatch(/Superseded by <a href="\/console\/facts\/shared\/deploy-window-v2">/);
    const replacement = await request(app.base).get("/console/facts/shared/deploy-window-v2").set("Cookie", who.cookie);
    expect(replacement.text).toMatch(/Replaces <a href="\/console\/facts\/shared\/deploy-window">shared\/deploy-window<\/a>\./);
  });

  it("offers the redact form only to a human who may write the scope, and refuses a POST from anyone else", async () => {
    const reader = await signIn(app.base, bob.token);
    const page = await request(app.base).get("/console/facts/shared/deploy-window").set("Cookie", reader.cookie);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain("data-redact");
    const refused = await postForm(app.base, reader, "/console/facts/shared/deploy-window/redact", { version: "1", reason: "mine" });
    expect(refused.status).toBe(403);
    expect(refused.text).toMatch(/bob may not write scope &quot;shared&quot;|bob may not write scope "shared"/);
  });

  it("needs a reason, then removes the text and lists the tombstone", async () => {
    const who = await signIn(app.base, alice.token);
    const page = await request(app.base).get("/console/facts/shared/deploy-window").set("Cookie", who.cookie);
    expect(page.text).toContain("data-redact");
    expect(page.text).toContain("Wombatheron &lt;b>now&lt;/b>");

    const noReason = await postForm(app.base, who, "/console/facts/shared/deploy-window/redact", { version: "1", reason: "  " });
    expect(noReason.status).toBe(400);
    expect(noReason.text).toContain("Wombatheron");

    const done = await postForm(app.base, who, "/console/facts/shared/deploy-window/redact", { version: "1", reason: "a person's name" });
    expect(done.status).toBe(303);
    const after = await request(app.base).get(done.headers.location!).set("Cookie", who.cookie);
    expect(after.text).not.toContain("Wombatheron");
    expect(after.text).toContain("Redacted: the version");
    expect(after.text).toMatch(/Version 1 redacted by <strong>alice<\/strong>/);
    expect(after.text).toMatch(/a person(&#39;|')s name/);
    expect(after.text).not.toMatch(/data-redact[\s>]/);
  });
});
