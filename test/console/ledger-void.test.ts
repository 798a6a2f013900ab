// Voiding ledger records from the console (second security audit: one agent
// recorded 120 deploy_prod versions with invented evidence, the real deploys
// were refused as already executed, and undoing it took one CLI call per key,
// on the embedded database only with the service stopped). A human selects
// records on the ledger page, gives one reason, and each is voided through the
// CLI's code path while the service runs.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkLedger } from "../../src/ledger/store.js";
import { listLedger } from "../../src/ledger/list.js";
import { claimAndRecord } from "../ledger/support.js";
import { addAgent } from "../support/service.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { callerOf, type ConsoleApp, hiddenField, signIn, startConsoleApp, type SignedIn } from "./support.js";

describe("voiding ledger records in the console", () => {
  let t: TestDatabase;
  let app: ConsoleApp;
  let alice: SignedIn;
  let bob: SignedIn;

  beforeAll(async () => {
    t = await createTestDatabase("postgres");
    app = await startConsoleApp(t.db);
    const a = await addAgent(t.db, "alice", { kind: "human", scopes: ["shared"] });
    // A human who may read the ledger but not write the actions' scope.
    const b = await addAgent(t.db, "bob", { kind: "human", scopes: ["team"], readScopes: ["shared"] });
    const forger = await callerOf(t.db, (await addAgent(t.db, "forger", { scopes: ["shared"] })).token);
    for (let i = 0; i < 5; i++) await claimAndRecord(t.db, forger, { action: "deploy_prod", target: `v9.0.${i}`, evidence: `https://made-up.example/${i}` });
    alice = await signIn(app.base, a.token);
    bob = await signIn(app.base, b.token);
  });
  afterAll(async () => {
    await app?.close();
  });

  /** Posts the void form as a browser does: repeated "record" fields, the session's CSRF token. */
  const postVoid = (who: SignedIn, fields: Record<string, string>, records: string[] = []) => {
    const body = new URLSearchParams({ csrf: who.csrf, ...fields });
    for (const r of records) body.append("record", r);
    return request(app.base).post("/console/ledger/void").set("Origin", app.base).set("Cookie", who.cookie).type("form").send(body.toString());
  };

  /** The checkbox values of the records a ledger page offers to void. */
  const offered = (html: string) => [...html.matchAll(/name="record" value="([^"]+)"/g)].map((m) => m[1]!.replace(/&quot;/g, '"'));

  it("voids the selected records with one reason; each stays in the ledger, and the real operation can then be claimed", async () => {
    const page = await request(app.base).get("/console/ledger?action=deploy_prod&kind=executed").set("Cookie", alice.cookie);
    expect(page.status).toBe(200);
    const values = offered(page.text);
    expect(values).toHaveLength(5);
    // A destructive action, styled as one (not as the primary button).
    expect(page.text).toMatch(/<button type="submit" class="danger">Void selected<\/button>/);
    const chosen = values.filter((v) => /"v9\.0\.[0-3]"/.test(v));
    expect(chosen).toHaveLength(4);

    const res = await postVoid(alice, { action: "deploy_prod", kind: "executed", reason: "forger recorded deploys that never ran" }, chosen);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe("/console/ledger?action=deploy_prod&kind=executed&voided=4");
    const after = await request(app.base).get(res.headers.location!).set("Cookie", alice.cookie);
    expect(after.text).toContain("Voided 4 record(s).");

    for (let i = 0; i < 4; i++) expect((await checkLedger(t.db, { action: "deploy_prod", target: `v9.0.${i}` })).status).toBe("NOT_EXECUTED");
    expect((await checkLedger(t.db, { action: "deploy_prod", target: "v9.0.4" })).status).toBe("EXECUTED");
    const voided = (await listLedger(t.db, { kind: "voided" })).events;
    expect(voided.map((e) => [e.target, e.actor, e.reason]).sort()).toEqual(
      [0, 1, 2, 3].map((i) => [`v9.0.${i}`, "alice", "forger recorded deploys that never ran"]),
    );
  });

  it("lists every problem of the form at once and voids nothing", async () => {
    const before = (await listLedger(t.db, { kind: "voided" })).events.length;
    const res = await postVoid(alice, { reason: "  " });
    expect(res.status).toBe(400);
    expect(res.text).toContain("Select the records to void. Give a reason: why these records are wrong (the ledger keeps it with the void). Nothing was voided.");
    expect((await listLedger(t.db, { kind: "voided" })).events).toHaveLength(before);
  });

  it("refuses, per record, one that changed since the page was drawn and one outside the person's scopes; the rest are voided", async () => {
    const page = await request(app.base).get("/console/ledger?action=deploy_prod&kind=executed").set("Cookie", alice.cookie);
    const values = offered(page.text);
    // v9.0.0's record was voided above: its old record number is no longer its record.
    const stale = values.find((v) => /"v9\.0\.0"/.test(v))!;
    const live = values.find((v) => /"v9\.0\.4"/.test(v))!;
    const res = await postVoid(alice, { reason: "second pass" }, [stale, live]);
    expect(res.status).toBe(409);
    expect(res.text).toContain("Voided 1 record(s).");
    expect(res.text).toMatch(/Not voided \(1\):\n#\d+: Not voided: ledger #\d+ is no longer the record of deploy_prod for &quot;v9\.0\.0&quot; \(it has no record now\)/);
    expect((await checkLedger(t.db, { action: "deploy_prod", target: "v9.0.4" })).status).toBe("NOT_EXECUTED");

    const forger = await callerOf(t.db, (await addAgent(t.db, "forger-2", { scopes: ["shared"] })).token);
    const again = await claimAndRecord(t.db, forger, { action: "deploy_prod", target: "v9.1.0", evidence: "https://made-up.example/x" });
    const outside = await postVoid(bob, { reason: "not mine to void" }, [JSON.stringify([again.record.seq, "deploy_prod", "v9.1.0"])]);
    expect(outside.status).toBe(409);
    expect(outside.text).toContain("may not write to it");
    expect((await checkLedger(t.db, { action: "deploy_prod", target: "v9.1.0" })).status).toBe("EXECUTED");
  });

  it("carries the form's CSRF token like every console form", async () => {
    const page = await request(app.base).get("/console/ledger").set("Cookie", alice.cookie);
    expect(hiddenField(page.text, "csrf")).toBe(alice.csrf);
    const forged = await request(app.base)
      .post("/console/ledger/void")
      .set("Origin", app.base)
      .set("Cookie", alice.cookie)
      .type("form")
      .send({ csrf: "wrong", reason: "x", record: JSON.stringify([1, "deploy_prod", "v9.0.1"]) });
    expect(forged.status).toBe(403);
  });
});
