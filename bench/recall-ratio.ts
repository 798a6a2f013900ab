// memory_recall calls/s ÷ whoami calls/s with 16 clients, end to end (real
// MCP clients over HTTP, the real service), with recall's statement planned
// on every call (as before migration 000017) and through am_recall's kept
// generic plan, in one run:
//   node --no-warnings --import tsx bench/recall-ratio.ts [--facts 100000] [--calls 2000] [--rounds 3] [--keywords both|rare|ja]
// Loads the benchmark corpus straight into a fresh database (as
// bench/recall-sql.ts does), starts one service, and alternates rounds of
// whoami, recall "planned" and recall "kept". For "planned", am_recall is
// replaced by a version without its SET clauses whose body runs the same
// statement with EXECUTE (a custom plan on every call); "kept" restores the
// migration's definition. Recall keywords alternate between the rare word and
// a Japanese keyword (167 hits at 100,000), like the facts section.
import { parseArgs } from "node:util";
import { createAgent, issueToken } from "../src/auth/store.js";
import { migrate } from "../src/db/migrate.js";
import { openPostgres } from "../src/db/postgres.js";
import { RECALL } from "../src/facts/recall-sql.js";
import { call, connect, timeConcurrent } from "./lib/clients.js";
import { area, RARE_WORD } from "./lib/corpus.js";
import { insertCorpus } from "./lib/load-facts.js";
import { createDatabase, startBenchService } from "./lib/service.js";
import { printTable } from "./lib/table.js";

const { values } = parseArgs({ options: { facts: { type: "string", default: "100000" }, calls: { type: "string", default: "2000" }, rounds: { type: "string", default: "3" }, keywords: { type: "string", default: "both" } } });
const total = Number(values.facts);
const calls = Number(values.calls);
const rounds = Number(values.rounds);
const baseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const database = await createDatabase(baseUrl, `am_recall_ratio_${process.pid}`);
const db = openPostgres({ connectionString: database.url, poolMax: 2, connectTimeoutMs: 5000, statementTimeoutMs: 600_000, lockTimeoutMs: 3000 });
let service: Awaited<ReturnType<typeof startBenchService>> | undefined;
try {
  await migrate(db);
  // am_recall as the migrations left it (its arguments changed with 000035 and
  // 000039): RECALL takes the same parameters, in the same order.
  const fn = (
    await db.query<{ signature: string; args: number; result: string; def: string }>(
      "select oid::regprocedure::text as signature, pronargs as args, pg_get_function_result(oid) as result, pg_get_functiondef(oid) as def from pg_proc where proname = 'am_recall'",
    )
  ).rows;
  if (fn.length !== 1) throw new Error(`expected one am_recall, found ${fn.length}`);
  const { signature, args, result, def: kept } = fn[0]!;
  const using = Array.from({ length: args }, (_, i) => `$${i + 1}`).join(", ");
  const planned = `create or replace function ${signature} returns ${result} language plpgsql as $planned$
begin
  return query execute 'select to_json(r) from (' || $sql$${RECALL}$sql$ || ') r' using ${using};
end $planned$`;
  await createAgent(db, { name: "ratio-writer", kind: "agent", writeScopes: ["shared", "team-a", "team-b"] });
  const token = (await issueToken(db, "ratio-writer", null)).token;
  const author = (await db.query<{ id: number }>("select id from agents where name = 'ratio-writer'")).rows[0]!.id;
  console.log(`Loading ${total.toLocaleString("en-US")} facts…`);
  await insertCorpus(db, total, author);
  service = await startBenchService(database.url, { DB_POOL_MAX: "20" });
  const clients = await Promise.all(Array.from({ length: 16 }, () => connect(service!.mcpUrl, token)));
  // --keywords rare | ja | both (alternating, the default)
  const pick = (i: number) => (values.keywords === "rare" ? RARE_WORD : values.keywords === "ja" ? area("ja", i % 200) : i % 2 ? RARE_WORD : area("ja", i % 200));
  const recall = (cl: Parameters<typeof call>[0], i: number) => call(cl, "memory_recall", { keywords: [pick(i)] });
  const rate = { whoami: [] as number[], planned: [] as number[], kept: [] as number[] };
  await timeConcurrent(clients, Math.min(calls, 500), (cl) => call(cl, "whoami"));
  for (let r = 0; r < rounds; r++) {
    rate.whoami.push((await timeConcurrent(clients, calls, (cl) => call(cl, "whoami"))).perSecond);
    await db.query(planned);
    await timeConcurrent(clients, 64, recall);
    rate.planned.push((await timeConcurrent(clients, calls, recall)).perSecond);
    await db.query(kept);
    await timeConcurrent(clients, 64, recall);
    rate.kept.push((await timeConcurrent(clients, calls, recall)).perSecond);
  }
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
  const w = median(rate.whoami);
  printTable(
    `16 clients at ${total.toLocaleString("en-US")} facts, keywords ${values.keywords}, ${calls} calls a round, ${rounds} rounds alternating (median calls/s)`,
    ["tool", "calls/s", "÷ whoami", "rounds"],
    [
      ["whoami", w, 1, rate.whoami.map((x) => x.toFixed(0)).join(" / ")],
      ["memory_recall, planned every call", median(rate.planned), median(rate.planned) / w, rate.planned.map((x) => x.toFixed(0)).join(" / ")],
      ["memory_recall, am_recall (kept plan)", median(rate.kept), median(rate.kept) / w, rate.kept.map((x) => x.toFixed(0)).join(" / ")],
    ],
  );
  await Promise.all(clients.map((c) => c.close()));
} finally {
  await service?.stop();
  await db.close();
  await database.drop();
}
