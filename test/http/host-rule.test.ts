// DNS-rebinding protection is one rule for every route (src/http/host-check.ts):
// a page on evil.example whose name resolves to the service sends that Host.
// The OAuth endpoints and /metrics answered any Host (security audit).
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { createTestApp } from "../support/service.js";

let tdb: TestDatabase;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
});

describe("one Host rule for every route", () => {
  it("refuses a foreign Host on every route, OAuth and /metrics included, saying what to set; only the probes answer any Host", async () => {
    const { app } = await createTestApp(tdb.db, { OAUTH_MODE: "builtin", PUBLIC_URL: "http://127.0.0.1:3999" });
    const routes: Array<["get" | "post", string]> = [
      ["post", "/mcp"],
      ["get", "/mcp"],
      ["get", "/metrics"],
      ["get", "/"],
      ["get", "/console/sign-in"],
      ["post", "/console/sign-in"],
      ["get", "/nowhere"],
      ["post", "/register"],
      ["get", "/.well-known/oauth-authorization-server"],
      ["get", "/.well-known/oauth-protected-resource/oauth/mcp"],
      ["get", "/authorize"],
      ["post", "/token"],
      ["post", "/revoke"],
      ["post", "/oauth/consent"],
      ["post", "/oauth/mcp"],
    ];
    for (const [method, path] of routes) {
      const res = await request(app)[method](path).set("Host", "evil.example:8080");
      expect(res.status, `${method} ${path}`).toBe(403);
      const message = (res.body.error?.message ?? res.body.error_description) as string;
      expect(message, `${method} ${path}`).toMatch(/^Host "evil\.example" is not a name of this service.*ALLOWED_HOSTS/);
    }
    // Load balancers and orchestrators probe by address (Host: 10.1.2.3:8080): the probes change nothing and tell nothing.
    for (const path of ["/healthz", "/readyz"]) expect((await request(app).get(path).set("Host", "10.1.2.3:8080")).status, path).toBe(200);
    // The service's own names pass.
    expect((await request(app).get("/.well-known/oauth-authorization-server").set("Host", "localhost:3999")).status).toBe(200);
    expect((await request(app).get("/metrics").set("Host", "127.0.0.1:3999")).status).toBe(200);
  });

  it("with ALLOWED_HOSTS, only those names pass, on /metrics as on /mcp", async () => {
    const { app } = await createTestApp(tdb.db, { HOST: "0.0.0.0", ALLOWED_HOSTS: "memory.example.com" });
    expect((await request(app).get("/metrics").set("Host", "memory.example.com")).status).toBe(200);
    expect((await request(app).get("/metrics").set("Host", "localhost")).status).toBe(403);
    expect((await request(app).get("/healthz").set("Host", "localhost")).status).toBe(200);
  });
});
