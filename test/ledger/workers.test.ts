// A claim belongs to the worker that made it, not to the token: workers of one
// agent (one token, as a team runs one agent's job queue on several processes)
// race through real MCP clients against two service replicas on one Postgres,
// and exactly one of them may execute and record. The claim's id is the proof;
// the ledger keeps only its reference (a hash), which links the claim's events.
import { createHash } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { exportLedger, verifyLedger } from "../../src/ledger/audit.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, connectClient, startInProcessService, textOf, type InProcessService } from "../support/service.js";
import { countEvents, expireClaim } from "./support.js";

const WORKERS = 10;
const RUNS = 20;

type Claimed = { event: string; claimId?: string; claim: { claimRef?: string } };

describe("a claim belongs to the worker that made it", () => {
  let tdb: TestDatabase;
  let replicas: InProcessService[];
  /** Ten workers of one agent, "publisher", half on each replica. */
  let workers: Client[];
  /** One worker each of ten agents. */
  let agents: Array<{ name: string; client: Client }>;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    replicas = [await startInProcessService(tdb.db), await startInProcessService(tdb.openPool(10))];
    const publisher = await addAgent(tdb.db, "publisher");
    workers = await Promise.all(Array.from({ length: WORKERS }, (_, i) => connectClient(replicas[i % 2]!, publisher.token, `worker-${i}`)));
    const team = [];
    for (let i = 0; i < WORKERS; i++) team.push(await addAgent(tdb.db, `agent-${String(i).padStart(2, "0")}`));
    agents = await Promise.all(team.map(async (a, i) => ({ name: a.name, client: await connectClient(replicas[i % 2]!, a.token) })));
  });

  const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  const executedOf = async (target: string) =>
    (await tdb.db.query<{ actor: string; evidence: string }>("select actor, evidence from ledger_events where kind = 'executed' and target = $1::text", [target])).rows;

  it(`of ${WORKERS} workers of one agent, and of ${WORKERS} agents, exactly one claims and exactly one record is kept, ${RUNS} runs in a row`, async () => {
    for (let run = 0; run < RUNS; run++) {
      // Workers of one agent, as a job queue runs them: claim; the winner executes and records with its id;
      // a worker told "claimed by you, in another worker" that records anyway is refused.
      const key = { action: "publish_article", target: `run-${run}` };
      const claims = await Promise.all(workers.map((w) => call(w, "ledger_claim", key)));
      const won = claims.flatMap((c, i) => (c.isError ? [] : [{ i, claimed: c.structuredContent as Claimed }]));
      expect(won, `run ${run}: ${claims.map(textOf).join(" | ")}`).toHaveLength(1);
      expect(won[0]!.claimed.event).toBe("claimed");
      for (const refused of claims.filter((c) => c.isError)) expect(textOf(refused)).toMatch(/is already claimed by you, in another worker, until /);
      const winner = won[0]!;
      const records = await Promise.all(
        workers.map((w, i) => call(w, "ledger_record", { ...key, evidence: `https://blog.example/${run}/${i}`, ...(i === winner.i ? { claimId: winner.claimed.claimId } : {}) })),
      );
      expect(records.filter((r) => !r.isError)).toHaveLength(1);
      expect(records[winner.i]!.isError, textOf(records[winner.i])).toBeFalsy();
      expect(await executedOf(key.target)).toEqual([{ actor: "publisher", evidence: `https://blog.example/${run}/${winner.i}` }]);

      // Agents with tokens of their own, as before.
      const other = { action: "publish_article", target: `agents-${run}` };
      const agentClaims = await Promise.all(agents.map((a) => call(a.client, "ledger_claim", other)));
      const agentWinners = agentClaims.flatMap((c, i) => (c.isError ? [] : [{ i, claimed: c.structuredContent as Claimed }]));
      expect(agentWinners).toHaveLength(1);
      const agentRecords = await Promise.all(
        agents.map((a, i) => call(a.client, "ledger_record", { ...other, evidence: `https://blog.example/a/${run}/${i}`, ...(i === agentWinners[0]!.i ? { claimId: agentWinners[0]!.claimed.claimId } : {}) })),
      );
      expect(agentRecords.filter((r) => !r.isError)).toHaveLength(1);
      expect(await executedOf(other.target)).toHaveLength(1);
    }
    expect((await verifyLedger(tdb.db)).ok).toBe(true);
  });

  it("refuses a record or release with another worker's id, or without one once two workers asked, and changes nothing", async () => {
    const key = { action: "deploy_prod", target: "v2.0.0" };
    const [a, b, c] = workers as [Client, Client, Client];
    const claimed = (await call(a, "ledger_claim", key)).structuredContent as Claimed;
    const elsewhere = (await call(b, "ledger_claim", { action: "deploy_prod", target: "v2.0.1" })).structuredContent as Claimed;
    // Another worker asks for the key: refused, and from now on the claim is finished with its id alone.
    expect(textOf(await call(b, "ledger_claim", key))).toMatch(/^Refused: deploy_prod for "v2\.0\.0" is already claimed by you, in another worker, until .*release it with its claimId/);
    const before = await countEvents(tdb.db);
    const claimRow = async () => (await tdb.db.query("select * from ledger_claims where action = 'deploy_prod' and target = 'v2.0.0'")).rows;
    const rowBefore = await claimRow();
    expect(textOf(await call(b, "ledger_record", { ...key, evidence: "https://ci.example/b" }))).toMatch(/^Refused: pass the claimId that ledger_claim answered you\. More than one of your workers has asked/);
    expect(textOf(await call(c, "ledger_release", { ...key, reason: "not mine" }))).toMatch(/^Refused: pass the claimId/);
    expect(textOf(await call(b, "ledger_record", { ...key, evidence: "https://ci.example/b", claimId: elsewhere.claimId }))).toMatch(
      /^Refused: that claimId is not a claim of deploy_prod for "v2\.0\.0".*It is claimed by publisher now/,
    );
    expect(textOf(await call(b, "ledger_claim", { ...key, claimId: elsewhere.claimId }))).toMatch(/^Refused: that claimId is not a claim of/);
    expect(textOf(await call(c, "ledger_record", { ...key, evidence: "https://ci.example/c", claimId: "aml_not-an-id" }))).toMatch(/claimId must be the id ledger_claim answered with/);
    expect(await countEvents(tdb.db)).toBe(before);
    expect(await claimRow()).toEqual(rowBefore);

    // The holder renews with its id, and records with it.
    expect(((await call(a, "ledger_claim", { ...key, ttlSeconds: 600, claimId: claimed.claimId })).structuredContent as Claimed).event).toBe("renewed");
    const recorded = await call(a, "ledger_record", { ...key, evidence: "https://ci.example/a", claimId: claimed.claimId });
    expect(recorded.isError, textOf(recorded)).toBeFalsy();
  });

  it("keeps today's clients working where that is safe: one worker claims, then records without the id", async () => {
    const key = { action: "send_newsletter", target: "2026-12" };
    const claimed = await call(workers[3]!, "ledger_claim", key);
    expect(textOf(claimed)).toMatch(/Your claim id: aml_[A-Za-z0-9_-]{43}\. Keep it and pass it as claimId to ledger_record/);
    const recorded = await call(workers[3]!, "ledger_record", { ...key, evidence: "https://mail.example/2026-12" });
    expect(recorded.isError, textOf(recorded)).toBeFalsy();
  });

  it("tells a late holder what happened and what to do, and changes nothing", async () => {
    const key = { action: "publish_article", target: "late" };
    const [a, b] = workers as [Client, Client];
    const first = (await call(a, "ledger_claim", key)).structuredContent as Claimed;
    await expireClaim(tdb.db, key.action, key.target);
    // Another worker of the same agent takes the expired claim over: two workers have held it, so it needs its id.
    const second = (await call(b, "ledger_claim", key)).structuredContent as Claimed;
    expect(second.event).toBe("taken_over");
    expect(second.claimId).not.toBe(first.claimId);
    const before = await countEvents(tdb.db);
    const late = textOf(await call(a, "ledger_record", { ...key, evidence: "https://blog.example/late-a", claimId: first.claimId }));
    expect(late).toMatch(/^Refused: your claim on publish_article for "late" expired at \S+ and was taken over by publisher\. It is claimed by publisher now, until \S+\. Nothing was written\./);
    expect(late).toMatch(/If you already executed it, do not execute it again: tell the current holder \(it records the operation with your evidence in its note\), or ask a person to void the claim in the console/);
    expect(textOf(await call(a, "ledger_record", { ...key, evidence: "https://blog.example/late-a" }))).toMatch(/^Refused: pass the claimId/);
    expect(await countEvents(tdb.db)).toBe(before);
    const recorded = await call(b, "ledger_record", { ...key, evidence: "https://blog.example/late-b", note: "worker a also published: https://blog.example/late-a", claimId: second.claimId });
    expect(recorded.isError, textOf(recorded)).toBeFalsy();
    // After the record, the late holder hears that its claim ended with a record.
    expect(textOf(await call(a, "ledger_release", { ...key, reason: "late", claimId: first.claimId }))).toMatch(/^Nothing to release: publish_article for "late" was executed by publisher/);
  });

  it("links a claim's events by its reference in the list, the chain and the export, and never stores the id", async () => {
    const key = { action: "publish_article", target: "linked" };
    const claimed = (await call(workers[5]!, "ledger_claim", key)).structuredContent as Claimed;
    await call(workers[5]!, "ledger_record", { ...key, evidence: "https://blog.example/linked", claimId: claimed.claimId });
    const ref = createHash("sha256").update(claimed.claimId!).digest("hex");
    expect(claimed.claim.claimRef).toBe(ref.slice(0, 12));
    const listed = (await call(agents[0]!.client, "ledger_list", { target: "linked" })).structuredContent as { events: Array<{ kind: string; claimRef?: string }> };
    expect(listed.events.map((e) => [e.kind, e.claimRef])).toEqual([
      ["executed", ref.slice(0, 12)],
      ["claimed", ref.slice(0, 12)],
    ]);
    const exported: string[] = [];
    await exportLedger(tdb.db, (e) => void exported.push(JSON.stringify(e)));
    expect(exported.filter((e) => e.includes(ref))).toHaveLength(2);
    expect((await verifyLedger(tdb.db)).ok).toBe(true);
    const everywhere = await tdb.db.query<{ n: number }>(
      "select (select count(*) from ledger_events e where e::text like '%' || $1::text || '%') + (select count(*) from ledger_claims c where c::text like '%' || $1::text || '%') as n",
      [claimed.claimId],
    );
    expect(Number(everywhere.rows[0]!.n)).toBe(0);
  });
});
