// The ledger tools through real MCP clients over HTTP, several agents at once.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect } from "vitest";
import { callError, callOk, textOf } from "../support/service.js";
import { serviceTest } from "../support/service-test.js";
import { countEvents, expireClaim } from "./support.js";

const LEDGER_TOOLS = ["ledger_check", "ledger_claim", "ledger_record", "ledger_release", "ledger_list"];

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

// Different scopes of their own; ledger writes need write access to the
// action's scope, which is "shared" for unmapped actions (docs/ledger-permissions.md).
const test = serviceTest({
  agents: { "blog-writer": { scopes: ["blog", "shared"] }, deployer: { scopes: ["deploy", "shared"] }, alice: { kind: "human", scopes: ["shared"] } },
});

describe("ledger tools with real MCP clients", () => {
  test("lists the five ledger tools with output schemas and honest annotations", async ({ clients: { "blog-writer": writer } }) => {
    const { tools } = await writer.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of LEDGER_TOOLS) {
      const tool = byName.get(name);
      expect(tool?.outputSchema, name).toBeDefined();
      expect(tool?.annotations?.openWorldHint, name).toBe(false);
      expect(tool?.description, name).toMatch(/ledger|Call this/);
      expect(Object.keys(tool?.inputSchema.properties ?? {}), name).not.toContain("actor_id");
    }
    expect(byName.get("ledger_check")?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get("ledger_list")?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get("ledger_claim")?.annotations?.readOnlyHint).toBe(false);
    expect(byName.get("ledger_record")?.annotations?.idempotentHint).toBe(true);
    expect(byName.get("ledger_check")?.description).toMatch(/before any external operation/);
  });

  test("runs the full check → claim → execute → record → check loop across agents", async ({ clients: { "blog-writer": writer, deployer, alice: reviewer } }) => {
    const key = { action: "publish_qiita", target: "article-42" };
    const first = await call(writer, "ledger_check", key);
    expect(textOf(first)).toMatch(/^NOT_EXECUTED: publish_qiita for "article-42" has no record\. Call ledger_claim/);
    expect(first.structuredContent).toEqual({ status: "NOT_EXECUTED", ...key });

    const claim = await callOk<{ event: string; claim: { holder: string; yours: boolean; expired: boolean } }>(writer, "ledger_claim", { ...key, ttl_seconds: 300 });
    expect(claim.event).toBe("claimed");
    expect(claim.claim).toMatchObject({ holder: "blog-writer", yours: true, expired: false });

    const mine = await call(writer, "ledger_check", key);
    expect(textOf(mine)).toMatch(/^CLAIMED: .* claimed by you until .*Execute it, then call ledger_record/);
    const theirs = await call(deployer, "ledger_check", key);
    expect(textOf(theirs)).toMatch(/^CLAIMED: publish_qiita for "article-42" is claimed by blog-writer until \S+ \(\d+ s left\)\. Do not execute it/);
    expect(theirs.structuredContent).toMatchObject({ status: "CLAIMED", claim: { holder: "blog-writer", yours: false } });

    expect(await callError(deployer, "ledger_claim", key)).toMatch(/^Refused: publish_qiita for "article-42" is claimed by blog-writer until/);

    // … the writer publishes the article, then records it at once.
    const recorded = await call(writer, "ledger_record", { ...key, evidence: "https://qiita.com/blog-writer/items/42", note: "first publish" });
    expect(recorded.isError).toBeFalsy();
    expect(textOf(recorded)).toMatch(/^Recorded: publish_qiita for "article-42" was executed by blog-writer at .* Your claim is closed\.$/);
    expect(recorded.structuredContent).toMatchObject({ idempotent: false, closedClaim: true, record: { actor: "blog-writer", evidence: "https://qiita.com/blog-writer/items/42" } });

    const done = await call(reviewer, "ledger_check", key);
    expect(textOf(done)).toMatch(
      /^EXECUTED: publish_qiita for "article-42" was executed by blog-writer at \S+ \(ledger #\d+\)\. Evidence: https:\/\/qiita\.com\/blog-writer\/items\/42\. Note: first publish\. Do not execute it again\.$/,
    );
    expect(done.structuredContent).toMatchObject({ status: "EXECUTED", record: { actor: "blog-writer", note: "first publish" } });
    expect(done.structuredContent).not.toHaveProperty("claim");

    expect(await callError(deployer, "ledger_claim", key)).toMatch(/^Refused: publish_qiita for "article-42" was executed by blog-writer .* Do not execute it again\.$/);
    expect(await callError(deployer, "ledger_record", { ...key, evidence: "https://qiita.com/deployer/items/1" })).toMatch(
      /^Refused: a second record of the same action is not allowed\. publish_qiita for "article-42" was executed by blog-writer/,
    );
  });

  test("answers an identical retry after a lost response as success, with the same record", async ({ clients: { "blog-writer": writer }, tdb }) => {
    const args = { action: "publish_zenn", target: "post-7", evidence: "https://zenn.dev/w/articles/7" };
    await callOk(writer, "ledger_claim", { action: args.action, target: args.target });
    const first = await callOk<{ record: { seq: number; hash: string } }>(writer, "ledger_record", args);
    const before = await countEvents(tdb.db);
    const retry = await call(writer, "ledger_record", args);
    expect(retry.isError).toBeFalsy();
    expect(textOf(retry)).toMatch(/^Already recorded with the same evidence; nothing new was written\./);
    expect(retry.structuredContent).toMatchObject({ idempotent: true, record: first.record });
    expect(await countEvents(tdb.db)).toBe(before);
  });

  test("refuses a record without the caller's claim, saying to claim first, and writes nothing", async ({ clients: { "blog-writer": writer }, tdb }) => {
    const before = await countEvents(tdb.db);
    expect(await callError(writer, "ledger_record", { action: "deploy_prod", target: "unclaimed-1", evidence: "https://ci.example/runs/1" })).toBe(
      'Refused: you hold no claim on deploy_prod for "unclaimed-1". Only the holder of its claim records an action: call ledger_claim, then ledger_record. Nothing was written.',
    );
    expect(await countEvents(tdb.db)).toBe(before);
  });

  test("takes the actor from the token, never from the arguments", async ({ clients: { deployer } }) => {
    await callOk(deployer, "ledger_claim", { action: "deploy_prod", target: "v2.0.0" });
    const key = { action: "deploy_prod", target: "v2.0.0", evidence: "https://ci.example/runs/200" };
    expect(await callError(deployer, "ledger_record", { ...key, actor: "alice" })).toContain("- unknown argument `actor`");
    const recorded = await callOk<{ record: { actor: string } }>(deployer, "ledger_record", key);
    expect(recorded.record.actor).toBe("deployer");
  });

  test.for<[string, RegExp]>([
    ["ftp://files.example/report", /^evidence must be an absolute http:\/\/ or https:\/\/ URL .* uses ftp:/],
    ["javascript:alert(1)", /^evidence must be an absolute http:\/\/ or https:\/\/ URL .* uses javascript:/],
    ["/items/relative", /^evidence must be an absolute http:\/\/ or https:\/\/ URL .* is not an absolute URL/],
    ["", /^evidence must be an absolute http:\/\/ or https:\/\/ URL .* it is empty/],
  ])("refuses evidence %j and writes nothing", async ([evidence, message], { clients: { "blog-writer": writer }, tdb }) => {
    const before = await countEvents(tdb.db);
    expect(await callError(writer, "ledger_record", { action: "publish_note", target: "n-1", evidence })).toMatch(message);
    expect(await countEvents(tdb.db)).toBe(before);
  });

  test("refuses bad keys and ttl naming the field", async ({ clients: { "blog-writer": writer }, tdb }) => {
    const before = await countEvents(tdb.db);
    expect(await callError(writer, "ledger_claim", { action: "publish qiita", target: "x" })).toMatch(/^- action "publish qiita" is not a snake_case/m);
    expect(await callError(writer, "ledger_claim", { action: "publish", target: " " })).toMatch(/^- target must not be empty/m);
    expect(await callError(writer, "ledger_claim", { action: "publish", target: "x", ttl_seconds: 5 })).toContain("- ttl_seconds: must be at least 10 (got 5)");
    expect(await callError(writer, "ledger_claim", { action: "publish", target: "x", ttl_seconds: 86_401 })).toMatch(/ttl_seconds/);
    expect(await callError(writer, "ledger_check", { action: "publish" })).toMatch(/target/);
    expect(await callError(writer, "ledger_list", { limit: 500 })).toMatch(/limit/);
    expect(await countEvents(tdb.db)).toBe(before);
  });

  test("lets another agent take over an expired claim, and refuses the old holder's record afterwards", async ({ clients: { "blog-writer": writer, deployer }, tdb }) => {
    const key = { action: "call_paid_api", target: "translate:doc-9" };
    await callOk(deployer, "ledger_claim", { ...key, ttl_seconds: 10 });
    expect(await callError(writer, "ledger_claim", key)).toMatch(/claimed by deployer/);
    await expireClaim(tdb.db, key.action, key.target);

    const check = await call(writer, "ledger_check", key);
    expect(textOf(check)).toMatch(/^NOT_EXECUTED: .* \(A claim by deployer expired at \S+; it can be taken over\.\)$/);
    expect(check.structuredContent).toMatchObject({ status: "NOT_EXECUTED", claim: { holder: "deployer", expired: true } });

    const taken = await call(writer, "ledger_claim", key);
    expect(textOf(taken)).toMatch(/^Took over call_paid_api for "translate:doc-9" until \S+ \(ledger #\d+\): the claim of deployer expired at /);
    expect(taken.structuredContent).toMatchObject({ event: "taken_over", previousHolder: "deployer", claim: { holder: "blog-writer" } });
    const claimId = (taken.structuredContent as { claimId: string }).claimId;

    expect(await callError(deployer, "ledger_record", { ...key, evidence: "https://api.example/jobs/9" })).toMatch(/only blog-writer may record it/);
    const renewed = await callOk<{ event: string; claimId: string }>(writer, "ledger_claim", { ...key, ttl_seconds: 60, claimId });
    expect(renewed).toMatchObject({ event: "renewed", claimId });
  });

  test("releases one's own claim with a reason, so another agent can claim at once", async ({ clients: { "blog-writer": writer, deployer } }) => {
    const key = { action: "deploy_staging", target: "build-77" };
    await callOk(deployer, "ledger_claim", key);
    expect(await callError(writer, "ledger_release", { ...key, reason: "mine now" })).toMatch(/^Refused: .* claimed by deployer .* only the holder can release it/);
    const released = await call(deployer, "ledger_release", { ...key, reason: "smoke tests failed before deploying" });
    expect(textOf(released)).toMatch(/^Released your claim on deploy_staging for "build-77" \(ledger #\d+\)\. Reason: smoke tests failed before deploying$/);
    expect(await callError(deployer, "ledger_release", { ...key, reason: "again" })).toMatch(/^Nothing to release: you hold no claim/);
    expect((await callOk<{ event: string }>(writer, "ledger_claim", key)).event).toBe("claimed");
  });

  test("lists the team's history newest first, filtered and paged", async ({ clients: { deployer, alice: reviewer } }) => {
    const page1 = await call(reviewer, "ledger_list", { limit: 2 });
    const s1 = page1.structuredContent as { events: Array<{ seq: number }>; nextCursor: string | null };
    expect(s1.events).toHaveLength(2);
    expect(s1.events[0]!.seq).toBeGreaterThan(s1.events[1]!.seq);
    expect(textOf(page1)).toMatch(/^2 ledger event\(s\), newest first:\n#\d+ \S+ \w+ .* by /);
    const page2 = await callOk<{ events: Array<{ seq: number }> }>(reviewer, "ledger_list", { limit: 2, cursor: s1.nextCursor });
    expect(page2.events[0]!.seq).toBeLessThan(s1.events[1]!.seq);

    const released = await callOk<{ events: Array<{ kind: string; actor: string; reason: string }> }>(reviewer, "ledger_list", { actor: "deployer", kind: "released" });
    expect(released.events).toEqual([expect.objectContaining({ kind: "released", actor: "deployer", reason: "smoke tests failed before deploying" })]);
    const executed = await callOk<{ events: Array<{ target: string }> }>(reviewer, "ledger_list", { kind: "executed", action: "publish_qiita" });
    expect(executed.events.map((e) => e.target)).toEqual(["article-42"]);
    expect(await callError(reviewer, "ledger_list", { since: "last week" })).toMatch(/^since must be an ISO 8601 date \(midnight UTC\) or a time with a zone/);
  });
});
