import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/index.js";

const envExample = readFileSync(new URL("../../.env.example", import.meta.url), "utf8");
const exampleKeys = new Set(
  envExample
    .split("\n")
    .map((l) => /^([A-Z][A-Z0-9_]*)=/.exec(l)?.[1])
    .filter((k): k is string => Boolean(k)),
);

describe("configuration", () => {
  it("defaults bind to 127.0.0.1 and use the embedded database", () => {
    const c = loadConfig({});
    expect(c.host).toBe("127.0.0.1");
    expect(c.port).toBe(8080);
    expect(c.databaseUrl).toBeUndefined();
    expect(c.dataDir).toBe("./.agent-memory");
    expect(c.maxBodyBytes).toBe(1024 * 1024);
    expect(c.rateLimitPerMinute).toBe(0);
  });

  it("fails fast with a message naming each bad variable", () => {
    let error: unknown;
    try {
      loadConfig({ PORT: "eighty", DATABASE_URL: "mysql://x", LOG_LEVEL: "loud", FIRST_START_OWNER: "maybe" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toMatch(/PORT must be a whole number from 0 to 65535, got "eighty"/);
    expect(message).toMatch(/DATABASE_URL must start with postgres:\/\//);
    expect(message).toMatch(/LOG_LEVEL/);
    expect(message).toMatch(/FIRST_START_OWNER must be true or false/);
  });

  it("parses lists, numbers and flags", () => {
    const c = loadConfig({ ALLOWED_ORIGINS: " https://a.example , https://b.example ", PORT: "9000", FIRST_START_OWNER: "no", METRICS_TOKEN: "s3cret-s3cret-s3cret-s3cret-s3cret" });
    expect(c.allowedOrigins).toEqual(["https://a.example", "https://b.example"]);
    expect(c.port).toBe(9000);
    expect(c.firstStartOwner).toBe(false);
    expect(c.metricsToken).toBe("s3cret-s3cret-s3cret-s3cret-s3cret");
  });

  it("refuses TRUST_PROXY=true (a client-written X-Forwarded-For) and says what to set instead", () => {
    for (const value of ["true", "TRUE", "yes"]) {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(/TRUST_PROXY=.* would trust any client-written X-Forwarded-For\. Set the number of proxies .*TRUST_PROXY=1.*subnets/);
    }
    expect(() => loadConfig({ TRUST_PROXY: "10.0.0.0/33,proxy.example" })).toThrow(/TRUST_PROXY must be a hop count .* not "10\.0\.0\.0\/33", "proxy\.example"/);
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "false" }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: "1" }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: " 10.0.0.0/8, loopback ,192.168.1.7, fd00:10::/32" }).trustProxy).toEqual(["10.0.0.0/8", "loopback", "192.168.1.7", "fd00:10::/32"]);
  });

  it("refuses TRUST_PROXY subnets wider than /8 (IPv4) or /32 (IPv6), naming each and what to set instead", () => {
    // 0.0.0.0/1 and 128.0.0.0/1 together trust every address: a client's X-Forwarded-For would pick its own req.ip.
    let message = "";
    try {
      loadConfig({ TRUST_PROXY: "0.0.0.0/1,128.0.0.0/1,::/0,2000::/3,::ffff:0.0.0.0/96,10.0.0.0/8", AUTH_FAILURES_PER_MINUTE: "x" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/TRUST_PROXY: "0\.0\.0\.0\/1", "128\.0\.0\.0\/1", "::\/0", "2000::\/3", "::ffff:0\.0\.0\.0\/96" cover too many addresses/);
    expect(message).toMatch(/IPv4 prefixes must be \/8 or longer and IPv6 prefixes \/32 or longer/);
    expect(message).toMatch(/the number of proxies in front of the service \(TRUST_PROXY=1\) or their own addresses\/subnets/);
    expect(message).toMatch(/private ranges by name \(loopback, linklocal, uniquelocal\)/);
    // Every problem at once: the other bad variable is named in the same error.
    expect(message).toMatch(/AUTH_FAILURES_PER_MINUTE/);
    expect(message).not.toMatch(/"10\.0\.0\.0\/8"/);
    expect(loadConfig({ TRUST_PROXY: "10.0.0.0/8,2001:db8::/32,::ffff:10.0.0.0/104,172.16.0.0/12" }).trustProxy).toEqual(["10.0.0.0/8", "2001:db8::/32", "::ffff:10.0.0.0/104", "172.16.0.0/12"]);
  });

  it("refuses a METRICS_TOKEN shorter than 32 characters", () => {
    expect(() => loadConfig({ METRICS_TOKEN: "s3cret" })).toThrow(/METRICS_TOKEN must be at least 32 characters/);
    expect(loadConfig({ METRICS_TOKEN: "x".repeat(32) }).metricsToken).toBe("x".repeat(32));
  });

  it("has request timeouts, a connection cap, ledger limits and a first-token file by default", () => {
    const c = loadConfig({ AGENT_MEMORY_DATA_DIR: "/srv/am" });
    expect(c.http).toEqual({ requestTimeoutMs: 30_000, maxConnections: 4096, maxConnectionsPerAddress: 1024, refusedRequestWaitMs: 5000 });
    // Behind a proxy every client is the proxy's address: the per-address bound is the process's.
    expect(loadConfig({ TRUST_PROXY: "1" }).http.maxConnectionsPerAddress).toBe(4096);
    expect(loadConfig({ HTTP_MAX_CONNECTIONS: "50" }).http.maxConnectionsPerAddress).toBe(50);
    expect(c.ledger).toEqual({ defaultScope: "shared", maxOpenClaimsPerAgent: 100 });
    expect(c.firstTokenFile).toBe("/srv/am/owner-token");
    expect(loadConfig({ FIRST_TOKEN_FILE: "/run/secrets/owner" }).firstTokenFile).toBe("/run/secrets/owner");
    expect(() => loadConfig({ LEDGER_DEFAULT_SCOPE: "Not A Scope" })).toThrow(/LEDGER_DEFAULT_SCOPE must be a scope name/);
  });

  it("documents every setting in .env.example, and .env.example holds only real settings", () => {
    // The schema is declared by area in src/config/ (src/config/index.ts puts the areas together).
    const dir = new URL("../../src/config/", import.meta.url);
    const source = readdirSync(dir)
      .map((file) => readFileSync(new URL(file, dir), "utf8"))
      .join("\n");
    const schemaKeys = [...source.matchAll(/^\s{2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
    expect(schemaKeys.length).toBeGreaterThan(15);
    for (const key of schemaKeys) expect(exampleKeys, `${key} missing from .env.example`).toContain(key);
    // The example's values are the defaults: loading it as an environment changes nothing.
    const fromExample = Object.fromEntries(
      envExample
        .split("\n")
        .map((l) => /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(l))
        .filter((m): m is RegExpExecArray => m !== null && m[1] !== "POSTGRES_PASSWORD")
        .map((m) => [m[1]!, m[2]!]),
    );
    expect(loadConfig(fromExample)).toEqual(loadConfig({}));
  });
});
