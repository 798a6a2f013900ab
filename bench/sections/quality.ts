// Recall quality: the labelled set of bench/recall-quality/set.ts in a database
// of its own, searched by a plain substring recall (the baseline,
// bench/recall-quality/substring-baseline.ts) and by the service's, side by side in one run: hit@1, hit@5 and MRR (over the first
// 10 hits) per class of query. docs/recall.md describes the set.
import type { Caller } from "../../src/auth/caller.js";
import { checkToken } from "../../src/auth/verifier.js";
import { createAgent, issueToken } from "../../src/auth/store.js";
import { migrate } from "../../src/db/schema/migrate.js";
import { openPostgres } from "../../src/db/postgres/postgres.js";
import { recallFacts } from "../../src/facts/recall/recall.js";
import { promoteFact } from "../../src/facts/review/promote.js";
import { storeFact } from "../../src/facts/lifecycle/store.js";
import type { Database } from "../../src/db/core/database.js";
import type { BenchContext } from "../lib/context.js";
import { createDatabase } from "../lib/service.js";
import { printTable } from "../lib/table.js";
import { SUBSTRING_RECALL, substringPatterns } from "../recall-quality/substring-baseline.js";
import { FACTS, QUERIES, type QualityFact, type QueryClass, RANKING } from "../recall-quality/set.js";

const LIMITS = { bodyMaxChars: 16_000 };
const SCOPE = "quality";
const CLASSES: QueryClass[] = ["exact", "inflection", "multi-word", "typo", "cjk", "cjk-natural", "question", "ranking", "synonym"];
const TARGETS: Record<QueryClass, string> = {
  exact: "100%",
  inflection: "≥ 90%",
  "multi-word": "≥ 90%",
  typo: "≥ 75%",
  cjk: "100%",
  "cjk-natural": "≥ 90%",
  question: "≥ 90%",
  ranking: "100%",
  synonym: "(none)",
};

interface Scored {
  class: QueryClass;
  keywords: string[];
  expect: string[];
  substring: string[];
  now: string[];
}

async function callerFor(db: Database, name: string, kind: "agent" | "human", scopes: string[]): Promise<Caller> {
  await createAgent(db, { name, kind, writeScopes: scopes });
  const check = await checkToken(db, (await issueToken(db, name, null)).token);
  if (!check.ok) throw new Error(`token for ${name} refused`);
  return check.caller;
}

async function put(db: Database, writer: Caller, reviewer: Caller, f: QualityFact, scope: string, status?: "confirmed" | "deprecated") {
  await storeFact(db, writer, { name: f.name, description: f.description, body: f.body, type: "project", scope }, LIMITS);
  const to = status ?? f.status;
  if (to) await promoteFact(db, reviewer, { name: f.name, scope, to, reason: to === "confirmed" ? "checked" : "replaced" });
}

/** 1-based rank of the first expected fact among the first 10 hits, or 0. */
const rankOf = (names: string[], expect: string[]) => names.findIndex((n) => expect.includes(n)) + 1;

export async function benchQuality(ctx: BenchContext): Promise<void> {
  const copies = ctx.quick ? 5 : 20;
  const database = await createDatabase(ctx.service.databaseUrl, `am_quality_${process.pid}`);
  const db = openPostgres({ connectionString: database.url, poolMax: 2, connectTimeoutMs: 5000, statementTimeoutMs: 30_000, lockTimeoutMs: 3000 });
  try {
    await migrate(db);
    const rankScopes = RANKING.map((_, i) => `rank-${i}`);
    const writer = await callerFor(db, "quality-writer", "agent", [SCOPE, ...rankScopes]);
    const reviewer = await callerFor(db, "quality-reviewer", "human", [SCOPE, ...rankScopes]);
    for (const f of FACTS) await put(db, writer, reviewer, f, SCOPE);
    // Ranking: the best fact first (oldest, a draft), then many newer confirmed partial matches.
    for (const [i, c] of RANKING.entries()) {
      await put(db, writer, reviewer, c.best, rankScopes[i]!);
      for (let k = 0; k < copies; k++) {
        for (const [j, description] of c.partials.entries()) {
          await put(db, writer, reviewer, { name: `partial-${j}-${k}`, description, body: "Nothing more." }, rankScopes[i]!, "confirmed");
        }
      }
    }
    await db.query("vacuum analyze facts");

    const queries = [
      ...QUERIES.map((q) => ({ ...q, scope: SCOPE })),
      ...RANKING.map((c, i) => ({ class: "ranking" as const, lang: c.lang, keywords: c.keywords, expect: [c.best.name], scope: rankScopes[i]! })),
    ];
    const scored: Scored[] = [];
    for (const q of queries) {
      const now = (await recallFacts(db, writer, { keywords: q.keywords, scope: q.scope, limit: 10 })).hits.map((h) => h.name);
      const substring = (await db.query<{ name: string }>(SUBSTRING_RECALL, [substringPatterns(q.keywords), false, [q.scope], null, null, q.scope, 10])).rows.map((r) => r.name);
      scored.push({ class: q.class, keywords: q.keywords, expect: q.expect, substring, now });
    }

    const figures: Record<string, unknown> = {};
    const pct = (x: number) => `${Math.round(x * 100)}%`;
    const rows = CLASSES.map((cls) => {
      const qs = scored.filter((s) => s.class === cls);
      const m = (pick: (s: Scored) => string[]) => {
        const ranks = qs.map((s) => rankOf(pick(s), s.expect));
        return {
          hit1: ranks.filter((r) => r === 1).length / qs.length,
          hit5: ranks.filter((r) => r >= 1 && r <= 5).length / qs.length,
          mrr: ranks.reduce((a, r) => a + (r ? 1 / r : 0), 0) / qs.length,
        };
      };
      const baseline = m((s) => s.substring);
      const recall = m((s) => s.now);
      figures[cls] = { queries: qs.length, substring: baseline, recall, target: TARGETS[cls] };
      return [cls + (cls === "synonym" ? " (meaning only)" : ""), String(qs.length), pct(baseline.hit5), pct(recall.hit5), pct(recall.hit1), baseline.mrr, recall.mrr, TARGETS[cls]];
    });
    printTable(
      `Recall quality: ${FACTS.length} facts + ${RANKING.length} ranking sets of ${1 + copies * 3} facts; substring = a plain substring recall (the baseline)`,
      ["class", "queries", "hit@5 substring", "hit@5 recall", "hit@1 recall", "MRR substring", "MRR recall", "target hit@5"],
      rows,
    );
    const misses = scored.filter((s) => {
      const r = rankOf(s.now, s.expect);
      return s.class !== "synonym" && (r === 0 || r > 5);
    });
    ctx.log(
      misses.length === 0
        ? "\nEvery query outside the synonym class finds its fact in the top 5."
        : `\nMisses (not in the top 5):\n${misses.map((s) => `  ${s.class}: ${JSON.stringify(s.keywords)} → ${JSON.stringify(s.now.slice(0, 5))} (wanted ${s.expect.join(" or ")})`).join("\n")}`,
    );
    ctx.results.quality = { copies, figures, queries: scored };
  } finally {
    await db.close();
    await database.drop();
  }
}
