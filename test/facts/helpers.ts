// Shared setup for facts tests: agents as Callers (for store tests) and a
// compact way to store facts.
import type { Caller } from "../../src/auth/caller.js";
import { checkToken } from "../../src/auth/verifier.js";
import { DomainError } from "../../src/errors.js";
import type { Database } from "../../src/db/core/database.js";
import { SIMILAR_MAX, SIMILAR_THRESHOLD } from "../../src/facts/rules.js";
import { SIMILAR_FACTS } from "../../src/facts/sql.js";
import { storeFact, type StoreInput } from "../../src/facts/lifecycle/store.js";
import { addAgent, type AgentOptions } from "../support/service.js";

export const LIMITS = { bodyMaxChars: 16_000 };

/** Creates an agent and returns it as the service would see it after authentication. */
export async function addCaller(
  db: Database,
  name: string,
  options: AgentOptions = {},
): Promise<Caller & { token: string }> {
  const agent = await addAgent(db, name, options);
  const check = await checkToken(db, agent.token);
  if (!check.ok) throw new Error(`token for ${name} was refused: ${check.reason}`);
  return { ...check.caller, token: agent.token };
}

export function fact(name: string, overrides: Partial<StoreInput> = {}): StoreInput {
  return {
    name,
    description: `About ${name}`,
    type: "project",
    body: `Why ${name} holds, and how to apply it.`,
    ...overrides,
  };
}

export async function store(db: Database, caller: Caller, input: StoreInput) {
  return storeFact(db, caller, input, LIMITS);
}

/** Counts rows of the facts tables, to prove that a refused call wrote nothing. */
export async function counts(db: Database): Promise<{ facts: number; versions: number; events: number }> {
  const r = await db.query<{ facts: number; versions: number; events: number }>(
    `select (select count(*)::int from facts) as facts,
            (select count(*)::int from fact_versions) as versions,
            (select count(*)::int from fact_events) as events`,
  );
  return r.rows[0]!;
}

/** Awaits a call that must fail with a DomainError and returns it. */
export async function domainError(work: Promise<unknown>): Promise<DomainError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error("expected a DomainError, but the call succeeded");
}

type Pair = [first: [name: string, description: string], second: [name: string, description: string]];

/**
 * Labelled pairs (similar-pairs.ts), each in a scope of its own (`pair-<i>`):
 * stores each pair's first fact, and returns whether storing its second would
 * list the first (the lookup memory_store runs, SIMILAR_FACTS, the pair's scope readable).
 */
export async function storePairs(db: Database, pairs: Pair[]): Promise<{ similarTo: (i: number) => Promise<Array<{ name: string; similarity: number }>> }> {
  const scopeOf = (i: number) => `pair-${i}`;
  const author = await addCaller(db, "pair-writer", { scopes: pairs.map((_, i) => scopeOf(i)) });
  await db.query(
    `insert into facts (scope, name, description, type, body, author_id)
     select u.scope, u.name, u.description, 'project', 'Why: a test.', $4::bigint from unnest($1::text[], $2::text[], $3::text[]) as u(scope, name, description)`,
    [pairs.map((_, i) => scopeOf(i)), pairs.map((p) => p[0][0]), pairs.map((p) => p[0][1]), author.agentId],
  );
  return {
    async similarTo(i) {
      const [, [name, description]] = pairs[i]!;
      const params = [`${name} ${description}`, SIMILAR_THRESHOLD, false, [scopeOf(i)], scopeOf(i), name, SIMILAR_MAX, description];
      return (await db.query<{ name: string; similarity: number }>(SIMILAR_FACTS, params)).rows;
    },
  };
}
