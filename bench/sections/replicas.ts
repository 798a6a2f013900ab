// Replicas (not in the default set: it makes its own clusters, ~1 minute): a
// primary and a streaming standby made like the tests make them
// (test/support/clusters.ts), with
// - recall and search_nodes p50 through a service reading from the standby
//   (DATABASE_READ_URL) beside one reading from the primary, rounds alternated;
// - the routing check's cost: the choice per read call (in memory), and the
//   write-position record each write call adds (one round trip on the primary);
// - a failover: a synchronous standby promoted after the primary's immediate
//   stop, with a client storing facts through a multi-host DATABASE_URL: the
//   time from the promotion to the first acknowledged write, and every
//   acknowledged write present on the new primary.
import { migrate } from "../../src/db/schema/migrate.js";
import { openPostgres } from "../../src/db/postgres/postgres.js";
import { ReadRouter } from "../../src/db/postgres/read-router.js";
import { createAgent, issueToken } from "../../src/auth/store.js";
import { createPair } from "../../test/support/clusters.js";
import { call, connect, timeSequential } from "../lib/clients.js";
import type { BenchContext } from "../lib/context.js";
import { area, generateFact, RARE_WORD } from "../lib/corpus.js";
import { startBenchService } from "../lib/service.js";
import { summarize } from "../lib/stats.js";
import { printTable } from "../lib/table.js";

const TIMEOUTS = { statementTimeoutMs: 30_000, lockTimeoutMs: 10_000 };

export async function benchReplicas(ctx: BenchContext): Promise<void> {
  const pair = await createPair();
  try {
    const admin = openPostgres({ ...TIMEOUTS, connectionString: pair.primary.url, poolMax: 2, connectTimeoutMs: 5000 });
    await migrate(admin);
    const readerId = (await createAgent(admin, { name: "bench-replica-reader", kind: "agent", writeScopes: ["shared"] })).id;
    const token = (await issueToken(admin, "bench-replica-reader", null)).token;

    const services = {
      primary: await startBenchService(pair.primary.url, {}),
      replica: await startBenchService(pair.primary.url, { DATABASE_READ_URL: pair.standby.url }),
    };
    try {
      const facts = ctx.quick ? 500 : 5000;
      const loader = await connect(services.primary.mcpUrl, token);
      for (let i = 0; i < facts; i++) {
        const f = generateFact(i, facts);
        await call(loader, "memory_store", { name: f.name, description: f.description, type: f.type, body: f.body });
        if (i % 10 === 0) await call(loader, "create_entities", { entities: [{ name: `${f.name}-entity`, entityType: f.type, observations: [f.description] }] });
      }
      await loader.close();
      await pair.primary.query("analyze");
      const lsn = (await pair.primary.query<{ lsn: string }>("select pg_current_wal_lsn()::text as lsn"))[0]!.lsn;
      for (;;) {
        if ((await pair.standby.query<{ ok: boolean }>("select pg_last_wal_replay_lsn() >= $1::pg_lsn as ok", [lsn]))[0]!.ok) break;
        await new Promise((r) => setTimeout(r, 100));
      }

      const clients = { primary: await connect(services.primary.mcpUrl, token), replica: await connect(services.replica.mcpUrl, token) };
      const reads = {
        memory_recall: (i: number) => ({ keywords: [i % 2 ? RARE_WORD : area("en", i % 200)] }),
        search_nodes: (i: number) => ({ query: area("en", i % 200) }),
      };
      const rounds = ctx.quick ? 3 : 6;
      const perRound = ctx.quick ? 100 : 300;
      const p50s: Record<string, number[]> = {};
      for (let r = 0; r <= rounds; r++) {
        for (const target of ["primary", "replica"] as const) {
          for (const [tool, args] of Object.entries(reads)) {
            const t = await timeSequential(clients[target], perRound, (i) => call(clients[target], tool, args(i)));
            if (r > 0) (p50s[`${tool} ${target}`] ??= []).push(t.p50);
          }
        }
      }
      const metrics = await (await fetch(services.replica.mcpUrl.replace(/\/mcp$/, "/metrics"))).text();
      const onReplica = Number(/^agent_memory_db_reads_total\{target="replica"\} (\d+)/m.exec(metrics)?.[1] ?? 0);
      await Promise.all(Object.values(clients).map((c) => c.close()));
      const readRows = Object.keys(reads).map((tool) => [tool, summarize(p50s[`${tool} primary`]!).p50, summarize(p50s[`${tool} replica`]!).p50]);
      printTable(`Reads: sequential p50 (median of ${rounds} rounds of ${perRound}), primary only vs DATABASE_READ_URL; ${onReplica} reads ran on the replica`, ["tool", "primary ms", "replica ms"], readRows);

      // The routing check, in process: the choice a read call makes, and the record a write call adds.
      const replicaDb = openPostgres({ ...TIMEOUTS, connectionString: pair.standby.url, poolMax: 1, connectTimeoutMs: 5000 });
      const router = new ReadRouter(admin, [{ name: "standby", db: replicaDb }], 5000);
      await router.start();
      const choices = 200_000;
      const t0 = performance.now();
      let toReplica = 0;
      const agents = [{ agentId: 1 }, { agentId: 2, lastWriteLsn: "0/1" }];
      for (let i = 0; i < choices; i++) if (router.choose(agents[i % 2]!).target === "replica") toReplica++;
      const chooseMs = (performance.now() - t0) / choices;
      const noteSamples: number[] = [];
      for (let i = 0; i < (ctx.quick ? 200 : 1000); i++) {
        const s = performance.now();
        await router.noteWrite(readerId);
        noteSamples.push(performance.now() - s);
      }
      await router.close();
      const note = summarize(noteSamples);
      printTable("Routing check per call", ["part", "cost"], [
        ["read: choose a replica (in memory)", `${(chooseMs * 1000).toFixed(3)} µs (${toReplica} of ${choices} to the replica)`],
        ["write: record the agent's WAL position (p50 / p99)", `${note.p50.toFixed(3)} / ${note.p99.toFixed(3)} ms`],
      ]);

      // Failover: the standby made synchronous, a client storing facts through the host list.
      await services.primary.stop();
      await services.replica.stop();
      await pair.makeSynchronous();
      await admin.close();
      const failing = await startBenchService(pair.multiHostUrl, { DB_CONNECT_TIMEOUT_MS: "1000" });
      const acknowledged: string[] = [];
      let stopping = false;
      let firstAfter: number | undefined;
      let promotedAt = Infinity;
      const writer = await connect(failing.mcpUrl, token);
      const loop = (async () => {
        for (let i = 0; !stopping; i++) {
          const name = `failover-${i}`;
          try {
            await call(writer, "memory_store", { name, description: `written during the failover ${i}`, type: "project", body: "b" });
            acknowledged.push(name);
            if (firstAfter === undefined && Date.now() > promotedAt) firstAfter = Date.now();
          } catch {
            await new Promise((r) => setTimeout(r, 20));
          }
        }
      })();
      while (acknowledged.length < 20) await new Promise((r) => setTimeout(r, 20));
      await pair.primary.stop("immediate");
      await pair.promote();
      promotedAt = Date.now();
      while (firstAfter === undefined && Date.now() - promotedAt < 30_000) await new Promise((r) => setTimeout(r, 20));
      const afterPromotion = acknowledged.length;
      while (acknowledged.length < afterPromotion + 20 && Date.now() - promotedAt < 30_000) await new Promise((r) => setTimeout(r, 20));
      stopping = true;
      await loop;
      await writer.close();
      await failing.stop();
      const present = new Set((await pair.standby.query<{ name: string }>("select name from facts where name like 'failover-%'")).map((r) => r.name));
      const lost = acknowledged.filter((n) => !present.has(n));
      const firstSuccessMs = firstAfter === undefined ? NaN : firstAfter - promotedAt;
      printTable("Failover (synchronous standby promoted after the primary's immediate stop)", ["figure", "value"], [
        ["first acknowledged write after the promotion", `${firstSuccessMs} ms`],
        ["writes acknowledged / present on the new primary", `${acknowledged.length} / ${acknowledged.length - lost.length}`],
      ]);
      if (lost.length > 0) ctx.fail(`replicas: ${lost.length} acknowledged writes missing after the failover (${lost.slice(0, 5).join(", ")})`);
      if (!(firstSuccessMs < 15_000)) ctx.fail(`replicas: no write succeeded within 15 s of the promotion`);
      ctx.results.replicas = {
        facts,
        readsP50Ms: Object.fromEntries(readRows.map(([tool, primary, replica]) => [tool, { primary, replica }])),
        readsOnReplica: onReplica,
        routing: { chooseMicroseconds: chooseMs * 1000, noteWriteMs: { p50: note.p50, p99: note.p99 } },
        failover: { firstSuccessAfterPromotionMs: firstSuccessMs, acknowledged: acknowledged.length, lost: lost.length },
      };
    } finally {
      await services.primary.stop().catch(() => undefined);
      await services.replica.stop().catch(() => undefined);
    }
  } finally {
    await pair.destroy();
  }
}
