// The team in a whole export, beside the facts, the ledger and the graphs:
// - agents.jsonl: every agent but the reserved importer, oldest first: name,
//   kind, scopes, read scopes, when it was created, whether it is disabled.
//   Never a token (the database keeps only their hashes, and an export never
//   writes those): an import creates the agents without one, and the report
//   says to issue them.
// - ledger-actions.jsonl: which scope each mapped ledger action belongs to,
//   who mapped it and when. Without it a restore would let anyone who writes
//   the default scope claim an action that was limited to another.
// An import creates what is not here and keeps what is (a difference is a
// warning); each file is imported whole or not at all, like ledger.jsonl.
import { join } from "node:path";
import { AGENT_NAME_PATTERN } from "../auth/scopes.js";
import { agentsForExport, getAgent, IMPORTER_AGENT, restoreAgent, type Agent } from "../auth/store.js";
import type { Queryable } from "../db/core/database.js";
import { DomainError } from "../errors.js";
import { type ImportFile, lineTooLongText, openImportFile } from "../import-file.js";
import { ACTION_PATTERN, listActionScopes, restoreActionScope } from "../ledger/index.js";
import { IMPORT_FILES } from "../limits.js";
import { SCOPE_PATTERN } from "../scope-name.js";
import type { LineProblem } from "./import-ledger.js";
import { ACTIONS_FILE, AGENTS_FILE, isCanonicalTime } from "./model.js";
import { validateInsideTarget, writeAtomically } from "./tree.js";

export interface AgentLine {
  name: string;
  kind: "agent" | "human";
  scopes: string[];
  readScopes: string[];
  created: string;
  disabled: boolean;
}

interface ActionLine {
  action: string;
  scope: string;
  setBy: string;
  setAt: string;
}

const agentLine = (a: Agent): AgentLine => ({
  name: a.name,
  kind: a.kind,
  scopes: a.writeScopes,
  readScopes: a.readScopes,
  created: a.createdAt.toISOString(),
  disabled: a.disabledAt !== null,
});

/** Writes agents.jsonl and ledger-actions.jsonl inside the export's transaction. */
export async function exportTeam(tx: Queryable, root: string): Promise<{ agents: number; actions: number }> {
  const agents = (await agentsForExport(tx)).map(agentLine);
  const actions: ActionLine[] = (await listActionScopes(tx)).map((m) => ({ action: m.action, scope: m.scope, setBy: m.setBy, setAt: m.setAt.toISOString() }));
  for (const [file, lines] of [[AGENTS_FILE, agents], [ACTIONS_FILE, actions]] as const) {
    await validateInsideTarget(root, join(root, file));
    await writeAtomically(join(root, file), async (write) => write(lines.map((l) => `${JSON.stringify(l)}\n`).join("")));
  }
  return { agents: agents.length, actions: actions.length };
}

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");
const validScope = (s: string) => s === "*" || SCOPE_PATTERN.test(s);

function parseAgentLine(value: Record<string, unknown>): AgentLine {
  const { name, kind, scopes, readScopes, created, disabled } = value;
  if (typeof name !== "string" || !AGENT_NAME_PATTERN.test(name)) throw new Error('"name" must be an agent\'s name (lower-case letters, digits, ".", "_", "-")');
  if (name === IMPORTER_AGENT) throw new Error(`"${IMPORTER_AGENT}" is the reserved import identity, never listed: remove the line`);
  if (kind !== "agent" && kind !== "human") throw new Error('"kind" must be "agent" or "human"');
  if (!isStringList(scopes) || !scopes.every(validScope)) throw new Error('"scopes" must be a list of scopes (e.g. ["shared", "blog"], or ["*"])');
  if (!isStringList(readScopes) || !readScopes.every(validScope)) throw new Error('"readScopes" must be a list of scopes');
  if (typeof created !== "string" || !isCanonicalTime(created)) throw new Error('"created" must be a time like 2026-01-31T12:00:00.000Z');
  if (typeof disabled !== "boolean") throw new Error('"disabled" must be true or false');
  return { name, kind, scopes, readScopes, created, disabled };
}

function parseActionLine(value: Record<string, unknown>): ActionLine {
  const { action, scope, setBy, setAt } = value;
  if (typeof action !== "string" || !ACTION_PATTERN.test(action)) throw new Error('"action" must be a ledger action (lower-case words joined by "_" or "-")');
  if (typeof scope !== "string" || !SCOPE_PATTERN.test(scope)) throw new Error('"scope" must be one scope');
  if (typeof setBy !== "string" || setBy === "") throw new Error('"setBy" must name who mapped it');
  if (typeof setAt !== "string" || !isCanonicalTime(setAt)) throw new Error('"setAt" must be a time like 2026-01-31T12:00:00.000Z');
  return { action, scope, setBy, setAt };
}

/** Every line of one of the two files, parsed, or the problems of the bad ones (nothing from a file with one is imported). */
async function readLines<T>(root: string, file: string, parse: (value: Record<string, unknown>) => T): Promise<{ found: boolean; lines: T[]; invalid: LineProblem[] }> {
  const opened: ImportFile | undefined = await openImportFile(join(root, file), IMPORT_FILES.team, { optional: true });
  if (!opened) return { found: false, lines: [], invalid: [] };
  const lines: T[] = [];
  const invalid: LineProblem[] = [];
  const seen = new Set<string>();
  try {
    for await (const read of opened.lines()) {
      if (read.tooLong) {
        invalid.push({ line: read.number, reason: lineTooLongText(IMPORT_FILES.team) });
        continue;
      }
      if (read.text.trim() === "") continue;
      try {
        let value: unknown;
        try {
          value = JSON.parse(read.text);
        } catch {
          throw new Error("not valid JSON");
        }
        if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error("not a JSON object");
        const line = parse(value as Record<string, unknown>);
        const key = JSON.stringify(Object.values(line as object)[0]);
        if (seen.has(key)) throw new Error(`${key} is listed twice`);
        seen.add(key);
        lines.push(line);
      } catch (error) {
        invalid.push({ line: read.number, reason: (error as Error).message });
      }
    }
  } finally {
    await opened.close();
  }
  return { found: true, lines, invalid };
}

export const readAgentLines = (root: string) => readLines(root, AGENTS_FILE, parseAgentLine);
export const readActionLines = (root: string) => readLines(root, ACTIONS_FILE, parseActionLine);

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** Creates the agents not here (without tokens); returns them, and a warning for each one here that differs. */
export async function importAgents(tx: Queryable, lines: AgentLine[]): Promise<{ created: Array<{ name: string; id: number }>; existing: number; warnings: string[] }> {
  const created: Array<{ name: string; id: number }> = [];
  const warnings: string[] = [];
  for (const line of lines) {
    const agent = await restoreAgent(tx, { name: line.name, kind: line.kind, writeScopes: line.scopes, readScopes: line.readScopes, createdAt: line.created, disabled: line.disabled });
    if (agent) {
      created.push({ name: agent.name, id: agent.id });
      continue;
    }
    const here = await getAgent(tx, line.name);
    if (here.kind !== line.kind || !sameSet(here.writeScopes, line.scopes) || !sameSet(here.readScopes, line.readScopes) || (here.disabledAt !== null) !== line.disabled) {
      warnings.push(
        `${AGENTS_FILE}: agent "${line.name}" exists here as ${describe(agentLine(here))}; the file has ${describe(line)}. Kept as it is here ` +
          `(change it with agent-memory agent scopes / disable / enable).`,
      );
    }
  }
  return { created, existing: lines.length - created.length, warnings };
}

const describe = (a: AgentLine) =>
  `${a.kind} with scopes ${a.scopes.join(",") || "(none)"}${a.readScopes.length ? `, read scopes ${a.readScopes.join(",")}` : ""}${a.disabled ? ", disabled" : ""}`;

/** Maps the actions that have no mapping here; a different mapping here is kept, with a warning. */
export async function importActions(tx: Queryable, lines: ActionLine[]): Promise<{ restored: number; unchanged: number; warnings: string[] }> {
  let restored = 0;
  const warnings: string[] = [];
  for (const line of lines) {
    try {
      const r = await restoreActionScope(tx, line);
      if (r.restored) restored++;
      else if (r.mapping.scope !== line.scope) {
        warnings.push(`${ACTIONS_FILE}: ${line.action} belongs to scope "${r.mapping.scope}" here; the file maps it to "${line.scope}". Kept as it is here (agent-memory ledger action set changes it).`);
      }
    } catch (error) {
      if (error instanceof DomainError) throw new DomainError(error.code, `${ACTIONS_FILE}, ${line.action}: ${error.message}`);
      throw error;
    }
  }
  return { restored, unchanged: lines.length - restored, warnings };
}
