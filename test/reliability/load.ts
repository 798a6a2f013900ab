// A write load that remembers what every client was told, and the check that
// compares it with the database: every acknowledged write is there (whole),
// every refused one is absent, and an unanswered one is all there or not at all.
import type { Queryable } from "../../src/db/core/database.js";
import type { TestAgent } from "../support/service.js";
import { callTool, type Outcome } from "./support.js";

export type WriteKind = "fact" | "record" | "claim" | "entity";
const KINDS: WriteKind[] = ["fact", "record", "claim", "entity"];

export interface WriteAttempt {
  agent: string;
  kind: WriteKind;
  key: string;
  outcome: Outcome;
  /** How long the client waited for the answer. */
  ms: number;
  startedAt: number;
}

function writeCall(kind: WriteKind, key: string): { tool: string; args: Record<string, unknown> } {
  switch (kind) {
    case "fact":
      return { tool: "memory_store", args: { name: key, description: `load fact ${key}`, type: "project", body: `written under load as ${key}` } };
    case "record":
      return { tool: "ledger_record", args: { action: "publish_post", target: key, evidence: `https://blog.example/${key}` } };
    case "claim":
      return { tool: "ledger_claim", args: { action: "deploy", target: key, ttl_seconds: 10 } };
    case "entity":
      return { tool: "create_entities", args: { entities: [{ name: key, entityType: "load", observations: [`observed ${key}`] }] } };
  }
}

/**
 * One write. Only the holder of a key's claim records it, so a record claims its
 * (own, fresh) key first; a claim that fails is the record's answer.
 */
async function write(url: string, token: string, kind: WriteKind, key: string): Promise<Outcome> {
  if (kind === "record") {
    const claimed = await callTool(url, token, "ledger_claim", { action: "publish_post", target: key, ttl_seconds: 10 });
    if (claimed.kind !== "ok") return claimed;
  }
  const { tool, args } = writeCall(kind, key);
  return callTool(url, token, tool, args);
}

interface WriteLoad {
  attempts: WriteAttempt[];
  /** Attempts per agent that ended with `kind` since index `from` of attempts. */
  count(filter: (a: WriteAttempt) => boolean): number;
  stop(): Promise<WriteAttempt[]>;
}

/**
 * Each agent writes back to back (one call at a time, rotating through the kinds)
 * until stopped. `urlFor` picks the replica for each call, so a load can span
 * replicas or follow a restarted one.
 */
export function startWriteLoad(agents: TestAgent[], urlFor: (agentIndex: number, n: number) => string, prefix = "w"): WriteLoad {
  const attempts: WriteAttempt[] = [];
  let stopping = false;
  const loops = agents.map(async (agent, i) => {
    for (let n = 0; !stopping; n++) {
      const kind = KINDS[n % KINDS.length]!;
      const key = `${prefix}-${agent.name}-${n}`;
      const startedAt = Date.now();
      const outcome = await write(urlFor(i, n), agent.token, kind, key);
      attempts.push({ agent: agent.name, kind, key, outcome, ms: Date.now() - startedAt, startedAt });
      // A refused connection answers at once: pace the retries (as a client would)
      // instead of spinning while the service is down.
      if (outcome.kind === "no-answer") await new Promise((r) => setTimeout(r, 20));
    }
  });
  return {
    attempts,
    count: (filter) => attempts.filter(filter).length,
    async stop() {
      stopping = true;
      await Promise.all(loops);
      return attempts;
    },
  };
}

/** The client was told, one way or another, that the write did not happen. */
const toldFailed = (o: Outcome) => o.kind === "refused" || o.kind === "http" || o.kind === "rpc-error";

interface Reconciliation {
  acknowledged: number;
  failed: number;
  unanswered: number;
  /** Acknowledged writes not (wholly) in the database. */
  lost: string[];
  /** Writes the client was told failed that are in the database anyway. */
  phantom: string[];
  /** Writes only partly in the database (a fact without its version, an entity without its observation). */
  partial: string[];
}

/** Compares what clients were told with what the database holds. */
export async function reconcile(db: Queryable, attempts: WriteAttempt[]): Promise<Reconciliation> {
  const state = new Map<string, "whole" | "partial">();
  const facts = await db.query<{ name: string; versions: number; events: number }>(
    `select f.name, (select count(*)::int from fact_versions v where v.fact_id = f.id) as versions,
            (select count(*)::int from fact_events e where e.fact_id = f.id) as events
       from facts f`,
  );
  for (const r of facts.rows) state.set(`fact:${r.name}`, r.versions === 1 && r.events === 1 ? "whole" : "partial");
  const records = await db.query<{ target: string }>("select target from ledger_events where kind = 'executed' and action = 'publish_post'");
  for (const r of records.rows) state.set(`record:${r.target}`, "whole");
  const claims = await db.query<{ target: string; claimed: boolean }>(
    `select e.target, exists (select 1 from ledger_claims c where c.action = e.action and c.target = e.target) as claimed
       from ledger_events e where e.kind = 'claimed' and e.action = 'deploy'`,
  );
  for (const r of claims.rows) state.set(`claim:${r.target}`, r.claimed ? "whole" : "partial");
  const entities = await db.query<{ name: string; observations: number }>(
    `select e.name, count(o.id)::int as observations
       from graph_entities e left join graph_observations o on o.entity_id = e.id
      where e.entity_type = 'load' group by e.name`,
  );
  for (const r of entities.rows) state.set(`entity:${r.name}`, r.observations === 1 ? "whole" : "partial");

  const result: Reconciliation = { acknowledged: 0, failed: 0, unanswered: 0, lost: [], phantom: [], partial: [] };
  for (const a of attempts) {
    const id = `${a.kind}:${a.key}`;
    const found = state.get(id);
    if (found === "partial") result.partial.push(id);
    if (a.outcome.kind === "ok") {
      result.acknowledged++;
      if (found !== "whole") result.lost.push(id);
    } else if (toldFailed(a.outcome)) {
      result.failed++;
      if (found) result.phantom.push(`${id} (told: ${JSON.stringify(a.outcome).slice(0, 300)})`);
    } else {
      result.unanswered++;
    }
  }
  return result;
}

/** A short account of a load for failure messages: outcomes by kind and the last few answers. */
export function describeLoad(attempts: WriteAttempt[]): string {
  const kinds: Record<string, number> = {};
  for (const a of attempts) kinds[a.outcome.kind] = (kinds[a.outcome.kind] ?? 0) + 1;
  const last = attempts.slice(-4).map((a) => `${a.agent} ${a.kind} ${a.ms} ms: ${JSON.stringify(a.outcome).slice(0, 300)}`);
  return [`${attempts.length} attempts ${JSON.stringify(kinds)}`, ...last].join("\n");
}

/** The texts and statuses clients were given when a call failed, for asserting that each is clear. */
export function failureMessages(attempts: WriteAttempt[]): string[] {
  return attempts.flatMap((a) => {
    const o = a.outcome;
    if (o.kind === "refused") return [`tool: ${o.text}`];
    if (o.kind === "http") return [`http ${o.status}: ${o.body}`];
    if (o.kind === "rpc-error") return [`rpc ${o.code}: ${o.message}`];
    return [];
  });
}
