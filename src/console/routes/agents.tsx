// Agents and tokens in the browser, while the service runs. The same store
// functions as `agent-memory agent|token …`; admins only.
import type { Request, Response, Router } from "express";
import type { AppDeps } from "../../app-deps.js";
import { createAgent, getAgent, issueToken, listAgents, listTokens, revokeToken, setAgentDisabled, setAgentScopes, tokenIssuedByForm } from "../../auth/store.js";
import { DomainError, invalid } from "../../errors.js";
import { onlyRefusals, sendPage, statusOf } from "../render.js";
import { pageContext, requireAdmin, sessionOf } from "../session-middleware.js";
import { AgentPage, AgentsPage, type IssuedToken } from "../views/agents.js";
import { BASE } from "../views/layout.js";

type Notice = { kind: "ok" | "error"; text: string };

const text = (v: unknown) => (typeof v === "string" ? v.trim() : "");
const scopeList = (v: unknown) =>
  text(v)
    .split(/[\s,]+/)
    .filter((s) => s.length > 0);

/** A console form's one-time key (views/agents.tsx): what makes sending it twice harmless. */
const ISSUE_KEY = /^[A-Za-z0-9_-]{16,100}$/;

const DONE: Record<string, string> = {
  scopes: "Scopes saved.",
  disabled: "Agent disabled: its tokens are refused from now on.",
  enabled: "Agent enabled.",
  revoked: "Token revoked: the next MCP call with it is refused, and console sessions made with it end.",
  "revoked-grant": "Token revoked with its OAuth grant: the client's tokens and refresh tokens are refused from now on; it must be authorized again.",
};

function doneNotice(req: Request): Notice | undefined {
  const done = typeof req.query.done === "string" ? DONE[req.query.done] : undefined;
  return done ? { kind: "ok", text: done } : undefined;
}

function mcpUrlOf(deps: AppDeps, req: Request): string {
  return `${deps.config.publicUrl ?? `${req.protocol}://${req.get("host") ?? "localhost"}`}/mcp`;
}

function parseExpiry(raw: string): Date | null {
  if (raw === "") return null;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1) throw invalid(`Expiry must be a whole number of days (1 or more), or empty for never; got "${raw}".`);
  return new Date(Date.now() + Number(raw) * 86_400_000);
}

export function registerAgents(router: Router, deps: AppDeps): void {
  const admin = requireAdmin();
  const audit = (res: Response, action: string, detail: Record<string, unknown>) =>
    deps.logger.info({ agent: sessionOf(res).caller.name, console: action, ...detail }, "console admin action");

  const renderList = async (res: Response, status: number, notice?: Notice) => {
    const [agents, tokens] = await Promise.all([listAgents(deps.db), listTokens(deps.db)]);
    const lastUse = new Map<string, Date>();
    for (const t of tokens) {
      const seen = lastUse.get(t.agent);
      if (t.lastUsedAt && (!seen || t.lastUsedAt > seen)) lastUse.set(t.agent, t.lastUsedAt);
    }
    const rows = agents.map((a) => ({ ...a, lastUsedAt: lastUse.get(a.name) ?? null }));
    sendPage(res, status, <AgentsPage ctx={pageContext(res, "agents")} agents={rows} notice={notice} />);
  };

  const renderAgent = async (res: Response, name: string, status: number, extra: { notice?: Notice; issued?: IssuedToken } = {}) => {
    const agent = await getAgent(deps.db, name);
    const tokens = await listTokens(deps.db, name);
    sendPage(res, status, <AgentPage ctx={pageContext(res, "agents")} agent={agent} tokens={tokens} notice={extra.notice} issued={extra.issued} />);
  };

  /** Domain refusals are shown on the page the person came from; anything else is a server error. */
  const refusal = (error: unknown): Notice & { status: number } => {
    onlyRefusals(error);
    return { kind: "error", text: error.message, status: statusOf(error) };
  };

  router.get("/agents", admin, async (req, res) => {
    await renderList(res, 200, doneNotice(req));
  });

  // One step: the agent and its first token, in one transaction, the token
  // shown at once with each client's settings (rendered, never redirected: the
  // secret exists only in this answer).
  router.post("/agents", admin, async (req, res) => {
    const body = req.body as Record<string, unknown>;
    const kind = text(body.kind) === "human" ? "human" : "agent";
    const name = text(body.name);
    const key = text(body.issueKey);
    const issueKey = ISSUE_KEY.test(key) ? key : undefined;
    try {
      const { agent, token, record } = await deps.db.transaction(async (tx) => {
        const created = await createAgent(tx, { name, kind, writeScopes: scopeList(body.scopes), readScopes: scopeList(body.readScopes) });
        return { ...(await issueToken(tx, created.name, null, { issueKey })), agent: created };
      });
      audit(res, "agent-add", { target: agent.name, kind });
      audit(res, "token-issue", { target: agent.name, tokenId: record.id });
      await renderAgent(res, agent.name, 201, {
        issued: { token, mcpUrl: mcpUrlOf(deps, req) },
        notice: { kind: "ok", text: `Agent ${agent.name} created with its first token (${record.id}).` },
      });
    } catch (error) {
      // The same form sent again (a reload, a double click): the first sending did it all.
      const earlier = error instanceof DomainError && issueKey !== undefined ? await tokenIssuedByForm(deps.db, issueKey) : null;
      if (earlier !== null) {
        await renderAgent(res, name, 409, {
          notice: { kind: "error", text: `This form was already sent: it created ${name} and issued token ${earlier}, whose secret was shown only once. If nobody kept it, revoke that token and issue a new one below.` },
        });
        return;
      }
      const r = refusal(error);
      await renderList(res, r.status, r);
    }
  });

  router.get("/agents/:name", admin, async (req, res) => {
    try {
      await renderAgent(res, String(req.params.name), 200, { ...(doneNotice(req) ? { notice: doneNotice(req)! } : {}) });
    } catch (error) {
      const r = refusal(error);
      await renderList(res, r.status, r);
    }
  });

  const agentAction = (path: string, run: (name: string, body: Record<string, unknown>, req: Request, res: Response) => Promise<void>) => {
    router.post(`/agents/:name/${path}`, admin, async (req, res) => {
      const name = String(req.params.name);
      try {
        await run(name, req.body as Record<string, unknown>, req, res);
      } catch (error) {
        const r = refusal(error);
        try {
          await renderAgent(res, name, r.status, { notice: r });
        } catch {
          await renderList(res, r.status, r);
        }
      }
    });
  };

  agentAction("scopes", async (name, body, _req, res) => {
    await setAgentScopes(deps.db, name, scopeList(body.scopes), scopeList(body.readScopes));
    audit(res, "agent-scopes", { target: name });
    res.redirect(303, `${BASE}/agents/${name}?done=scopes`);
  });
  agentAction("disable", async (name, _body, _req, res) => {
    await setAgentDisabled(deps.db, name, true);
    audit(res, "agent-disable", { target: name });
    res.redirect(303, `${BASE}/agents/${name}?done=disabled`);
  });
  agentAction("enable", async (name, _body, _req, res) => {
    await setAgentDisabled(deps.db, name, false);
    audit(res, "agent-enable", { target: name });
    res.redirect(303, `${BASE}/agents/${name}?done=enabled`);
  });
  agentAction("tokens", async (name, body, req, res) => {
    const key = text(body.issueKey);
    const { token, record } = await issueToken(deps.db, name, parseExpiry(text(body.expiresDays)), { issueKey: ISSUE_KEY.test(key) ? key : undefined });
    audit(res, "token-issue", { target: name, tokenId: record.id });
    // Rendered directly (never redirected): the secret exists only in this answer.
    await renderAgent(res, name, 201, { issued: { token, mcpUrl: mcpUrlOf(deps, req) }, notice: { kind: "ok", text: `Token ${record.id} issued to ${name}.` } });
  });

  router.post("/tokens/:id/revoke", admin, async (req, res) => {
    const raw = String(req.params.id);
    try {
      if (!/^\d{1,15}$/.test(raw)) throw invalid(`Token id must be a number, got "${raw}".`);
      const record = await revokeToken(deps.db, Number(raw));
      audit(res, "token-revoke", { target: record.agent, tokenId: record.id, ...(record.oauthGrant ? { oauthGrantId: record.oauthGrant.id } : {}) });
      res.redirect(303, `${BASE}/agents/${record.agent}?done=${record.oauthGrant ? "revoked-grant" : "revoked"}`);
    } catch (error) {
      const r = refusal(error);
      await renderList(res, r.status, r);
    }
  });
}
