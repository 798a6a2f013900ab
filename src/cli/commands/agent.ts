// agent add | list | disable | enable | scopes
import type { Command } from "commander";
import { createAgent, IMPORTER_AGENT, IMPORTER_NOTE, issueToken, listAgents, setAgentDisabled, setAgentScopes, type Agent } from "../../auth/store.js";
import { withDatabase } from "../context.js";
import { iso, table, UsageError, type Output } from "../output.js";
import { action, parseList } from "../run.js";

export const agentJson = (a: Agent) => ({
  id: a.id,
  name: a.name,
  kind: a.kind,
  scopes: a.writeScopes,
  readScopes: a.readScopes,
  createdAt: iso(a.createdAt),
  disabledAt: a.disabledAt ? iso(a.disabledAt) : null,
});

export function registerAgentCommands(program: Command): void {
  const agent = program.command("agent").description("manage agents (the identities that call the service)");

  agent
    .command("add")
    .description("create an agent and issue its first token (shown once)")
    .argument("<name>", "agent name: lowercase letters, digits, . _ - (e.g. blog-writer)")
    .option("--kind <kind>", "agent (an AI agent) or human (a reviewer)", "agent")
    .option("--scopes <list>", "comma-separated scopes it may read and write; * for all", "shared")
    .option("--read-scopes <list>", "comma-separated extra scopes it may only read", "")
    .option("--no-token", "do not issue a token")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output, name: string, opts: { kind: string; scopes: string; readScopes: string; token: boolean }) => {
        if (opts.kind !== "agent" && opts.kind !== "human") throw new UsageError(`--kind must be "agent" or "human", got "${opts.kind}"`);
        const kind = opts.kind;
        const result = await withDatabase(out.io, async (db) => {
          const created = await createAgent(db, { name, kind, writeScopes: parseList(opts.scopes), readScopes: parseList(opts.readScopes) });
          const token = opts.token ? (await issueToken(db, name, null)).token : null;
          return { agent: created, token };
        });
        out.result({ agent: agentJson(result.agent), token: result.token }, () =>
          [
            `Created ${result.agent.kind} "${result.agent.name}" (scopes: ${result.agent.writeScopes.join(", ") || "none"}${
              result.agent.readScopes.length ? `; read-only: ${result.agent.readScopes.join(", ")}` : ""
            }).`,
            ...(result.token ? [`Token (shown only now; store it in the agent's MCP client config):`, ``, `  ${result.token}`] : []),
          ].join("\n"),
        );
      }),
    );

  agent
    .command("list")
    .description("list agents")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output) => {
        const agents = await withDatabase(out.io, (db) => listAgents(db));
        out.result({ agents: agents.map((a) => ({ ...agentJson(a), activeTokens: a.activeTokens })) }, () =>
          [
            table(
              ["NAME", "KIND", "SCOPES", "READ-ONLY", "TOKENS", "STATUS", "CREATED"],
              agents.map((a) => [
                a.name,
                a.kind,
                a.writeScopes.join(",") || "-",
                a.readScopes.join(",") || "-",
                String(a.activeTokens),
                // The time of a disabling is in --json (disabledAt): in the table it made one row wider than the rest.
                a.name === IMPORTER_AGENT ? "reserved" : a.disabledAt ? "disabled" : "active",
                iso(a.createdAt),
              ]),
            ),
            ...(agents.some((a) => a.name === IMPORTER_AGENT) ? ["", IMPORTER_NOTE] : []),
          ].join("\n"),
        );
      }),
    );

  for (const [verb, disabled] of [
    ["disable", true],
    ["enable", false],
  ] as const) {
    agent
      .command(verb)
      .description(disabled ? "disable an agent: all its tokens stop working at once" : "enable a disabled agent again")
      .argument("<name>", "agent name")
      .option("--json", "print one JSON object")
      .action(
        action(async (out: Output, name: string) => {
          const updated = await withDatabase(out.io, (db) => setAgentDisabled(db, name, disabled));
          out.result({ agent: agentJson(updated) }, () => `Agent "${name}" ${disabled ? "disabled" : "enabled"}.`);
        }),
      );
  }

  agent
    .command("scopes")
    .description("replace the scopes of an agent")
    .argument("<name>", "agent name")
    .requiredOption("--scopes <list>", "comma-separated scopes it may read and write; * for all")
    .option("--read-scopes <list>", "comma-separated extra scopes it may only read", "")
    .option("--json", "print one JSON object")
    .action(
      action(async (out: Output, name: string, opts: { scopes: string; readScopes: string }) => {
        const updated = await withDatabase(out.io, (db) => setAgentScopes(db, name, parseList(opts.scopes), parseList(opts.readScopes)));
        out.result({ agent: agentJson(updated) }, () => `Agent "${name}" now writes ${updated.writeScopes.join(", ") || "nothing"}.`);
      }),
    );
}
