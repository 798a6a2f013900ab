import { beforeAll, describe, expect, it } from "vitest";
import { createAgent, issueToken, listAgents, listTokens, revokeToken, setAgentDisabled } from "../../src/auth/store.js";
import { hashToken } from "../../src/auth/tokens.js";
import { checkToken, touchToken } from "../../src/auth/verifier.js";
import { DomainError } from "../../src/errors.js";
import { BACKENDS, createTestDatabase, type TestDatabase } from "../support/databases.js";

describe.each(BACKENDS)("agents and tokens on %s", (backend) => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase(backend);
  });

  it("creates agents with validated names and scopes, once", async () => {
    const a = await createAgent(tdb.db, { name: "reviewer", kind: "human", writeScopes: ["shared", "blog"], readScopes: ["deploy"] });
    expect(a).toMatchObject({ name: "reviewer", kind: "human", writeScopes: ["shared", "blog"], readScopes: ["deploy"], disabledAt: null });
    await expect(createAgent(tdb.db, { name: "reviewer", kind: "agent", writeScopes: [] })).rejects.toMatchObject({ code: "conflict" });
    await expect(createAgent(tdb.db, { name: "Bad Name", kind: "agent", writeScopes: [] })).rejects.toThrow(/not valid/);
    await expect(createAgent(tdb.db, { name: "ok-name", kind: "agent", writeScopes: ["Not A Scope"] })).rejects.toBeInstanceOf(DomainError);
    expect((await listAgents(tdb.db)).map((x) => x.name)).toEqual(["reviewer"]);
  });

  it("the database itself refuses invalid agents", async () => {
    await expect(tdb.db.query("insert into agents (name, kind) values ('x y', 'agent')")).rejects.toThrow(/agents_name_format/);
    await expect(tdb.db.query("insert into agents (name, kind) values ('robot', 'robot')")).rejects.toThrow(/agents_kind/);
    await expect(tdb.db.query("insert into agents (name, write_scopes) values ('s', '{\"BAD SCOPE\"}')")).rejects.toThrow(/agents_write_scopes_valid/);
  });

  it("stores only the hash of a token and verifies it", async () => {
    const { token, record } = await issueToken(tdb.db, "reviewer", null);
    expect(token).toMatch(/^amk_[A-Za-z0-9_-]{43}$/);
    expect(record.hint).toBe(`${token.slice(0, 8)}…`);
    const stored = await tdb.db.query<{ token_hash: string }>("select token_hash from agent_tokens where id = $1", [record.id]);
    expect(stored.rows[0]?.token_hash).toBe(hashToken(token));
    const dump = JSON.stringify((await tdb.db.query("select * from agent_tokens")).rows);
    expect(dump).not.toContain(token.slice(4));
    const check = await checkToken(tdb.db, token);
    expect(check.ok && check.caller).toMatchObject({ name: "reviewer", kind: "human", writeScopes: ["shared", "blog"] });
  });

  it("rejects unknown, malformed, revoked, expired tokens and disabled agents, each for its reason", async () => {
    expect(await checkToken(tdb.db, "amk_" + "A".repeat(43))).toEqual({ ok: false, reason: "unknown" });
    expect(await checkToken(tdb.db, "hello")).toEqual({ ok: false, reason: "malformed" });

    const revoked = await issueToken(tdb.db, "reviewer", null);
    await revokeToken(tdb.db, revoked.record.id);
    expect(await checkToken(tdb.db, revoked.token)).toEqual({ ok: false, reason: "revoked" });

    const expiring = await issueToken(tdb.db, "reviewer", new Date(Date.now() + 60_000));
    expect((await checkToken(tdb.db, expiring.token)).ok).toBe(true);
    await tdb.db.query("update agent_tokens set created_at = now() - interval '2 hours', expires_at = now() - interval '1 hour' where id = $1", [expiring.record.id]);
    expect(await checkToken(tdb.db, expiring.token)).toEqual({ ok: false, reason: "expired" });

    await createAgent(tdb.db, { name: "temp", kind: "agent", writeScopes: ["shared"] });
    const temp = await issueToken(tdb.db, "temp", null);
    await setAgentDisabled(tdb.db, "temp", true);
    expect(await checkToken(tdb.db, temp.token)).toEqual({ ok: false, reason: "agent_disabled" });
    await expect(issueToken(tdb.db, "temp", null)).rejects.toMatchObject({ code: "conflict" });
    await setAgentDisabled(tdb.db, "temp", false);
    expect((await checkToken(tdb.db, temp.token)).ok).toBe(true);

    await expect(revokeToken(tdb.db, 999_999)).rejects.toMatchObject({ code: "not_found" });
    await expect(issueToken(tdb.db, "nobody", null)).rejects.toMatchObject({ code: "not_found" });
    await expect(issueToken(tdb.db, "reviewer", new Date(Date.now() - 1000))).rejects.toMatchObject({ code: "invalid" });
  });

  it("records last use at most once a minute, not on every request", async () => {
    const { token, record } = await issueToken(tdb.db, "reviewer", null);
    const first = await checkToken(tdb.db, token);
    expect(first.ok && first.touch).toBe(true);
    await touchToken(tdb.db, record.id);
    const second = await checkToken(tdb.db, token);
    expect(second.ok && second.touch).toBe(false);
    const used = (await listTokens(tdb.db, "reviewer")).find((t) => t.id === record.id);
    expect(used?.lastUsedAt).toBeInstanceOf(Date);
    await expect(listTokens(tdb.db, "nobody")).rejects.toMatchObject({ code: "not_found" });
  });
});
