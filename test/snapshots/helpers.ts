// Shared setup for the snapshot tests: the same agents in every database (in
// the same order, so their ids match), a memory with every kind of history,
// and reading a whole folder tree for byte-by-byte comparison.
import { createSecretGuard } from "../../src/secrets/guard.js";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Caller } from "../../src/auth/caller.js";
import { issueToken } from "../../src/auth/store.js";
import { checkToken } from "../../src/auth/verifier.js";
import type { Database, Queryable } from "../../src/db/core/database.js";
import { promoteFact } from "../../src/facts/review/promote.js";
import type { Actor } from "../../src/ledger/chain.js";
import { claimLedger, recordLedger, releaseLedger } from "../../src/ledger/store.js";
import { exportSnapshot } from "../../src/snapshots/export.js";
import { importSnapshot, type ImportOptions } from "../../src/snapshots/import.js";
import { addCaller, fact, LIMITS, store } from "../facts/helpers.js";
import { expireClaim } from "../ledger/support.js";

/** Each member with its token (the copies a backup makes must keep it working). */
export interface Team {
  writer: Caller & { token: string };
  reviewer: Caller & { token: string };
  deployer: Caller & { token: string };
}

export async function addTeam(db: Database): Promise<Team> {
  return {
    writer: await addCaller(db, "blog-writer", { scopes: ["shared", "blog"] }),
    reviewer: await addCaller(db, "reviewer", { kind: "human", scopes: ["*"] }),
    deployer: await addCaller(db, "deployer", { scopes: ["shared", "ops"] }),
  };
}

export const actor = (c: Caller): Actor => ({ agentId: c.agentId, name: c.name });

/** The team as an import created it (agents.jsonl: no tokens), each given a token now. */
export async function teamOf(db: Database): Promise<Team> {
  const member = async (name: string) => {
    const { token } = await issueToken(db, name, null);
    const check = await checkToken(db, token);
    if (!check.ok) throw new Error(`token for ${name} was refused: ${check.reason}`);
    return { ...check.caller, token };
  };
  return { writer: await member("blog-writer"), reviewer: await member("reviewer"), deployer: await member("deployer") };
}

/** Facts in two scopes with every kind of history, and ledger events of every kind. */
export async function populate(db: Database, t: Team): Promise<void> {
  // Three versions, Japanese, confirmed at the end.
  const v1 = await store(db, t.deployer, fact("deploy-needs-migrations", { description: "本番デプロイの前にマイグレーションを流す", body: "理由: 古いスキーマでは起動しない。" }));
  await store(db, t.deployer, fact("deploy-needs-migrations", { version: v1.fact.version, description: "本番デプロイの前に migrate を実行する", body: "理由: 古いスキーマでは起動しない。\n適用: `agent-memory migrate`。" }));
  await store(db, t.reviewer, fact("deploy-needs-migrations", { version: 2, type: "reference", description: "本番デプロイの前に migrate を実行する", body: "理由: 古いスキーマでは起動しない。\n適用: `agent-memory migrate` を CI で。" }));
  await promoteFact(db, t.writer, { name: "deploy-needs-migrations", to: "confirmed", reason: "CI の手順と一致することを確認した" });

  // Korean, confirmed, in the blog scope.
  await store(db, t.writer, fact("qiita-tag-limit", { scope: "blog", type: "feedback", description: "Qiita 태그는 5개까지", body: "태그를 6개 붙이면 게시에 실패한다.\n\n---\n\n게시 전에 확인할 것." }));
  await promoteFact(db, t.reviewer, { name: "qiita-tag-limit", scope: "blog", to: "confirmed", reason: "API 문서에서 확인" });

  // Deprecated straight from draft, and confirmed then deprecated.
  await store(db, t.writer, fact("old-ledger-path", { scope: "blog", type: "reference", description: "The ledger lives in /srv/ledger.jsonl" }));
  await promoteFact(db, t.reviewer, { name: "old-ledger-path", scope: "blog", to: "deprecated", reason: "Moved to Postgres; the file is gone." });
  await store(db, t.deployer, fact("deploy-on-fridays", { description: "Deploys are fine on Fridays" }));
  await promoteFact(db, t.reviewer, { name: "deploy-on-fridays", to: "confirmed", reason: "Nobody objected." });
  await promoteFact(db, t.deployer, { name: "deploy-on-fridays", to: "deprecated", reason: "Friday deploy broke the weekend twice.\nSecond line of the reason." });

  // A draft whose body holds the file's own delimiters.
  await store(db, t.writer, fact("tricky-body", { body: "---\n<!-- agent-memory:history -->\n```yaml\n- version: 1\n```\n\\<!-- agent-memory:earlier-versions -->\n" }));

  // The ledger: claimed, renewed, executed, released, taken_over, and a live claim.
  const w = actor(t.writer);
  const d = actor(t.deployer);
  const { claimId } = await claimLedger(db, w, { action: "publish_qiita", target: "記事-1" });
  await claimLedger(db, w, { action: "publish_qiita", target: "記事-1", ttlSeconds: 900, claimId });
  await recordLedger(db, w, { action: "publish_qiita", target: "記事-1", evidence: "https://qiita.com/w/items/1", note: "初回の公開", claimId });
  await claimLedger(db, d, { action: "deploy_prod", target: "v1.0.0" });
  await releaseLedger(db, d, { action: "deploy_prod", target: "v1.0.0", reason: "tests failed" });
  await claimLedger(db, d, { action: "deploy_prod", target: "v1.0.1" });
  await expireClaim(db, "deploy_prod", "v1.0.1");
  await claimLedger(db, w, { action: "deploy_prod", target: "v1.0.1", ttlSeconds: 3600 });
}

/** Every file under `dir` (dot files included), path → content. */
export async function readTree(dir: string): Promise<Record<string, string>> {
  const tree: Record<string, string> = {};
  const walk = async (rel: string) => {
    for (const e of await readdir(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(path);
      else tree[path] = await readFile(join(dir, path), "utf8");
    }
  };
  await walk("");
  return tree;
}

interface RowCounts {
  facts: number;
  versions: number;
  events: number;
  ledger: number;
  claims: number;
  imports: number;
}

export async function rowCounts(db: Queryable): Promise<RowCounts> {
  const r = await db.query<RowCounts>(
    `select (select count(*)::int from facts) as facts,
            (select count(*)::int from fact_versions) as versions,
            (select count(*)::int from fact_events) as events,
            (select count(*)::int from ledger_events) as ledger,
            (select count(*)::int from ledger_claims) as claims,
            (select count(*)::int from snapshot_imports) as imports`,
  );
  return r.rows[0]!;
}

export const exportTo = (db: Database, dir: string, filters: { scopes?: string[]; statuses?: string[] } = {}) =>
  exportSnapshot(db, { dir, scopes: filters.scopes ?? [], statuses: filters.statuses ?? [] });

export const importFrom = (db: Database, dir: string, options: Partial<ImportOptions> = {}) =>
  importSnapshot(db, { dir, dryRun: false, bodyMaxChars: LIMITS.bodyMaxChars, graphTextMaxChars: 2000, secrets: createSecretGuard("refuse"), ...options } as ImportOptions);
