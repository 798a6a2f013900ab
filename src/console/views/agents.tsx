// Agents and tokens, for administrators (people whose agent may write "*").
import { randomBytes } from "node:crypto";
import { type Agent, IMPORTER_AGENT, IMPORTER_NOTE, type TokenRecord } from "../../auth/store.js";
import { clientSnippets } from "../client-snippets.js";
import { age } from "../render.js";
import { BASE, CsrfField, Layout, Notice, type PageContext } from "./layout.js";

type AgentRow = Agent & { activeTokens: number; lastUsedAt: Date | null };

const scopesText = (scopes: string[]) => scopes.join(", ") || "—";
const when = (d: Date | null) => (d ? age(d.toISOString()) : "never");

export function AgentsPage({ ctx, agents, notice }: { ctx: PageContext; agents: AgentRow[]; notice?: { kind: "ok" | "error"; text: string } | undefined }) {
  return (
    <Layout ctx={ctx} title="Agents">
      <h1>Agents</h1>
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <table>
        <thead>
          <tr>
            <th>Name</th>
            <th>Kind</th>
            <th>Writes</th>
            <th>Also reads</th>
            <th>State</th>
            <th>Active tokens</th>
            <th>Last use</th>
          </tr>
        </thead>
        <tbody>
          {agents.map((a) => (
            <tr>
              <td>
                <a href={`${BASE}/agents/${a.name}`}>{a.name}</a>
              </td>
              <td>{a.kind}</td>
              <td>{scopesText(a.writeScopes)}</td>
              <td>{scopesText(a.readScopes)}</td>
              <td>{a.name === IMPORTER_AGENT ? "reserved" : a.disabledAt ? "disabled" : "active"}</td>
              <td>{a.activeTokens}</td>
              <td>{when(a.lastUsedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {agents.some((a) => a.name === IMPORTER_AGENT) && <p class="hint">{IMPORTER_NOTE}</p>}
      <section class="card">
        <h2>Add an agent</h2>
        <form method="post" action={`${BASE}/agents`}>
          <CsrfField csrf={ctx.csrf} />
          <div class="filters">
            <div>
              <label for="agent-name">Name</label>
              <input id="agent-name" name="name" type="text" required placeholder="blog-writer" pattern="[a-z0-9][a-z0-9._\-]{0,63}" title="1-64 characters: lowercase letters, digits, dot, underscore or hyphen, starting with a letter or digit" />
            </div>
            <div>
              <label for="agent-kind">Kind</label>
              <select id="agent-kind" name="kind">
                <option value="agent">agent (an MCP client)</option>
                <option value="human">human (may sign in here)</option>
              </select>
            </div>
            <div>
              <label for="agent-scopes">Writes (and reads) scopes</label>
              <input id="agent-scopes" name="scopes" type="text" value="shared" placeholder="shared, blog" />
            </div>
            <div>
              <label for="agent-read-scopes">Also reads</label>
              <input id="agent-read-scopes" name="readScopes" type="text" placeholder="deploy" />
            </div>
          </div>
          {/* One submission creates the agent and its first token; sent again (a reload), it is refused, never a second agent or token. */}
          <input type="hidden" name="issueKey" value={randomBytes(24).toString("base64url")} />
          <button type="submit">Add agent and issue its token</button>
        </form>
        <p class="hint">Scopes are comma-separated; "*" means every scope. Everyone reads "shared". The token is shown once, with the settings for Claude Code, Claude Desktop, VS Code, Cursor and any MCP client.</p>
      </section>
    </Layout>
  );
}

export interface IssuedToken {
  token: string;
  mcpUrl: string;
}

export function AgentPage({
  ctx,
  agent,
  tokens,
  issued,
  notice,
}: {
  ctx: PageContext;
  agent: Agent;
  tokens: TokenRecord[];
  issued?: IssuedToken | undefined;
  notice?: { kind: "ok" | "error"; text: string } | undefined;
}) {
  const action = (what: string) => `${BASE}/agents/${agent.name}/${what}`;
  return (
    <Layout ctx={ctx} title={agent.name}>
      <p>
        <a href={`${BASE}/agents`}>← Agents</a>
      </p>
      <h1>
        {agent.name} <span class="hint">({agent.kind}{agent.disabledAt ? ", disabled" : ""})</span>
      </h1>
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      {issued && (
        <section class="card" aria-labelledby="issued-title">
          <h2 id="issued-title">New token — shown only now</h2>
          <p>Copy it now: it is stored only as a hash and cannot be shown again.</p>
          <p class="secret" id="issued-token" data-token>
            {issued.token}
          </p>
          <button type="button" class="secondary" data-copy="issued-token">
            Copy token
          </button>
          {clientSnippets(issued.mcpUrl, issued.token).map((s) => (
            <>
              <h3>{s.title}</h3>
              <p class="hint">{s.where}</p>
              <pre id={`issued-${s.id}`}>{s.text}</pre>
              <button type="button" class="secondary" data-copy={`issued-${s.id}`}>
                Copy for {s.title}
              </button>
            </>
          ))}
        </section>
      )}
      <section class="card">
        <h2>Scopes</h2>
        <form method="post" action={action("scopes")}>
          <CsrfField csrf={ctx.csrf} />
          <div class="filters">
            <div>
              <label for="scopes">Writes (and reads)</label>
              <input id="scopes" name="scopes" type="text" value={agent.writeScopes.join(", ")} />
            </div>
            <div>
              <label for="read-scopes">Also reads</label>
              <input id="read-scopes" name="readScopes" type="text" value={agent.readScopes.join(", ")} />
            </div>
          </div>
          <button type="submit">Save scopes</button>
        </form>
      </section>
      <section class="card">
        <h2>Tokens</h2>
        <table>
          <thead>
            <tr>
              <th>Id</th>
              <th>Starts with</th>
              <th>Created</th>
              <th>Expires</th>
              <th>Last use</th>
              <th>State</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => (
              <tr data-token-id={String(t.id)}>
                <td>{t.id}</td>
                <td>
                  <code>{t.hint}</code>
                </td>
                <td>{when(t.createdAt)}</td>
                <td>{t.expiresAt ? `${t.expiresAt.toISOString().replace("T", " ").slice(0, 19)} UTC` : "never"}</td>
                <td>{when(t.lastUsedAt)}</td>
                <td>
                  {t.revokedAt ? "revoked" : t.expiresAt && t.expiresAt.getTime() <= Date.now() ? "expired" : "active"}
                  {t.oauthGrant && <span class="hint"> · OAuth: {t.oauthGrant.client} (grant {t.oauthGrant.id})</span>}
                </td>
                <td>
                  {!t.revokedAt && (
                    <form
                      class="inline"
                      method="post"
                      action={`${BASE}/tokens/${t.id}/revoke`}
                      data-ask={
                        t.oauthGrant
                          ? `Revoke token ${t.id} of ${agent.name} and its OAuth grant? ${t.oauthGrant.client} is refused from its next call and must be authorized again.`
                          : `Revoke token ${t.id} of ${agent.name}? Clients using it are refused from their next call.`
                      }
                    >
                      <CsrfField csrf={ctx.csrf} />
                      <button type="submit" class="danger">
                        Revoke
                      </button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {!agent.disabledAt && (
          <form method="post" action={action("tokens")}>
            <CsrfField csrf={ctx.csrf} />
            {/* A new key each time the form is shown: sent twice (a reload), it issues one token. */}
            <input type="hidden" name="issueKey" value={randomBytes(24).toString("base64url")} />
            {/* No sample number as placeholder: "90" read as a default, while empty means never. */}
            <label for="expires-days">Expires after (days)</label>
            <input id="expires-days" name="expiresDays" type="text" inputMode="numeric" placeholder="days, empty = never" />
            <button type="submit">Issue a token</button>
          </form>
        )}
      </section>
      <section class="card">
        <h2>{agent.disabledAt ? "Enable" : "Disable"}</h2>
        <p class="hint">
          {agent.disabledAt
            ? "Enabling lets its tokens that are not revoked work again."
            : "Disabling refuses every token of this agent at once (MCP calls and console sessions), until it is enabled again."}
        </p>
        <form
          method="post"
          action={action(agent.disabledAt ? "enable" : "disable")}
          data-ask={agent.disabledAt ? undefined : `Disable ${agent.name}? Every token of it is refused at once, console sessions included.`}
        >
          <CsrfField csrf={ctx.csrf} />
          <button type="submit" class={agent.disabledAt ? "" : "danger"}>
            {agent.disabledAt ? "Enable agent" : "Disable agent"}
          </button>
        </form>
      </section>
    </Layout>
  );
}
