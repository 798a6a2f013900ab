// Who wrote what, on import: names in a file become agents of this database.
// A name that is an agent here is that agent; any other name becomes the agent
// given with --as. Without --as an unknown name makes the file invalid, and
// the map remembers it, so that the report can list every agent to create at
// once (a team migrating its memory files ran the import once per name).
import { AGENT_NAME_PATTERN, validateAgentName } from "../auth/scopes.js";
import { agentNames, FIRST_OWNER } from "../auth/store.js";
import type { Queryable } from "../db/core/database.js";
import { invalid } from "../errors.js";

export interface MappedAgent {
  id: number;
  /** The agent's name here (the --as agent's when it stood in). */
  name: string;
}

export class AgentMap {
  private currentFile = "";

  private constructor(
    private readonly byName: Map<string, number>,
    readonly as: { id: number; name: string } | null,
    /** Names that are not agents here, with the files (or "ledger.jsonl") that named them. */
    private readonly missing = new Map<string, Set<string>>(),
  ) {}

  static async load(db: Queryable, asName: string | undefined): Promise<AgentMap> {
    const rows = await agentNames(db);
    const byName = new Map(rows.map((r) => [r.name, Number(r.id)]));
    let as: { id: number; name: string } | null = null;
    if (asName !== undefined) {
      validateAgentName(asName);
      const row = rows.find((r) => r.name === asName);
      if (!row) throw invalid(`--as ${asName}: no such agent. Create it first with: agent-memory agent add ${asName} --kind human --no-token`);
      if (row.disabled) throw invalid(`--as ${asName}: that agent is disabled; enable it or choose another.`);
      as = { id: Number(row.id), name: row.name };
    }
    return new AgentMap(byName, as);
  }

  /**
   * An agent this import creates (agents.jsonl). A dry run binds its name
   * before any transaction (id -1), then to the id it gets in each rolled-back
   * transaction that creates it again.
   */
  bind(name: string, id: number): void {
    this.byName.set(name, id);
  }

  /** Only agents that exist here (for optional mappings such as a seed's reviewer). */
  known(name: string): MappedAgent | null {
    const id = this.byName.get(name);
    return id === undefined ? null : { id, name };
  }

  /** Names resolved from now on come from this file (for missingAgents). */
  reading(file: string): void {
    this.currentFile = file;
  }

  /**
   * The same map (agents, --as, the names missing so far), for one file: the
   * names it resolves come from `file`, while other files are read meanwhile.
   */
  forFile(file: string): AgentMap {
    const view = new AgentMap(this.byName, this.as, this.missing);
    view.currentFile = file;
    return view;
  }

  /** `what` says where the name came from, for the message ("owner", "History entry 3 (by)"). */
  resolve(name: string, what: string): MappedAgent {
    this.requireAll([[name, what]]);
    return this.known(name) ?? this.as!;
  }

  /**
   * Every name known (or --as given), or one error naming all the unknown ones
   * (a file's history may name several).
   */
  requireAll(names: ReadonlyArray<readonly [name: string, what: string]>): void {
    if (this.as) return;
    const unknown = names.filter(([name]) => !this.byName.has(name));
    if (unknown.length === 0) return;
    this.note(unknown.map(([name]) => name));
    const distinct = [...new Set(unknown.map(([name]) => name))];
    if (distinct.length === 1) {
      const [name, what] = unknown[0]!;
      throw invalid(`${what} "${name}" is not an agent here: create it (${addAgentCommand(name)}) or pass --as <agent> to import its work under that agent.`);
    }
    const first = distinct.map((name) => `"${name}" (${unknown.find(([n]) => n === name)![1]})`).join(", ");
    throw invalid(
      `${distinct.length} names are not agents here: ${first}. Create them (${distinct.map(addAgentCommand).join("; ")}) ` +
        `or pass --as <agent> to import their work under that agent.`,
    );
  }

  /**
   * Remembers the unknown ones among a file's names as soon as it is read, so
   * that the report lists them even when the file fails another check first.
   */
  note(names: ReadonlyArray<string>): void {
    if (this.as) return;
    for (const name of names) {
      if (this.byName.has(name)) continue;
      const files = this.missing.get(name) ?? new Set<string>();
      files.add(this.currentFile);
      this.missing.set(name, files);
    }
  }

  /** The unknown names seen so far, most files first: what to create before importing again. */
  missingAgents(): Array<{ name: string; files: number }> {
    return [...this.missing]
      .map(([name, files]) => ({ name, files: files.size }))
      .sort((a, b) => b.files - a.files || (a.name < b.name ? -1 : 1));
  }
}

const safe = (name: string): string => (AGENT_NAME_PATTERN.test(name) ? name : "<name>");

/**
 * The command that creates a missing agent, without a token. The first start's
 * owner is a person with every scope; any other agent gets the kind and scopes
 * it has where the files come from (--kind human --scopes … for a person; an
 * export's agents.jsonl creates them all as they were).
 */
export function addAgentCommand(name: string): string {
  return name === FIRST_OWNER ? `agent-memory agent add ${FIRST_OWNER} --kind human --scopes '*' --no-token` : `agent-memory agent add ${safe(name)} --no-token`;
}
