// Who wrote what, on import: names in a file become agents of this database.
// A name that is an agent here is that agent; any other name becomes the agent
// given with --as. Without --as an unknown name makes the file invalid.
import { AGENT_NAME_PATTERN, validateAgentName } from "../auth/scopes.js";
import type { Queryable } from "../db/database.js";
import { invalid } from "../errors.js";
import * as sql from "./sql.js";

export interface MappedAgent {
  id: number;
  /** The agent's name here (the --as agent's when it stood in). */
  name: string;
}

export class AgentMap {
  private constructor(
    private readonly byName: Map<string, number>,
    readonly as: { id: number; name: string } | null,
  ) {}

  static async load(db: Queryable, asName: string | undefined): Promise<AgentMap> {
    const rows = (await db.query<{ id: number; name: string; disabled: boolean }>(sql.AGENTS)).rows;
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

  /** Only agents that exist here (for optional mappings such as a seed's reviewer). */
  known(name: string): MappedAgent | null {
    const id = this.byName.get(name);
    return id === undefined ? null : { id, name };
  }

  /** `what` says where the name came from, for the message ("owner", "History entry 3 (by)"). */
  resolve(name: string, what: string): MappedAgent {
    const known = this.known(name);
    if (known) return known;
    if (this.as) return this.as;
    throw invalid(`${what} "${name}" is not an agent here: create it (agent-memory agent add ${safe(name)} --no-token) or pass --as <agent> to import its work under that agent.`);
  }
}

const safe = (name: string): string => (AGENT_NAME_PATTERN.test(name) ? name : "<name>");
