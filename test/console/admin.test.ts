// Agents and tokens in the console: administrators only (a human whose agent
// may write "*"), through the same store functions as the CLI; on the embedded
// database too, while the service runs.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkToken } from "../../src/auth/verifier.js";
import { ensureImporterAgent, getAgent, listTokens } from "../../src/auth/store.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { type ConsoleApp, postForm, signIn, startConsoleApp } from "./support.js";

describe.each(["pglite", "postgres"] as const)("console agents and tokens (%s)", (backend) => {
  let t: TestDatabase;
  let app: ConsoleApp;
  let owner: TestAgent;
  let alice: TestAgent;

  beforeAll(async () => {
    t = await createTestDatabase(backend);
    app = await startConsoleApp(t.db);
    owner = await addAgent(t.db, "owner", { kind: "human", scopes: ["*"] });
    // Reads everything, but may not write every scope: not an administrator.
    alice = await addAgent(t.db, "alice", { kind: "human", scopes: ["shared"], readScopes: ["*"] });
  });
  afterAll(async () => {
    await app?.close();
  });

  it("shows the reserved importer as reserved, and says what it is", async () => {
    const who = await signIn(app.base, owner.token);
    const before = await request(app.base).get("/console/agents").set("Cookie", who.cookie);
    expect(before.text).not.toContain("is reserved: it stands for history");
    await ensureImporterAgent(t.db);
    const page = await request(app.base).get("/console/agents").set("Cookie", who.cookie);
    expect(page.text).toMatch(/>importer<\/a><\/td><td>agent<\/td><td>—<\/td><td>—<\/td><td>reserved<\/td>/);
    expect(page.text).toContain("&quot;importer&quot; is reserved: it stands for history an import brought in");
  });

  it("answers 403 to people who may not write every scope, on pages and actions, and hides the link", async () => {
    const who = await signIn(app.base, alice.token);
    const page = await request(app.base).get("/console/agents").set("Cookie", who.cookie);
    expect(page.status).toBe(403);
    expect(page.text).toContain("every scope");
    expect((await request(app.base).get("/console/agents/owner").set("Cookie", who.cookie)).status).toBe(403);
    expect((await postForm(app.base, who, "/console/agents", { name: "sneaky", kind: "human", scopes: "*" })).status).toBe(403);
    expect((await postForm(app.base, who, "/console/agents/owner/tokens", {})).status).toBe(403);
    expect((await postForm(app.base, who, "/console/tokens/1/revoke", {})).status).toBe(403);
    expect((await postForm(app.base, who, "/console/agents/owner/disable", {})).status).toBe(403);
    await expect(getAgent(t.db, "sneaky")).rejects.toThrow(/No agent/);
    const home = await request(app.base).get("/console").set("Cookie", who.cookie);
    expect(home.text).not.toContain('href="/console/agents"');
  });

  it("lets an administrator add an agent, issue a token shown once, change scopes, revoke, disable and enable", async () => {
    const who = await signIn(app.base, owner.token);
    const list = await request(app.base).get("/console/agents").set("Cookie", who.cookie);
    expect(list.status).toBe(200);
    expect(list.text).toContain("alice");

    const bad = await postForm(app.base, who, "/console/agents", { name: "Bad Name", kind: "agent", scopes: "shared" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("is not valid");

    // One step: the agent and its first token, shown at once with each client's settings.
    const addKey = /name="issueKey" value="([A-Za-z0-9_-]+)"/.exec(list.text)?.[1];
    expect(addKey).toBeDefined();
    const issued = await postForm(app.base, who, "/console/agents", { name: "blog-writer", kind: "agent", scopes: "shared, blog", readScopes: "", issueKey: addKey! });
    expect(issued.status).toBe(201);
    expect(issued.headers["cache-control"]).toBe("no-store");
    expect(await getAgent(t.db, "blog-writer")).toMatchObject({ kind: "agent", writeScopes: ["shared", "blog"] });
    const token = /data-token[^>]*>\s*(amk_[A-Za-z0-9_-]{43})/.exec(issued.text)?.[1];
    expect(token).toBeDefined();
    expect(issued.text).toContain(`claude mcp add --transport http agent-memory ${app.base}/mcp --header &quot;Authorization: Bearer ${token}&quot;`);
    expect(issued.text).toContain(`&quot;mcp-remote&quot;,\n        &quot;${app.base}/mcp&quot;`);
    expect(issued.text).toContain(`&quot;AGENT_MEMORY_AUTH&quot;: &quot;Bearer ${token}&quot;`);
    expect(issued.text).toContain(`&quot;type&quot;: &quot;http&quot;`);
    expect(issued.text).toContain(`Header: Authorization: Bearer ${token}`);
    // The same form sent again: no second agent or token, and the answer says which token it issued.
    const resentAdd = await postForm(app.base, who, "/console/agents", { name: "blog-writer", kind: "agent", scopes: "shared, blog", readScopes: "", issueKey: addKey! });
    expect(resentAdd.status).toBe(409);
    expect(resentAdd.text).toMatch(/This form was already sent: it created blog-writer and issued token \d+/);
    expect(resentAdd.text).not.toMatch(/data-token[^>]*>\s*amk_/);
    expect(await listTokens(t.db, "blog-writer")).toHaveLength(1);
    // A name that is taken, from a new form: the plain refusal, nothing issued.
    const taken = await postForm(app.base, who, "/console/agents", { name: "blog-writer", kind: "agent", scopes: "shared", readScopes: "", issueKey: "k".repeat(32) });
    expect(taken.status).toBe(409);
    expect(taken.text).toContain("An agent named &quot;blog-writer&quot; already exists.");
    expect(await listTokens(t.db, "blog-writer")).toHaveLength(1);
    const check = await checkToken(t.db, token!);
    expect(check.ok && check.caller.name).toBe("blog-writer");
    // Shown once: the agent page never shows it again.
    const again = await request(app.base).get("/console/agents/blog-writer").set("Cookie", who.cookie);
    expect(again.text).not.toContain(token!);
    // Empty means never: no sample number that reads as a default (new-user trial: "90").
    expect(again.text).toContain('<label for="expires-days">Expires after (days)</label>');
    expect(again.text).toContain('placeholder="days, empty = never"');

    const scopes = await postForm(app.base, who, "/console/agents/blog-writer/scopes", { scopes: "shared,blog,deploy", readScopes: "ops" });
    expect(scopes.status).toBe(303);
    expect(await getAgent(t.db, "blog-writer")).toMatchObject({ writeScopes: ["shared", "blog", "deploy"], readScopes: ["ops"] });

    const tokenId = check.ok ? check.caller.tokenId : 0;
    const revoked = await postForm(app.base, who, `/console/tokens/${tokenId}/revoke`, {});
    expect(revoked.headers.location).toBe("/console/agents/blog-writer?done=revoked");
    expect(await checkToken(t.db, token!)).toEqual({ ok: false, reason: "revoked" });

    expect((await postForm(app.base, who, "/console/agents/blog-writer/disable", {})).status).toBe(303);
    expect((await getAgent(t.db, "blog-writer")).disabledAt).not.toBeNull();
    const refused = await postForm(app.base, who, "/console/agents/blog-writer/tokens", { expiresDays: "" });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain("is disabled");
    expect((await postForm(app.base, who, "/console/agents/blog-writer/enable", {})).status).toBe(303);
    expect((await getAgent(t.db, "blog-writer")).disabledAt).toBeNull();

    // The form as the page renders it, sent twice (a reload after "Issue a token"): one token, and the second answer says which.
    const page = await request(app.base).get("/console/agents/blog-writer").set("Cookie", who.cookie);
    const issueKey = /name="issueKey" value="([A-Za-z0-9_-]+)"/.exec(page.text)?.[1];
    expect(issueKey).toBeDefined();
    const before = (await listTokens(t.db, "blog-writer")).length;
    const first = await postForm(app.base, who, "/console/agents/blog-writer/tokens", { expiresDays: "", issueKey: issueKey! });
    expect(first.status).toBe(201);
    const resent = await postForm(app.base, who, "/console/agents/blog-writer/tokens", { expiresDays: "", issueKey: issueKey! });
    expect(resent.status).toBe(409);
    const issuedId = (await listTokens(t.db, "blog-writer")).map((tk) => tk.id).sort((a, b) => b - a)[0];
    expect(resent.text).toContain(`This form was already sent: it issued token ${issuedId}, whose secret was shown only once`);
    expect(resent.text).not.toMatch(/data-token[^>]*>\s*amk_/);
    expect(await listTokens(t.db, "blog-writer")).toHaveLength(before + 1);
    // The page shown again has a new key: issuing from it works.
    const nextKey = /name="issueKey" value="([A-Za-z0-9_-]+)"/.exec(resent.text)?.[1];
    expect(nextKey).toBeDefined();
    expect(nextKey).not.toBe(issueKey);

    expect((await request(app.base).get("/console/agents/nobody").set("Cookie", who.cookie)).status).toBe(404);
    expect((await postForm(app.base, who, "/console/tokens/999999/revoke", {})).status).toBe(404);
  });

  it("needs the CSRF token for admin actions too", async () => {
    const who = await signIn(app.base, owner.token);
    const res = await postForm(app.base, { ...who, csrf: "nope" }, "/console/agents", { name: "csrf-victim", kind: "human", scopes: "*" });
    expect(res.status).toBe(403);
    await expect(getAgent(t.db, "csrf-victim")).rejects.toThrow(/No agent/);
  });
});
