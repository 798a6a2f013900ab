// `agent-memory ledger action set|list|unset` and `ledger void`, run as the built CLI.
import { existsSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/auth/store.js";
import { checkLedger, claimLedger, recordLedger } from "../../src/ledger/store.js";
import { CLI_PATH, onlyJson, runCli } from "../support/cli.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { claimAndRecord } from "./support.js";

describe("agent-memory ledger action and ledger void", () => {
  let tdb: TestDatabase;
  const cli = (args: string[]) => runCli(args, { DATABASE_URL: tdb.url! });
  let writer: { agentId: number; name: string };
  let deployer: { agentId: number; name: string };

  beforeAll(async () => {
    if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run "npm run build" first (npm test does).`);
    tdb = await createTestDatabase("postgres");
    const w = await createAgent(tdb.db, { name: "blog-writer", kind: "agent", writeScopes: ["shared"] });
    const d = await createAgent(tdb.db, { name: "deployer", kind: "agent", writeScopes: ["shared", "deploy"] });
    await createAgent(tdb.db, { name: "alice", kind: "human", writeScopes: ["*"] });
    writer = { agentId: w.id, name: w.name };
    deployer = { agentId: d.id, name: d.name };
  });

  it("action set puts an action in a scope that only its writers may claim; list and unset", async () => {
    const set = await cli(["ledger", "action", "set", "deploy_prod", "--scope", "deploy", "--json"]);
    expect(set.code, set.stderr).toBe(0);
    expect(onlyJson(set)).toMatchObject({ action: { action: "deploy_prod", scope: "deploy", setBy: "cli" } });
    await expect(claimLedger(tdb.db, writer, { action: "deploy_prod", target: "v1" })).rejects.toThrow(/belongs to scope "deploy"/);
    expect((await claimLedger(tdb.db, deployer, { action: "deploy_prod", target: "v1" })).kind).toBe("claimed");
    expect(onlyJson(await cli(["ledger", "action", "list", "--json"]))).toMatchObject({ defaultScope: "shared", actions: [{ action: "deploy_prod", scope: "deploy" }] });
    expect((await cli(["ledger", "action", "set", "deploy_prod", "--scope", "*"])).stderr).toMatch(/"\*" is not one/);
    expect((await cli(["ledger", "action", "unset", "deploy_prod"])).stdout).toMatch(/belongs to the default scope "shared" again \(was "deploy"\)/);
  });

  it("action set names the live claims on the action, which their holders may still finish", async () => {
    await claimLedger(tdb.db, writer, { action: "publish_doc", target: "d1" });
    const set = await cli(["ledger", "action", "set", "publish_doc", "--scope", "deploy"]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain("Open claims on it (their holders may still record or release them");
    expect(set.stdout).toMatch(/publish_doc for "d1" held by blog-writer until \d{4}-/);
    const json = onlyJson<{ openClaims: Array<{ target: string; holder: string }> }>(await cli(["ledger", "action", "set", "publish_doc", "--scope", "deploy", "--json"]));
    expect(json.openClaims).toEqual([expect.objectContaining({ target: "d1", holder: "blog-writer" })]);
    expect((await recordLedger(tdb.db, writer, { action: "publish_doc", target: "d1", evidence: "https://docs.example/d1" })).record.actor).toBe("blog-writer");
  });

  it("void appends a voided event by a human, re-opens the key, and verify still passes", async () => {
    await claimAndRecord(tdb.db, writer, { action: "publish_post", target: "p1", evidence: "https://blog.example/p1" });
    const refused = await cli(["ledger", "void", "publish_post", "p1", "--reason", "forged", "--as", "deployer"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/only a human agent may void/);
    const voided = await cli(["ledger", "void", "publish_post", "p1", "--reason", "recorded without publishing", "--as", "alice", "--json"]);
    expect(voided.code, voided.stderr).toBe(0);
    expect(onlyJson(voided)).toMatchObject({ action: "publish_post", target: "p1", voided: "record", voidedActor: "blog-writer", reason: "recorded without publishing" });
    expect((await checkLedger(tdb.db, { action: "publish_post", target: "p1" })).status).toBe("NOT_EXECUTED");
    const verify = await cli(["ledger", "verify", "--json"]);
    expect(onlyJson(verify)).toMatchObject({ ok: true });
    const exported = (await cli(["ledger", "export"])).stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as { kind: string; actor: string; reason: string });
    expect(exported.at(-1)).toMatchObject({ kind: "voided", actor: "alice", reason: "recorded without publishing" });
    const nothing = await cli(["ledger", "void", "publish_post", "p1", "--reason", "again", "--as", "alice"]);
    expect(nothing.stderr).toMatch(/Nothing to void/);
  });
});
