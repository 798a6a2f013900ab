// libpq's multi-host connection string: parsed into one URL per host, with a
// clear refusal of what libpq would refuse too (the clusters that exercise the
// selection are in test/reliability/failover.test.ts).
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config/index.js";
import { describeDatabase } from "../../src/db/core/open.js";
import { parseHostList } from "../../src/config/host-list.js";

describe("parseHostList", () => {
  it("leaves a one-host URL without session attributes to the driver", () => {
    expect(parseHostList("postgres://u:p@db.example:6432/memory?sslmode=require", "DATABASE_URL")).toBeUndefined();
    expect(parseHostList("postgresql:///memory?host=/var/run/postgresql", "DATABASE_URL")).toBeUndefined();
  });

  it("splits a host list into one URL per host, keeping user, password, database and parameters", () => {
    const list = parseHostList("postgres://u:p%40ss@h1:5432,[::1]:5433,h3/memory?sslmode=require&target_session_attrs=read-write", "DATABASE_URL")!;
    expect(list.sessionAttrs).toBe("read-write");
    expect(list.hosts).toEqual([
      { host: "h1", port: 5432 },
      { host: "::1", port: 5433 },
      { host: "h3", port: 5432 },
    ]);
    expect(list.hosts.map((h) => list.urlFor(h))).toEqual([
      "postgres://u:p%40ss@h1:5432/memory?sslmode=require",
      "postgres://u:p%40ss@[::1]:5433/memory?sslmode=require",
      "postgres://u:p%40ss@h3:5432/memory?sslmode=require",
    ]);
  });

  it("checks the session attribute of a single host too", () => {
    const list = parseHostList("postgres://h1/memory?target_session_attrs=primary", "DATABASE_URL")!;
    expect(list.hosts).toEqual([{ host: "h1", port: 5432 }]);
    expect(list.sessionAttrs).toBe("primary");
  });

  it("refuses what it cannot connect to, saying what to fix", () => {
    expect(() => parseHostList("postgres://h1,h2/db?target_session_attrs=writable", "DATABASE_URL")).toThrow(/target_session_attrs=writable; use one of any, read-write/);
    expect(() => parseHostList("postgres://h1,/db", "DATABASE_URL")).toThrow(/invalid host "" in its host list/);
    expect(() => parseHostList("postgres://h1:99999,h2/db", "DATABASE_URL")).toThrow(/invalid host "h1:99999"/);
    expect(() => parseHostList("mysql://h1,h2/db", "DATABASE_URL")).toThrow(/must start with postgres:\/\//);
  });

  it("is accepted by the configuration, and refused there with the same words", () => {
    const url = "postgres://u@h1:5432,h2:5432/memory?target_session_attrs=read-write";
    expect(loadConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
    expect(() => loadConfig({ DATABASE_URL: "postgres://h1,h2/db?target_session_attrs=nope" })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: "postgres://h1,h2/db?target_session_attrs=nope" })).toThrow(/DATABASE_URL has target_session_attrs=nope/);
    expect(describeDatabase(loadConfig({ DATABASE_URL: "postgres://u:secret@h1:5432,h2:5433/memory?target_session_attrs=read-write" }))).toBe(
      "Postgres at h1:5432,h2:5433/memory (target_session_attrs=read-write)",
    );
  });

  it("takes replicas only beside a Postgres primary", () => {
    expect(() => loadConfig({ DATABASE_READ_URL: "postgres://replica/memory" })).toThrow(/DATABASE_READ_URL needs DATABASE_URL/);
    const c = loadConfig({ DATABASE_URL: "postgres://primary/memory", DATABASE_READ_URL: "postgres://r1:5432,r2:5432/memory", DATABASE_READ_MAX_LAG_MS: "2000" });
    expect(c.databaseReadUrl).toBe("postgres://r1:5432,r2:5432/memory");
    expect(c.db.readMaxLagMs).toBe(2000);
    expect(loadConfig({}).db.readMaxLagMs).toBe(5000);
  });
});
