// Recall by meaning at the facts section's size (100,000 facts), on the
// embedded database, whose pgvector gives the approximate (HNSW) index: the
// corpus written straight in, every fact embedded through the test endpoint
// (test/support/embeddings-server.ts, 384 numbers a vector, as small sentence
// models give) as `agent-memory embeddings backfill` does, then memory_recall
// timed with the semantic leg on beside the same recall with it off: two
// services in this process on the one database, in alternating blocks.
// (Without pgvector the leg is an exact scan in SQL, bounded by the budget:
// docs/recall.md says where it stops being reasonable.)
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createAgent, issueToken } from "../../src/auth/store.js";
import { loadConfig } from "../../src/config/index.js";
import { FactEmbeddings } from "../../src/facts/index.js";
import { createLogger } from "../../src/logger.js";
import { type RunningService, startService } from "../../src/serve.js";
import { startEmbeddingsServer } from "../../test/support/embeddings-server.js";
import { call, connect } from "../lib/clients.js";
import type { BenchContext } from "../lib/context.js";
import { area, RARE_WORD } from "../lib/corpus.js";
import { insertCorpus } from "../lib/load-facts.js";
import { type Summary, summarize } from "../lib/stats.js";
import { printTable } from "../lib/table.js";

const DIMS = 384;
const MODEL = "bench-embed";

export async function benchMeaning(ctx: BenchContext): Promise<void> {
  const total = ctx.factsCount;
  const dir = await mkdtemp(join(tmpdir(), "am-bench-meaning-"));
  const server = await startEmbeddingsServer({ dims: DIMS, closeWithFile: false });
  const logger = createLogger("warn");
  // The corpus goes in 5,000 facts a statement: past the embedded database's usual 10 s bound on this machine.
  const base = { AGENT_MEMORY_DATA_DIR: dir, PORT: "0", LOG_LEVEL: "warn", FIRST_START_OWNER: "false", AUTH_FAILURES_PER_MINUTE: "0", DB_STATEMENT_TIMEOUT_MS: "600000" };
  const meaningEnv = { EMBEDDINGS_URL: server.url, EMBEDDINGS_MODEL: MODEL, EMBEDDINGS_MIN_SIMILARITY: "0.5" };
  const services: RunningService[] = [];
  const clients: Client[] = [];
  try {
    const words = await startService(loadConfig(base), { logger, print: () => undefined });
    services.push(words);
    const db = words.db;
    await createAgent(db, { name: "reader", kind: "agent", writeScopes: ["shared", "team-a", "team-b"], readScopes: [] });
    const { token } = await issueToken(db, "reader", null);
    const { id } = (await db.query<{ id: number }>("select id from agents where name = 'reader'")).rows[0]!;
    ctx.log(`\nWriting ${total.toLocaleString("en-US")} facts into an embedded database…`);
    let t0 = performance.now();
    await insertCorpus(db, total, Number(id));
    ctx.log(`Written in ${((performance.now() - t0) / 1000).toFixed(0)} s. Embedding them (${DIMS} numbers each) through the test endpoint, as \`agent-memory embeddings backfill\` does…`);
    const config = loadConfig({ ...base, ...meaningEnv });
    const queue = new FactEmbeddings(config.embeddings!, db, logger);
    const search = await queue.prepare();
    t0 = performance.now();
    const embedded = await queue.embedWaiting(AbortSignal.timeout(2 * 60 * 60_000));
    const backfillSeconds = (performance.now() - t0) / 1000;
    ctx.log(`Embedded ${embedded.toLocaleString("en-US")} facts in ${backfillSeconds.toFixed(0)} s (${Math.round(embedded / backfillSeconds)} facts/s; vectors compared: ${(await queue.prepare())}, before the first: ${search}).`);
    await db.exec("vacuum analyze fact_embeddings");

    const both = await startService(config, { logger, print: () => undefined, db });
    services.push(both);
    const [byWords, byBoth] = [await connect(words.mcpUrl, token), await connect(both.mcpUrl, token)];
    clients.push(byWords, byBoth);
    const n = ctx.quick ? 10 : 100;
    const keywordSets: Array<[string, string[]]> = [
      [`rare keyword (${RARE_WORD})`, [RARE_WORD]],
      ["Japanese keyword", [area("ja", 3)]],
      ["three keywords", [area("en", 1), area("en", 2), area("en", 3)]],
      // No fact holds it: the answer is the neighbours alone (none pass the similarity bar here).
      ["a synonym (automobile)", ["automobile"]],
    ];
    const rows: Array<[string, Summary, Summary, number, number]> = [];
    const results: Record<string, { wordsOnly: Summary; withMeaning: Summary; hitsWordsOnly: number; hitsWithMeaning: number }> = {};
    for (const [label, keywords] of keywordSets) {
      const recall = (client: Client) => call(client, "memory_recall", { keywords });
      const hits = async (client: Client) => ((await recall(client)).structuredContent as { total: number }).total;
      const [hitsWords, hitsBoth] = [await hits(byWords), await hits(byBoth)];
      const samples = { words: [] as number[], both: [] as number[] };
      const block = Math.max(5, Math.floor(n / 10));
      for (let done = 0; done < n; done += block) {
        for (const [client, into] of [[byWords, samples.words], [byBoth, samples.both]] as const) {
          for (let i = 0; i < Math.min(block, n - done); i++) {
            const t = performance.now();
            await recall(client);
            into.push(performance.now() - t);
          }
        }
      }
      const [a, b] = [summarize(samples.words), summarize(samples.both)];
      rows.push([label, a, b, hitsWords, hitsBoth]);
      results[label] = { wordsOnly: a, withMeaning: b, hitsWordsOnly: hitsWords, hitsWithMeaning: hitsBoth };
    }
    printTable(
      `memory_recall at ${total.toLocaleString("en-US")} facts on the embedded database: by words only, and with the semantic leg (pgvector HNSW, ${DIMS} dimensions) (ms, sequential)`,
      ["keywords", "words p50", "words p95", "+meaning p50", "+meaning p95", "hits", "hits +meaning"],
      rows.map(([label, a, b, h1, h2]) => [label, a.p50, a.p95, b.p50, b.p95, String(h1), String(h2)]),
    );
    ctx.results.meaning = { facts: total, dims: DIMS, search: await queue.prepare(), backfillSeconds, backfillFactsPerSecond: embedded / backfillSeconds, keywords: Object.fromEntries(keywordSets), recall: results };
  } finally {
    for (const c of clients) await c.close();
    // The service that opened the database closes it: the other first.
    for (const s of services.reverse()) await s.stop();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}
