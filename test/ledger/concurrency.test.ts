// Races on real Postgres, through real MCP clients over HTTP, against two service
// instances with separate connection pools on one database (two replicas).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { verifyLedger } from "../../src/ledger/audit.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, connectClient, startInProcessService, textOf, type InProcessService } from "../support/service.js";
import { countEvents } from "./support.js";

const RACERS = 50;

describe("ledger races on real Postgres across two replicas", () => {
  let tdb: TestDatabase;
  let replicas: InProcessService[];
  let clients: Array<{ name: string; client: Client }>;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    replicas = [await startInProcessService(tdb.db), await startInProcessService(tdb.openPool(10))];
    const agents = [];
    for (let i = 0; i < RACERS; i++) agents.push(await addAgent(tdb.db, `racer-${String(i).padStart(2, "0")}`));
    clients = await Promise.all(agents.map(async (a, i) => ({ name: a.name, client: await connectClient(replicas[i % 2]!, a.token) })));
  });

  const callAll = (name: string, args: (agent: string) => Record<string, unknown>) =>
    Promise.all(clients.map(async ({ name: agent, client }) => ({ agent, result: (await client.callTool({ name, arguments: args(agent) })) as CallToolResult })));

  it(`grants exactly one of ${RACERS} simultaneous claims on one key`, async () => {
    const results = await callAll("ledger_claim", () => ({ action: "publish_qiita", target: "race-claim" }));
    const winners = results.filter((r) => !r.result.isError);
    expect(winners).toHaveLength(1);
    const winner = winners[0]!.agent;
    const losers = results.filter((r) => r.result.isError);
    expect(losers).toHaveLength(RACERS - 1);
    for (const l of losers) expect(textOf(l.result)).toMatch(new RegExp(`^Refused: publish_qiita for "race-claim" is claimed by ${winner} until`));

    const claims = await tdb.db.query<{ holder: string }>("select holder from ledger_claims where action = 'publish_qiita' and target = 'race-claim'");
    expect(claims.rows).toEqual([{ holder: winner }]);
    expect(await countEvents(tdb.db, "claimed")).toBe(1);
  });

  it(`keeps exactly one of ${RACERS} simultaneous records of one claimed key: the holder's; the 49 others are refused`, async () => {
    const holder = clients[7]!;
    const claimed = (await holder.client.callTool({ name: "ledger_claim", arguments: { action: "deploy_prod", target: "race-record" } })) as CallToolResult;
    expect(claimed.isError, textOf(claimed)).toBeFalsy();
    const results = await callAll("ledger_record", (agent) => ({ action: "deploy_prod", target: "race-record", evidence: `https://ci.example/${agent}` }));
    const winners = results.filter((r) => !r.result.isError);
    expect(winners.map((w) => w.agent)).toEqual([holder.name]);
    const refusals = results.filter((r) => r.result.isError);
    expect(refusals).toHaveLength(RACERS - 1);
    for (const r of refusals) {
      // Before the holder's record: its claim; after it: the record.
      expect(textOf(r.result)).toMatch(
        new RegExp(
          `^Refused: (deploy_prod for "race-record" is claimed by ${holder.name} until .*; only ${holder.name} may record it|` +
            `a second record of the same action is not allowed\\. deploy_prod for "race-record" was executed by ${holder.name} .* Evidence: https://ci\\.example/${holder.name}\\.)`,
        ),
      );
    }
    const rows = await tdb.db.query<{ actor: string }>("select actor from ledger_events where kind = 'executed' and action = 'deploy_prod' and target = 'race-record'");
    expect(rows.rows).toEqual([{ actor: holder.name }]);
  });

  it("appends 1,000 claims and their records on distinct keys from 10 agents at once, with an intact chain", async () => {
    const before = await countEvents(tdb.db);
    const agents = clients.slice(0, 10);
    const lanesPerAgent = 4;
    const perAgent = 100;
    const failures: string[] = [];
    await Promise.all(
      agents.flatMap(({ name, client }) =>
        Array.from({ length: lanesPerAgent }, async (_, lane) => {
          for (let i = lane; i < perAgent; i += lanesPerAgent) {
            const key = { action: "publish_post", target: `${name}/post-${i}` };
            for (const [tool, args] of [["ledger_claim", key], ["ledger_record", { ...key, evidence: `https://blog.example/${name}/${i}` }]] as const) {
              const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
              if (result.isError) failures.push(textOf(result));
            }
          }
        }),
      ),
    );
    expect(failures).toEqual([]);
    expect(await countEvents(tdb.db)).toBe(before + 2000);
    const perActor = await tdb.db.query<{ actor: string; n: number }>(
      "select actor, count(*)::int as n from ledger_events where action = 'publish_post' and kind = 'executed' group by actor order by actor",
    );
    expect(perActor.rows).toEqual(agents.map((a) => ({ actor: a.name, n: perAgent })));
    const report = await verifyLedger(tdb.db);
    expect(report).toMatchObject({ ok: true, rows: before + 2000, lastSeq: before + 2000 });
  });
});
