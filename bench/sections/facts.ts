// Facts at scale: N facts (three scopes, English/Japanese/Korean), the last
// 10,000 of them stored through memory_store by 16 clients of 4 agents (its
// throughput), then recall, store, promote and get timed, and recall's plan
// shown to use the trigram and word indexes.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import pg from "pg";
import { openPostgres } from "../../src/db/postgres/postgres.js";
import { factWordsParams } from "../../src/facts/cjk-words.js";
import { call, connect, timeBeside, timeConcurrent, timeSequential, type Throughput } from "../lib/clients.js";
import type { BenchContext } from "../lib/context.js";
import { ABSENT_WORD, area, areaAsWritten, COMMON_JA, COMMON_KO, distinctFact, generateFact, RARE_JA, RARE_KO, RARE_WORD, TYPO_WORD } from "../lib/corpus.js";
import { insertCorpus } from "../lib/load-facts.js";
import { secretGuardCost } from "../lib/secret-cost.js";
import { startBenchService } from "../lib/service.js";
import { type Summary, summarize } from "../lib/stats.js";
import { printTable } from "../lib/table.js";
import { FACT_TABLES, vacuumAnalyze } from "../lib/vacuum.js";

/** What splitting a store's CJK text into words costs in the service's process (cjk-words.ts), per fact. */
function cjkWordsCost(total: number): string {
  const per = (make: (i: number) => { name: string; description: string; body: string }, count: number) => {
    const facts = Array.from({ length: count }, (_, i) => make(i));
    const t0 = performance.now();
    for (const f of facts) factWordsParams(f.name, f.description, f.body);
    return (performance.now() - t0) / count;
  };
  const ja = per((i) => generateFact(i * 3 + 1, total), 1000);
  const ko = per((i) => generateFact(i * 3 + 2, total), 1000);
  const en = per((i) => generateFact(i * 3, total), 1000);
  const long = (lang: "ja" | "ko") => {
    const f = generateFact(lang === "ja" ? 1 : 2, total);
    return { name: f.name, description: f.description, body: f.body.repeat(Math.ceil(4000 / f.body.length)).slice(0, 4000) };
  };
  const jaLong = per(() => long("ja"), 50);
  const koLong = per(() => long("ko"), 50);
  return (
    `CJK words of a stored fact, in the service: Japanese ${ja.toFixed(3)} ms, Korean ${ko.toFixed(3)} ms per corpus fact (${generateFact(1, total).body.length} and ${generateFact(2, total).body.length}-character bodies), ` +
    `English ${en.toFixed(4)} ms (no CJK text: nothing to split); a 4,000-character body: Japanese ${jaLong.toFixed(2)} ms, Korean ${koLong.toFixed(2)} ms.`
  );
}

/** The corpus's last facts, stored through memory_store: enough for its throughput at the corpus's size. */
const STORED_FACTS = 10_000;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await work();
  return performance.now() - t0;
}

export async function benchFacts(ctx: BenchContext): Promise<void> {
  const total = ctx.factsCount;
  const [a, b, c, d] = ctx.agents.writers as [typeof ctx.agents.writers[0], typeof ctx.agents.writers[0], typeof ctx.agents.writers[0], typeof ctx.agents.writers[0]];
  const writerFor = (scope: string, i: number) => (scope === "team-a" ? [a, c] : scope === "team-b" ? [b, c] : [a, b, c, d])[i % (scope === "shared" ? 4 : 2)]!;
  const clientsByAgent = new Map<string, Client[]>();
  // The load goes through a second service process on the same database with the
  // duplicate check off: the corpus is generated from one template, so with the
  // check every store is a look-alike of thousands and meets its time bound
  // (FACT_DUPLICATE_TIMEOUT_MS), which would make the load measure that bound.
  // The check's cost is measured on its own below, both ways on the same facts.
  const noCheck = await startBenchService(ctx.service.databaseUrl, { DB_POOL_MAX: "20", FACT_DUPLICATE_WARNING: "false" });
  for (const w of [a, b, c, d]) clientsByAgent.set(w.name, await Promise.all(Array.from({ length: 4 }, () => connect(noCheck.mcpUrl, w.token))));

  // The corpus's first facts written straight into the database (load-facts.ts):
  // stored one by one they were most of the run's time, and what the figures
  // below need is the size, not how it was reached. The last STORED_FACTS go
  // through memory_store, from 16 workers (4 per agent), each taking the next
  // fact whose scope its agent may write: the store throughput at this size.
  const stored = Math.min(total, STORED_FACTS);
  const direct = openPostgres({ connectionString: ctx.service.databaseUrl, poolMax: 1, connectTimeoutMs: 5000, statementTimeoutMs: 600_000, lockTimeoutMs: 10_000 });
  try {
    const author = await direct.query<{ id: string }>("select id from agents where name = $1", [c.name]);
    ctx.log(`\nWriting facts 1-${(total - stored).toLocaleString("en-US")} of ${total.toLocaleString("en-US")} straight into the database…`);
    await insertCorpus(direct, total, Number(author.rows[0]!.id), { count: total - stored });
  } finally {
    await direct.close();
  }
  ctx.log(`Storing the last ${stored.toLocaleString("en-US")} through memory_store (16 clients; duplicate check off for the load)…`);
  const t0 = performance.now();
  let next = total - stored;
  let lastReport = t0;
  const store = async (i: number) => {
    const f = generateFact(i, total);
    const w = writerFor(f.scope, i);
    const pool = clientsByAgent.get(w.name)!;
    await call(pool[i % pool.length]!, "memory_store", { name: f.name, description: f.description, type: f.type, body: f.body, scope: f.scope });
  };
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        await store(i);
        if (process.stderr.isTTY && performance.now() - lastReport > 2000) {
          lastReport = performance.now();
          process.stderr.write(`\r  ${i.toLocaleString("en-US")} / ${total.toLocaleString("en-US")}`);
        }
      }
    }),
  );
  if (process.stderr.isTTY) process.stderr.write("\r");
  const loadSeconds = (performance.now() - t0) / 1000;
  ctx.log(`Stored in ${loadSeconds.toFixed(1)} s (${Math.round(stored / loadSeconds)} stores/s). VACUUM ANALYZE of the tables the load wrote (what autovacuum does after a bulk load)…`);
  const admin = new pg.Client({ connectionString: ctx.service.databaseUrl });
  // If this section fails, the run drops the database under this connection: its
  // end must not crash the process and hide the section's own error.
  admin.on("error", () => undefined);
  await admin.connect();
  // Every table the load wrote: left to autovacuum, the 100,000 rows of
  // fact_versions and fact_events, and the vocabulary the facts written straight
  // in grew within a minute, were vacuumed while the figures below (and the
  // next sections') were measured, on the same two cores.
  await vacuumAnalyze(admin, FACT_TABLES);

  const reader = await connect(ctx.service.mcpUrl, c.token); // reads shared, team-a, team-b
  const n = ctx.quick ? 40 : 500;
  const recall = (keywords: string[]) => () => call(reader, "memory_recall", { keywords });
  const hitsOf = async (keywords: string[]) => ((await call(reader, "memory_recall", { keywords })).structuredContent as { total: number }).total;
  const keywordSets: Array<[string, string[]]> = [
    [`rare keyword (${RARE_WORD})`, [RARE_WORD]],
    [`no match (${ABSENT_WORD})`, [ABSENT_WORD]],
    // A typo of the rare word: nothing matches as written or by words, so recall looks for near matches.
    [`typo (${TYPO_WORD})`, [TYPO_WORD]],
    // CJK keywords stay out of the labels: they would break the table's alignment.
    ["Japanese keyword", [area("ja", 3)]],
    ["Korean keyword", [area("ko", 5)]],
    ["Japanese words with a particle", [areaAsWritten("ja", 3)]],
    ["Korean words with a particle", [areaAsWritten("ko", 5)]],
    // One or two characters: no trigram of their own.
    ["Japanese rare, two characters", [RARE_JA]],
    ["Korean rare, two characters", [RARE_KO]],
    ["Japanese common, two characters", [COMMON_JA]],
    ["Korean common, two characters", [COMMON_KO]],
    // As people conjugate and ask: the corpus says 変更する前に / 변경 전에는 … 실행한다.
    ["Japanese conjugated (shite mo)", [`${area("ja", 3)}を変更しても`]],
    ["Korean conjugated (haedo)", [`${area("ko", 5)}를 변경해도`]],
    ["Japanese question (masu ka)", [`${area("ja", 3)}を変更する前に何を実行しますか？`]],
    ["Korean question (doenayo)", [`${area("ko", 5)}를 변경해도 되나요?`]],
    ["three keywords", [area("en", 1), area("en", 2), area("en", 3)]],
  ];
  const latency: Record<string, Summary & { hits: number }> = {};
  // whoami from the same client, in blocks alternating with each recall's (timeBeside).
  const beside: number[] = [];
  const besideP50: Record<string, number> = {};
  const whoami = () => call(reader, "whoami");
  await timeSequential(reader, Math.min(50, n), whoami);
  for (const [label, keywords] of keywordSets) {
    const t0 = performance.now();
    const hits = await hitsOf(keywords);
    // A recall that takes a large part of a second (a keyword that rechecks every
    // fact) is timed fewer times: its figure is clear, and 500 of them would take minutes.
    const calls = performance.now() - t0 > 100 ? Math.min(n, 30) : n;
    const samples = await timeBeside(reader, calls, recall(keywords));
    beside.push(...samples.whoami);
    besideP50[`memory_recall: ${label}`] = summarize(samples.whoami).p50;
    latency[`memory_recall: ${label}`] = { ...summarize(samples.call), hits };
  }
  latency["whoami, alternating with the recalls above"] = { ...summarize(beside), hits: 0 };

  // Writes and reads of single facts, sequentially from one client each.
  // memory_store (new) with and without the duplicate check, side by side: the
  // same stores through a second service process on the same database with
  // FACT_DUPLICATE_WARNING=false, interleaved in blocks so both see the same load.
  const readerNoCheck = await connect(noCheck.mcpUrl, c.token);
  // Each new fact says something new: a name and a one-line description drawn
  // from a few hundred words of the team's own technical vocabulary (which the
  // corpus uses too), picked by the fact's number, so that no two say the same.
  // (Until 2026-12-01 the notes were "Note <n>:" and five of 36 words: after a
  // few hundred of them each new one was 0.85-0.92 similar to dozens of earlier
  // ones, a duplicate by the service's own measure, so "new" measured the
  // many-near-copies case. That case keeps its own row below.)
  let newSimilar = 0;
  const newFact = async (client: Client, n: number, series: "with" | "without" | "warm") => {
    const f = distinctFact(n + { with: 0, without: 1_000_000, warm: 2_000_000 }[series]);
    const r = await call(client, "memory_store", { ...f, type: "project", body: "Why: measuring. How to apply: ignore.", scope: "team-a" });
    if (series === "with") newSimilar += ((r.structuredContent as { similar?: unknown[] }).similar ?? []).length;
  };
  await timeSequential(readerNoCheck, Math.min(50, n), (i) => newFact(readerNoCheck, i, "warm"));
  // A new Japanese fact, worded like the corpus's (a body of about 250
  // characters): what splitting CJK text into words adds to a store shows here
  // against the same row of another build (--service-cli).
  const newJapaneseFact = (i: number) => {
    const like = generateFact(i * 3 + 1, total);
    return call(readerNoCheck, "memory_store", { name: `bench-ja-${i}`, description: like.description, type: "project", body: like.body, scope: "team-a" });
  };
  const samples = { with: [] as number[], without: [] as number[], japanese: [] as number[] };
  const block = Math.max(10, Math.floor(n / 10));
  for (let done = 0; done < n; done += block) {
    for (let i = done; i < Math.min(n, done + block); i++) samples.with.push(await timed(() => newFact(reader, i, "with")));
    for (let i = done; i < Math.min(n, done + block); i++) samples.without.push(await timed(() => newFact(readerNoCheck, i, "without")));
    for (let i = done; i < Math.min(n, done + block); i++) samples.japanese.push(await timed(() => newJapaneseFact(i)));
  }
  latency["memory_store (new)"] = { ...summarize(samples.with), hits: 0 };
  latency["memory_store (new), check off"] = { ...summarize(samples.without), hits: 0 };
  latency["memory_store (new) Japanese, check off"] = { ...summarize(samples.japanese), hits: 0 };
  ctx.log(cjkWordsCost(total));
  ctx.log(await secretGuardCost(total));
  // A new fact much like hundreds of stored ones (the corpus is templated): the
  // check's cost when there is something to warn about.
  let similarFound = 0;
  latency["memory_store (new), look-alikes"] = {
    ...(await timeSequential(reader, Math.min(n, 100), async (i) => {
      const like = generateFact(i * 3, total);
      const r = await call(reader, "memory_store", { name: `bench-like-${i}`, description: like.description, type: "project", body: "Why: measuring. How to apply: ignore.", scope: "team-a" });
      similarFound += ((r.structuredContent as { similar?: unknown[] }).similar ?? []).length;
    })),
    hits: 0,
  };
  // New notes that are near-copies of dozens of earlier ones (the generator used
  // before 2026-12-01): the check's cost when the trigram lookup has many
  // candidates to compare and much to warn about.
  let nearSimilar = 0;
  latency["memory_store (new), near-copies"] = {
    ...(await timeSequential(reader, n, async (i) => {
      const words = [0, 1, 2, 3, 4].map((k) => NOTE_WORDS[(Math.imul((i + 1) * 31 + k, 2654435761) >>> 0) % NOTE_WORDS.length]).join(" ");
      const r = await call(reader, "memory_store", { name: `bench-near-${i}`, description: `Note ${i}: ${words}`, type: "project", body: "Why: measuring. How to apply: ignore.", scope: "team-a" });
      nearSimilar += ((r.structuredContent as { similar?: unknown[] }).similar ?? []).length;
    })),
    hits: 0,
  };
  await readerNoCheck.close();
  for (const pool of clientsByAgent.values()) await Promise.all(pool.map((p) => p.close()));
  await noCheck.stop();
  const checkCost = latency["memory_store (new)"]!.p50 - latency["memory_store (new), check off"]!.p50;
  const nearCost = latency["memory_store (new), near-copies"]!.p50 - latency["memory_store (new), check off"]!.p50;
  ctx.log(
    `Duplicate check at ${total.toLocaleString("en-US")} facts: memory_store (new) p50 ${checkCost >= 0 ? "+" : ""}${checkCost.toFixed(2)} ms with the check (target ≤ +1 ms; ` +
      `its ${n} new facts listed ${newSimilar} similar facts in all); near-copies ${nearCost >= 0 ? "+" : ""}${nearCost.toFixed(2)} ms (listed ${(nearSimilar / n).toFixed(1)} similar each); ` +
      `look-alike stores listed ${similarFound} similar facts in all.`,
  );
  let k = 0;
  latency["memory_store (update)"] = { ...(await timeSequential(reader, n, () => call(reader, "memory_store", { name: distinctFact(k++).name, description: "A new fact stored by the benchmark, second version", type: "project", body: "Why: measuring updates. How to apply: ignore.", scope: "team-a", version: 1 }))), hits: 0 };
  const reviewer = await connect(ctx.service.mcpUrl, ctx.agents.reviewer.token);
  k = 0;
  latency["memory_promote"] = { ...(await timeSequential(reviewer, n, () => call(reviewer, "memory_promote", { name: distinctFact(k++).name, scope: "team-a", to: "confirmed", reason: "benchmark review" }))), hits: 0 };
  k = 0;
  latency["memory_get"] = { ...(await timeSequential(reader, n, () => call(reader, "memory_get", { name: generateFact((k++ * 7919) % total, total).name }))), hits: 0 };

  const floor = ctx.floor?.p50 ?? NaN;
  printTable(
    `Facts at ${total.toLocaleString("en-US")} (ms, sequential, one client)`,
    ["call", "hits", "p50", "p95", "p99", "p50 ÷ floor", "p50 ÷ whoami beside"],
    Object.entries(latency).map(([label, s]) => [
      label,
      label.startsWith("memory_recall") ? String(s.hits) : "",
      s.p50,
      s.p95,
      s.p99,
      s.p50 / floor,
      besideP50[label] === undefined ? "" : (s.p50 / besideP50[label]!).toFixed(2),
    ]),
  );

  // Recall throughput with the rare keyword (a realistic, selective search).
  const throughput: Throughput[] = [];
  for (const clients of [1, 4, 16]) {
    const pool = await Promise.all(Array.from({ length: clients }, () => connect(ctx.service.mcpUrl, c.token)));
    throughput.push(await timeConcurrent(pool, ctx.quick ? 200 : 4000, (cl, i) => call(cl, "memory_recall", { keywords: [i % 2 ? RARE_WORD : area("ja", i % 200)] })));
    await Promise.all(pool.map((p) => p.close()));
  }
  printTable(
    "memory_recall throughput",
    ["clients", "calls/s", "p50 ms", "p99 ms", "whoami calls/s", "ratio"],
    throughput.map((t) => [String(t.clients), t.perSecond, t.latency.p50, t.latency.p99, ctx.floor?.perSecond[t.clients] ?? NaN, t.perSecond / (ctx.floor?.perSecond[t.clients] ?? NaN)]),
  );

  await admin.end();

  await reader.close();
  await reviewer.close();
  ctx.results.facts = { total, whoamiBesideRecallP50: besideP50, duplicateCheckP50Ms: checkCost, newSimilarListed: newSimilar, nearCopiesCheckP50Ms: nearCost, nearCopiesSimilarListed: nearSimilar, lookAlikeSimilarListed: similarFound, keywords: Object.fromEntries(keywordSets), loadSeconds, storesPerSecond: stored / loadSeconds, latency, throughput };
}


// Words of the near-copy notes: five of these after "Note <n>:".
const NOTE_WORDS = (
  "amber basil cedar dahlia ember fjord garnet hazel indigo jasper kelp lilac maple nectar onyx pepper quartz " +
  "raven saffron thyme umber violet walnut xenon yarrow zinnia acorn bramble clover dune fennel glacier heron iris juniper"
).split(" ");
