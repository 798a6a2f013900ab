// The console's access rules over real HTTP: sign-in, sessions, CSRF and
// cross-site refusals, scopes, and the review action's rules.
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeToken, setAgentDisabled } from "../../src/auth/store.js";
import { getFact } from "../../src/facts/lifecycle/get.js";
import { CONTENT_SECURITY_POLICY } from "../../src/console/security.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { callerOf, type ConsoleApp, draft, hiddenField, postForm, postSignIn, signIn, startConsoleApp } from "./support.js";

describe.each(["postgres", "pglite"] as const)("console access rules (%s)", (backend) => {
  let t: TestDatabase;
  let app: ConsoleApp;
  let alice: TestAgent; // human, may write shared + blog
  let root: TestAgent; // human, every scope
  let writer: TestAgent; // agent, writes blog and secret

  beforeAll(async () => {
    t = await createTestDatabase(backend);
    app = await startConsoleApp(t.db);
    alice = await addAgent(t.db, "alice", { kind: "human", scopes: ["shared", "blog"] });
    root = await addAgent(t.db, "root", { kind: "human", scopes: ["*"] });
    writer = await addAgent(t.db, "writer", { scopes: ["shared", "blog", "secret"] });
    const w = await callerOf(t.db, writer.token);
    await draft(t.db, w, "blog-tag-limit", "blog", "Qiita allows <script>alert(1)</script> five tags.");
    await draft(t.db, w, "secret-launch-date", "secret");
  });
  afterAll(async () => {
    await app?.close();
  });

  it("sends people without a session to sign-in, and / to the console", async () => {
    const res = await request(app.base).get("/console");
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe("/console/sign-in?note=required");
    expect((await request(app.base).get("/console/facts")).headers.location).toContain("/console/sign-in");
    expect((await request(app.base).get("/")).headers.location).toBe("/console");
  });

  it("serves every page with a strict CSP, nosniff and same-origin referrers", async () => {
    const res = await request(app.base).get("/console/sign-in");
    expect(res.status).toBe(200);
    expect(res.headers["content-security-policy"]).toBe(CONTENT_SECURITY_POLICY);
    expect(res.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(res.headers["content-security-policy"]).not.toContain("unsafe");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["referrer-policy"]).toBe("same-origin");
    expect(res.text).not.toMatch(/<script>|<style>| on\w+=/i);
  });

  it("serves an icon every page links to, so browsers stop asking for /favicon.ico (a 404 on each page)", async () => {
    const page = await request(app.base).get("/console/sign-in");
    expect(page.text).toContain('<link rel="icon" type="image/svg+xml" href="/console/assets/favicon.svg"/>');
    const icon = await request(app.base).get("/console/assets/favicon.svg");
    expect(icon.status).toBe(200);
    expect(icon.headers["content-type"]).toMatch(/^image\/svg\+xml/);
    expect(icon.headers["cache-control"]).toBe("public, max-age=86400");
    expect(icon.headers["content-security-policy"]).toBe(CONTENT_SECURITY_POLICY);
    const svg = (icon.body as Buffer).toString("utf8");
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).not.toMatch(/<script|on\w+=/i);
  });

  it("starts every page with a skip link to the main content", async () => {
    const page = await request(app.base).get("/console/sign-in");
    expect(page.text).toMatch(/<body><a class="skip-link" href="#main">Skip to content<\/a>/);
    expect(page.text).toContain('<main id="main" tabindex="-1">');
  });

  it("refuses tokens of kind agent, unknown tokens and forms without their secret", async () => {
    const agentTry = await postSignIn(app.base, writer.token);
    expect(agentTry.status).toBe(403);
    expect(agentTry.text).toContain("an agent of kind &quot;agent&quot;");
    expect(agentTry.headers["set-cookie"]?.toString() ?? "").not.toContain("am_console=");
    const unknown = await postSignIn(app.base, `amk_${"x".repeat(43)}`);
    expect(unknown.status).toBe(401);
    expect(unknown.text).toContain("That token is not valid");
    const noSecret = await request(app.base).post("/console/sign-in").set("Origin", app.base).type("form").send({ token: alice.token });
    expect(noSecret.status).toBe(403);
    const crossSite = await postSignIn(app.base, alice.token, "https://evil.example");
    expect(crossSite.status).toBe(403);
    expect(crossSite.text).toContain("https://evil.example");
  });

  it("signs a human in with an HttpOnly, SameSite=Strict session cookie limited to /console; the database keeps only its hash", async () => {
    const who = await signIn(app.base, alice.token);
    // Plain http on localhost: no __Host- prefix (it needs Secure, which http cannot send back).
    expect(who.setCookieLine).toMatch(/^am_console=/);
    expect(who.setCookieLine).toMatch(/HttpOnly/);
    expect(who.setCookieLine).toMatch(/SameSite=Strict/);
    expect(who.setCookieLine).toMatch(/Path=\/console/);
    expect(who.setCookieLine).not.toMatch(/Secure/);
    const id = who.cookie.split("=")[1]!;
    const rows = (await t.db.query<{ session_hash: string }>("select session_hash from console_sessions")).rows;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.session_hash)).not.toContain(id);
    expect(who.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("over https (PUBLIC_URL), names the cookies __Host-: Secure, Path=/, no Domain; the session works and signs out", async () => {
    const secure = await startConsoleApp(t.db, { PUBLIC_URL: "https://memory.example.com" });
    try {
      const form = await request(secure.base).get("/console/sign-in");
      const formLine = (form.headers["set-cookie"] as unknown as string[]).find((l) => l.startsWith("__Host-am_console_signin="));
      expect(formLine).toMatch(/; Path=\/;/);
      expect(formLine).toMatch(/; Secure/);
      const res = await postSignIn(secure.base, alice.token);
      expect(res.status).toBe(303);
      const lines = res.headers["set-cookie"] as unknown as string[];
      expect(lines.some((l) => l.startsWith("am_console="))).toBe(false);
      const line = lines.find((l) => l.startsWith("__Host-am_console="))!;
      // What a browser requires of a __Host- cookie: Secure, Path=/, no Domain (so no subdomain can set or overwrite it).
      expect(line).toMatch(/; Path=\/;/);
      expect(line).toMatch(/; Secure/);
      expect(line).toMatch(/; HttpOnly/);
      expect(line).toMatch(/; SameSite=Strict/);
      expect(line).not.toMatch(/Domain=/i);
      const cookie = line.split(";")[0]!;
      const page = await request(secure.base).get("/console").set("Cookie", cookie);
      expect(page.status).toBe(200);
      const csrf = hiddenField(page.text, "csrf")!;
      // Without the prefix the same value is not a session: the name is part of the guarantee.
      expect((await request(secure.base).get("/console").set("Cookie", cookie.replace("__Host-", ""))).status).toBe(303);
      const out = await request(secure.base).post("/console/sign-out").set("Origin", secure.base).set("Cookie", cookie).type("form").send({ csrf });
      expect(out.status).toBe(303);
      const cleared = (out.headers["set-cookie"] as unknown as string[]).find((l) => l.startsWith("__Host-am_console="))!;
      for (const part of [/Expires=Thu, 01 Jan 1970/, /; Path=\/;/, /; Secure/]) expect(cleared).toMatch(part);
    } finally {
      await secure.close();
    }
  });

  it("marks the cookie Secure behind a trusted proxy that says https, and checks Origin against https", async () => {
    const proxied = await startConsoleApp(t.db, { TRUST_PROXY: "loopback" });
    try {
      const httpsOrigin = proxied.base.replace("http://", "https://");
      const res = await postSignIn(proxied.base, alice.token, httpsOrigin, { "X-Forwarded-Proto": "https" });
      expect(res.status).toBe(303);
      expect((res.headers["set-cookie"] as unknown as string[]).find((l) => l.startsWith("__Host-am_console="))).toMatch(/; Secure/);
      const plainOrigin = await postSignIn(proxied.base, alice.token, proxied.base, { "X-Forwarded-Proto": "https" });
      expect(plainOrigin.status).toBe(403);
    } finally {
      await proxied.close();
    }
  });

  it("shows the review queue: others' drafts in writable scopes only, never names or counts of unreadable scopes, bodies escaped", async () => {
    const who = await signIn(app.base, alice.token);
    const page = await request(app.base).get("/console").set("Cookie", who.cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain("blog-tag-limit");
    expect(page.text).not.toContain("secret-launch-date");
    expect(page.text).not.toContain("secret");
    expect(page.text).toMatch(/data-count[^>]*>1</);
    expect(page.text).toContain("&lt;script>alert(1)&lt;/script>");
    expect(page.text).not.toContain("<script>alert(1)");
    const rootPage = await request(app.base).get("/console").set("Cookie", (await signIn(app.base, root.token)).cookie);
    expect(rootPage.text).toContain("secret-launch-date");
    expect(rootPage.text).toMatch(/data-count[^>]*>2</);
  });

  it("refuses review POSTs that are cross-site, lack an Origin or lack the CSRF token; nothing changes", async () => {
    const who = await signIn(app.base, alice.token);
    const fields = { name: "blog-tag-limit", scope: "blog", version: "1", to: "confirmed", reason: "ok" };
    const evil = await request(app.base).post("/console/review").set("Origin", "https://evil.example").set("Cookie", who.cookie).type("form").send({ csrf: who.csrf, ...fields });
    expect(evil.status).toBe(403);
    const siteHeader = await request(app.base).post("/console/review").set("Origin", app.base).set("Sec-Fetch-Site", "cross-site").set("Cookie", who.cookie).type("form").send({ csrf: who.csrf, ...fields });
    expect(siteHeader.status).toBe(403);
    const noOrigin = await request(app.base).post("/console/review").set("Cookie", who.cookie).type("form").send({ csrf: who.csrf, ...fields });
    expect(noOrigin.status).toBe(403);
    const noCsrf = await postForm(app.base, { ...who, csrf: "" }, "/console/review", fields);
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.text).toContain("security token");
    const otherCsrf = await postForm(app.base, { ...who, csrf: (await signIn(app.base, alice.token)).csrf }, "/console/review", fields);
    expect(otherCsrf.status).toBe(403);
    const fact = await getFact(t.db, await callerOf(t.db, alice.token), { name: "blog-tag-limit", scope: "blog" });
    expect(fact.status).toBe("draft");
  });

  it("refuses a stale version with 'changed since you opened it', then confirms as the signed-in human", async () => {
    const w = await callerOf(t.db, writer.token);
    await draft(t.db, w, "deploy-order", "blog");
    const { storeFact } = await import("../../src/facts/lifecycle/store.js");
    await storeFact(t.db, w, { name: "deploy-order", scope: "blog", type: "project", description: "About deploy-order", body: "Changed body.", version: 1 }, { bodyMaxChars: 16_000 });
    const who = await signIn(app.base, alice.token);
    const stale = await postForm(app.base, who, "/console/review", { name: "deploy-order", scope: "blog", version: "1", to: "confirmed", reason: "" });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain("changed since you opened it");
    expect(stale.text).toContain("version 2");
    const page = await request(app.base).get("/console").set("Cookie", who.cookie);
    expect(page.text).toContain("Changes since version 1");
    const ok = await postForm(app.base, who, "/console/review", { name: "deploy-order", scope: "blog", version: "2", to: "confirmed", reason: "" });
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toContain("done=confirmed");
    const fact = await getFact(t.db, await callerOf(t.db, alice.token), { name: "deploy-order", scope: "blog" });
    expect(fact.status).toBe("confirmed");
    expect(fact.statusBy).toBe("alice");
    expect(fact.events.at(-1)).toMatchObject({ kind: "confirmed", actor: "alice", version: 2 });
  });

  it("refuses self-approval and a deprecation without a reason, and deprecates with one", async () => {
    const a = await callerOf(t.db, alice.token);
    await draft(t.db, a, "alice-own-note", "blog");
    const who = await signIn(app.base, alice.token);
    const self = await postForm(app.base, who, "/console/review", { name: "alice-own-note", scope: "blog", version: "1", to: "confirmed", reason: "mine" });
    expect(self.status).toBe(403);
    expect(self.text).toContain("you may not confirm it");
    const noReason = await postForm(app.base, who, "/console/review", { name: "alice-own-note", scope: "blog", version: "1", to: "deprecated", reason: " " });
    expect(noReason.status).toBe(400);
    expect(noReason.text).toContain("Give the reason first");
    const dep = await postForm(app.base, who, "/console/review", { name: "alice-own-note", scope: "blog", version: "1", to: "deprecated", reason: "Superseded by deploy-order." });
    expect(dep.status).toBe(303);
    const fact = await getFact(t.db, a, { name: "alice-own-note", scope: "blog" });
    expect(fact.events.at(-1)).toMatchObject({ kind: "deprecated", actor: "alice", reason: "Superseded by deploy-order." });
  });

  it("cannot review a fact in a scope the person cannot read: answered as missing", async () => {
    const who = await signIn(app.base, alice.token);
    const res = await postForm(app.base, who, "/console/review", { name: "secret-launch-date", scope: "secret", version: "1", to: "deprecated", reason: "x" });
    const missing = await postForm(app.base, who, "/console/review", { name: "no-such-fact", scope: "secret", version: "1", to: "deprecated", reason: "x" });
    expect(res.status).toBe(404);
    expect(missing.status).toBe(404);
    const notice = (html: string) => /role="alert">([^<]*)</.exec(html)?.[1];
    expect(notice(res.text)?.replace("secret-launch-date", "X")).toBe(notice(missing.text)?.replace("no-such-fact", "X"));
  });

  it("ends sessions on sign-out, token revocation, agent disabling and expiry, on the next request", async () => {
    const out = await signIn(app.base, alice.token);
    const signOut = await postForm(app.base, out, "/console/sign-out", {});
    expect(signOut.headers.location).toBe("/console/sign-in?note=signed-out");
    expect((await request(app.base).get("/console").set("Cookie", out.cookie)).headers.location).toBe("/console/sign-in?note=ended");

    const temp = await addAgent(t.db, "temp-human", { kind: "human", scopes: ["shared"] });
    const revoked = await signIn(app.base, temp.token);
    expect((await request(app.base).get("/console").set("Cookie", revoked.cookie)).status).toBe(200);
    await revokeToken(t.db, (await callerOf(t.db, temp.token)).tokenId);
    expect((await request(app.base).get("/console").set("Cookie", revoked.cookie)).headers.location).toBe("/console/sign-in?note=ended");

    const bob = await addAgent(t.db, "bob", { kind: "human", scopes: ["shared"] });
    const disabled = await signIn(app.base, bob.token);
    await setAgentDisabled(t.db, "bob", true);
    expect((await request(app.base).get("/console").set("Cookie", disabled.cookie)).headers.location).toBe("/console/sign-in?note=ended");
    await setAgentDisabled(t.db, "bob", false);
    expect((await request(app.base).get("/console").set("Cookie", disabled.cookie)).headers.location).toBe("/console/sign-in?note=ended");

    const expiring = await signIn(app.base, alice.token);
    await t.db.query("update console_sessions set created_at = now() - interval '2 days', expires_at = now() - interval '1 second' where revoked_at is null");
    expect((await request(app.base).get("/console").set("Cookie", expiring.cookie)).headers.location).toBe("/console/sign-in?note=ended");
  });

  it("over the failed sign-in limit, refuses bad tokens with 429 but still signs a valid human in from the same address", async () => {
    const limited = await startConsoleApp(t.db, { AUTH_FAILURES_PER_MINUTE: "2" });
    try {
      const bad = `amk_${"y".repeat(43)}`;
      expect((await postSignIn(limited.base, bad)).status).toBe(401);
      expect((await postSignIn(limited.base, bad)).status).toBe(401);
      const third = await postSignIn(limited.base, bad);
      expect(third.status).toBe(429);
      expect(third.text).toContain("Too many failed sign-ins");
      // Someone else's guesses at a shared address (NAT, proxy) lock nobody out.
      const valid = await postSignIn(limited.base, alice.token);
      expect(valid.status).toBe(303);
      expect(valid.headers.location).toBe("/console");
      expect((await postSignIn(limited.base, bad)).status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it("keeps a readable hidden field helper honest", () => {
    expect(hiddenField('<input type="hidden" name="csrf" value="abc"/>', "csrf")).toBe("abc");
  });
});
