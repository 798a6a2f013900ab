// What `serve` prints for a person once it listens (on stderr, never into the
// log): where MCP and the console are, and on a first start the owner's token
// and what to do next. Adding agents comes first and points to the console;
// the CLI works beside the running service on either database (on the embedded
// one through the service: src/db/embedded/cli-socket-protocol.ts).
import { existsSync } from "node:fs";
import type { Config } from "../config/index.js";
import type { EmbeddedLeftover } from "../db/embedded/leftover.js";
import { describeTracing } from "../config/tracing.js";
import { describeDatabase, describeReadReplicas } from "../db/core/open.js";

/** Docker (/.dockerenv) or Podman (/run/.containerenv): only there is "docker compose exec" the way to the CLI. */
function inContainer(): boolean {
  return existsSync("/.dockerenv") || existsSync("/run/.containerenv");
}

/** How a person issues the owner another token, where this service runs: from the host into its container, or beside it. */
export function issueAnotherTokenHint(containerized: boolean = inContainer()): string {
  return containerized
    ? `Or issue another from the host: docker compose exec agent-memory agent-memory token issue owner (plain Docker: docker exec CONTAINER agent-memory token issue owner)`
    : `Or issue another: npx agent-memory token issue owner`;
}

/**
 * `tokenFile`: "shown" (a person at a terminal: the token is printed), the file
 * the token went to, or undefined (writing it failed).
 */
interface BannerNotes {
  /** An embedded database beside a service on Postgres (not moved: its data never reached this one). */
  leftover?: EmbeddedLeftover | undefined;
  /** No human agent: nobody can sign in to the console. */
  nobodySignsIn?: boolean;
  /** Whether the service runs in a container (default: detected), which decides how the CLI is reached. */
  inContainer?: boolean;
}

/** What the service runs on, for the start-up log line: the database, its read replicas (when any) and tracing. */
export function startupDescription(config: Config): { database: string; readReplicas?: string; tracing: string } {
  const readReplicas = describeReadReplicas(config);
  return { database: describeDatabase(config), ...(readReplicas ? { readReplicas } : {}), tracing: describeTracing(config.tracing) };
}

export function banner(mcpUrl: string, config: Config, firstToken: string | undefined, tokenFile: string | undefined, notes: BannerNotes = {}): string {
  const consoleUrl = mcpUrl.replace(/\/mcp$/, "/console");
  const lines = [``, `agent-memory is serving MCP at ${mcpUrl}`, `web console: ${consoleUrl} (add agents and their tokens, review drafts)`, `database: ${describeDatabase(config)}`];
  const readReplicas = describeReadReplicas(config);
  if (readReplicas) lines.push(`read replicas: ${readReplicas}`);
  if (config.tracing.enabled) lines.push(`tracing: ${describeTracing(config.tracing)}`);
  if (notes.leftover && !notes.leftover.moved) {
    lines.push(
      ``,
      `Note: ${notes.leftover.dataDir} holds an embedded database (its own agents, tokens and memory) that this service, on Postgres, does not use;`,
      `no owner was created here. To bring it here with every token: stop this service and run npx agent-memory move --to "$DATABASE_URL"`,
      `(into a database that is still empty), or delete the folder for a fresh start.`,
    );
  }
  if (notes.nobodySignsIn) {
    lines.push(``, `Nobody can sign in to the console yet (no human agent): npx agent-memory agent add NAME --kind human --scopes '*'   (prints its token)`);
  }
  if (firstToken && tokenFile === undefined) {
    lines.push(``, `First start: created agent "owner" (human, all scopes), but its token could not be written to ${config.firstTokenFile}.`);
    lines.push(`Issue one with: npx agent-memory token issue owner`, ``);
    return lines.join("\n");
  }
  if (firstToken && tokenFile !== "shown") {
    lines.push(
      ``,
      `First start: created agent "owner" (human, all scopes). Its token is in ${tokenFile} (mode 0600);`,
      `read it once, store it elsewhere, then delete the file.`,
      issueAnotherTokenHint(notes.inContainer ?? inContainer()),
      ``,
    );
    return lines.join("\n");
  }
  if (firstToken) {
    lines.push(
      ``,
      `First start: created agent "owner" (human, all scopes). Its token is shown only now:`,
      ``,
      `  ${firstToken}`,
      ``,
      `Add your agents: sign in with that token at ${consoleUrl}/agents`,
      `and add one per agent (blog-writer, reviewer…), each with its own token.`,
      `Or from a shell: npx agent-memory agent add blog-writer --scopes shared,blog   (prints its token)`,
      ``,
      `Connect Claude Code (as the owner, a human who may confirm anyone's drafts; an agent that works`,
      `on its own should use its own token, so that what it writes is reviewed by someone else):`,
      `  claude mcp add --transport http agent-memory ${mcpUrl} --header "Authorization: Bearer ${firstToken}"`,
      `Any other MCP client: Streamable HTTP at ${mcpUrl} with the header "Authorization: Bearer <token>".`,
    );
  } else {
    lines.push(`Manage agents and tokens in the console, or: npx agent-memory agent list | token issue NAME (see README).`);
  }
  lines.push(``);
  return lines.join("\n");
}

export function oauthBanner(url: string): string {
  return `OAuth clients (claude.ai / Claude Desktop connectors, ChatGPT, VS Code): add ${url} as the connector URL (docs/oauth.md).\n\n`;
}
