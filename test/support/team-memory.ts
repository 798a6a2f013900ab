// A team's memory with a bit of everything (agents with tokens, facts with
// history, the ledger with its chain and an action mapping, the graph with its
// authors), and the checks that a copy of it (a pg_dump restore, `move`) is
// whole: every table's rows, the chain, and the old tokens.
import type { Database, Queryable } from "../../src/db/core/database.js";
import { checkToken } from "../../src/auth/verifier.js";
import { addObservations, createEntities, createRelations } from "../../src/graph/store.js";
import { setActionScope } from "../../src/ledger/actions.js";
import { verifyLedger } from "../../src/ledger/audit.js";
import { addTeam, populate, type Team } from "../snapshots/helpers.js";
import { fact, store } from "../facts/helpers.js";
import { promoteFact } from "../../src/facts/review/promote.js";

export type { Team };

/** Fills `db` (migrated, no agents yet) and returns the team, whose tokens must keep working in any copy. */
export async function fillTeamMemory(db: Database): Promise<Team> {
  const team = await addTeam(db);
  await populate(db, team);
  // A replacement confirmed: the old fact points at a newer row of its own table.
  await store(db, team.reviewer, fact("qiita-tag-limit-v2", { scope: "blog", type: "feedback", description: "Qiita allows 5 tags per article", supersedes: "qiita-tag-limit" }));
  await promoteFact(db, team.writer, { name: "qiita-tag-limit-v2", scope: "blog", to: "confirmed", reason: "Checked the API docs again" });
  await setActionScope(db, { action: "publish_qiita", scope: "blog", setBy: team.reviewer.name });
  const writer = { scope: "blog", agentId: team.writer.agentId, maxChars: 2000 };
  await createEntities(db, writer, [
    { name: "Qiita", entityType: "site", observations: ["タグは5個まで"] },
    { name: "記事-1", entityType: "article", observations: [] },
  ]);
  await createRelations(db, writer, [{ from: "記事-1", to: "Qiita", relationType: "published_on" }]);
  await addObservations(db, { ...writer, agentId: team.deployer.agentId, scope: "blog" }, [{ entityName: "記事-1", contents: ["公開済み"] }]);
  return team;
}

/** The user tables of the current schema. */
async function userTables(db: Queryable): Promise<string[]> {
  return (await db.query<{ t: string }>(
    "select c.relname as t from pg_class c where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p') order by 1",
  )).rows.map((r) => r.t);
}

/** Every user table's rows, as sorted JSON lines (ids and times included): two databases with equal contents give equal maps. */
export async function contentsOf(db: Queryable): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of await userTables(db)) {
    // Names come from the catalog, quoted.
    const rows = (await db.query<{ j: string }>(`select row_to_json(t)::text as j from "${table.replace(/"/g, '""')}" t`)).rows.map((r) => r.j);
    out[table] = rows.sort();
  }
  return out;
}

/** The checks every copy passes: each token still names its agent, and the ledger chain verifies. */
export async function expectWholeCopy(db: Database, team: Team): Promise<void> {
  for (const member of [team.writer, team.reviewer, team.deployer]) {
    const check = await checkToken(db, member.token);
    if (!check.ok || check.caller.name !== member.name) throw new Error(`${member.name}'s token no longer works: ${JSON.stringify(check)}`);
  }
  const verify = await verifyLedger(db);
  if (!verify.ok) throw new Error(`ledger verify failed: ${JSON.stringify(verify)}`);
}
