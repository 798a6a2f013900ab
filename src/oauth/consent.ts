// The consent step of /authorize. The SDK validated the client, redirect URI and
// PKCE parameters; we park the request in the database (any replica can answer
// the form), bind it to this browser with a CSRF cookie, and ask the person to
// (1) sign in with a human agent's token and (2) choose the agent the client
// acts as: their own, or, for an admin (a human who may write every scope),
// any enabled agent. The approval becomes a grant and a one-minute code.
import type { OAuthClientInformationFull } from "../mcp-sdk/index.js";
import type { AuthorizationRequest } from "./authorization-server.js";
import express, { type Request, type Response, type Router } from "express";
import type { AppDeps } from "../app-deps.js";
import { ALL_SCOPES, isHuman } from "../auth/scopes.js";
import { IMPORTER_AGENT, listAgents } from "../auth/store.js";
import { checkSignInToken } from "../auth/verifier.js";
import type { Queryable } from "../db/core/database.js";
import { failedAuthLimit } from "../mcp-endpoint/auth.js";
import { choosePage, CONSENT_CSS, displayName, errorPage, signInPage, type AgentChoice, type ClientView } from "./consent-page.js";
import { createGrantWithCode } from "./grants.js";
import { hashSecret, newSecret } from "./secrets.js";
import * as sql from "./sql.js";

/** How long the person has to answer the consent page. */
const REQUEST_TTL_SECONDS = 600;
const CSRF_COOKIE_PREFIX = "am_oauth_csrf_";

interface ConsentContext {
  deps: AppDeps;
  issuer: string;
  getClient(clientId: string): Promise<OAuthClientInformationFull | undefined>;
}

function clientView(client: OAuthClientInformationFull, redirectUri: string): ClientView {
  const url = new URL(redirectUri);
  return { name: displayName(client.client_name), redirectHost: url.host || url.protocol, clientId: client.client_id };
}

/** The page may post to itself and then redirect to the client: CSP form-action must allow both. */
function setPageHeaders(res: Response, redirectUri: string | undefined): void {
  let formAction = "'self'";
  if (redirectUri) {
    const url = new URL(redirectUri);
    formAction += url.protocol === "http:" || url.protocol === "https:" ? ` ${url.origin}` : ` ${url.protocol}`;
  }
  res.setHeader("Content-Security-Policy", `default-src 'none'; style-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`);
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("Cache-Control", "no-store");
  res.type("html");
}

function cookieName(requestId: string): string {
  return CSRF_COOKIE_PREFIX + hashSecret(requestId).slice(0, 16);
}

export async function startConsent(ctx: ConsentContext, client: OAuthClientInformationFull, params: AuthorizationRequest & { resource: string }, res: Response): Promise<void> {
  const requestId = newSecret();
  const csrf = newSecret();
  await ctx.deps.db.query(sql.DELETE_OLD_REQUESTS);
  await ctx.deps.db.query(sql.INSERT_REQUEST, [
    hashSecret(requestId),
    hashSecret(csrf),
    client.client_id,
    params.redirectUri,
    params.codeChallenge,
    params.state ?? null,
    params.resource,
    REQUEST_TTL_SECONDS,
  ]);
  res.cookie(cookieName(requestId), csrf, {
    httpOnly: true,
    sameSite: "strict",
    secure: ctx.issuer.startsWith("https:"),
    path: "/oauth/consent",
    maxAge: REQUEST_TTL_SECONDS * 1000,
  });
  setPageHeaders(res, params.redirectUri);
  res.send(signInPage(clientView(client, params.redirectUri), requestId));
}

interface RequestRow {
  id_hash: string;
  csrf_hash: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  state: string | null;
  resource: string;
  signed_in_agent_id: number | null;
  completed_at: Date | null;
  expired: boolean;
}

function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return undefined;
}

function redirectWith(redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) if (value !== null) url.searchParams.set(key, value);
  return url.href;
}

type Outcome = { status: number; html: string; redirectUri?: string } | { redirect: string };

/** The consent form's fields as text ("" when absent). */
function formOf(req: Request): { text: (key: string) => string } {
  const body = (req.body ?? {}) as Record<string, unknown>;
  return { text: (key) => (typeof body[key] === "string" ? (body[key] as string) : "") };
}

export function consentRouter(ctx: ConsentContext): Router {
  const router = express.Router();
  router.get("/oauth/consent.css", (_req, res) => {
    res.type("css").setHeader("Cache-Control", "public, max-age=3600");
    res.send(CONSENT_CSS);
  });
  // The one failed-attempt limit of every typed token (src/mcp-endpoint/auth.ts), after
  // the body is read: only refused sign-ins (401) count, and over the limit a
  // valid token still signs in. A denial and the choice step check no token
  // (the request id is an unguessable secret bound to this browser's cookie):
  // they are never limited here.
  const failureLimit = failedAuthLimit(ctx.deps, {
    isValid: async (req) => {
      const { text } = formOf(req);
      if (text("decision") === "deny" || text("step") !== "signin") return true;
      return (await checkSignInToken(ctx.deps.db, text("token"))) !== undefined;
    },
    refuse: (res) => {
      setPageHeaders(res, undefined);
      res.status(429).send(errorPage("Too many failed sign-ins from this address; wait a minute and check your token."));
    },
  });
  router.post(
    "/oauth/consent",
    express.urlencoded({ extended: false, limit: "8kb" }),
    ...(failureLimit ? [failureLimit] : []),
    async (req, res) => {
      const { text } = formOf(req);
      const requestId = text("request");
      // The client is looked up before the transaction: a metadata-document client
      // may need a fetch, and the embedded database has one connection, which the
      // transaction holds.
      const clientId = requestId ? (await ctx.deps.db.query<{ client_id: string }>(sql.SELECT_REQUEST_CLIENT, [hashSecret(requestId)])).rows[0]?.client_id : undefined;
      const client = clientId ? await ctx.getClient(clientId) : undefined;
      const outcome = await ctx.deps.db.transaction(async (tx): Promise<Outcome> => {
        const row = requestId ? (await tx.query<RequestRow>(sql.SELECT_REQUEST_FOR_UPDATE, [hashSecret(requestId)])).rows[0] : undefined;
        if (!row || row.completed_at || row.expired) {
          return { status: 400, html: errorPage("This authorization request has expired or was already answered. Start again from the application.") };
        }
        const csrf = readCookie(req, cookieName(requestId));
        if (!csrf || hashSecret(csrf) !== row.csrf_hash) {
          return { status: 403, html: errorPage("This form was not sent from the page this browser opened (cookie missing). Start again from the application.") };
        }
        if (!client || client.client_id !== row.client_id) return { status: 400, html: errorPage("The application is no longer registered. Start again from the application.") };
        const view = clientView(client, row.redirect_uri);
        // Deny needs no sign-in: whoever opened the page may turn the request down.
        if (text("decision") === "deny") return deny(tx, row);
        if (text("step") === "signin") return signIn(tx, row, view, requestId, text("token"));
        return decide(tx, row, view, requestId, text("decision"), text("agent"));
      });
      if ("redirect" in outcome) {
        res.setHeader("Cache-Control", "no-store");
        res.redirect(302, outcome.redirect);
        return;
      }
      setPageHeaders(res, outcome.redirectUri);
      res.status(outcome.status).send(outcome.html);
    },
  );
  return router;

  async function signIn(tx: Queryable, row: RequestRow, view: ClientView, requestId: string, token: string): Promise<Outcome> {
    const check = await checkSignInToken(tx, token);
    if (!check || !isHuman(check.caller)) {
      ctx.deps.metrics.authFailures.inc({ reason: "invalid" });
      const html = signInPage(view, requestId, "That token is not the valid token of a human agent (it may be unknown, revoked, expired, or belong to a non-human agent).");
      return { status: 401, html, redirectUri: row.redirect_uri };
    }
    await tx.query(sql.SIGN_IN_REQUEST, [row.id_hash, check.caller.agentId]);
    const agents = await choicesFor(tx, check.caller.agentId);
    return { status: 200, html: choosePage(view, requestId, check.caller.name, agents), redirectUri: row.redirect_uri };
  }

  /**
   * The agents a person may hand to a client: themself; an admin (writes every
   * scope) also any enabled non-human agent. Never another person: a client
   * acting as a colleague could confirm drafts in their name, and what people
   * confirm must be their own act. Never the importer, which
   * stands for confirmations made before an import.
   */
  async function choicesFor(tx: Queryable, humanId: number): Promise<Array<AgentChoice & { id: number }>> {
    const all = (await listAgents(tx)).filter((a) => !a.disabledAt);
    const human = all.find((a) => a.id === humanId && isHuman(a));
    if (!human) return [];
    const isAdmin = human.writeScopes.includes(ALL_SCOPES);
    const visible = isAdmin ? [human, ...all.filter((a) => a.kind === "agent" && a.name !== IMPORTER_AGENT)] : [human];
    return visible.map((a) => ({ id: a.id, name: a.name, kind: a.kind, writeScopes: a.writeScopes, readScopes: a.readScopes, own: a.id === humanId }));
  }

  async function deny(tx: Queryable, row: RequestRow): Promise<Outcome> {
    await tx.query(sql.COMPLETE_REQUEST, [row.id_hash]);
    return { redirect: redirectWith(row.redirect_uri, { error: "access_denied", error_description: "The person denied the request.", state: row.state, iss: ctx.issuer }) };
  }

  async function decide(tx: Queryable, row: RequestRow, view: ClientView, requestId: string, decision: string, agentName: string): Promise<Outcome> {
    if (!row.signed_in_agent_id) return { status: 400, html: signInPage(view, requestId, "Sign in first."), redirectUri: row.redirect_uri };
    // Checked again at approval: the person may have been disabled, or lost admin rights, meanwhile.
    const choices = await choicesFor(tx, row.signed_in_agent_id);
    const chosen = choices.find((a) => a.name === agentName);
    if (decision !== "approve" || !chosen) {
      return { status: 400, html: errorPage("Choose one of the agents offered on the previous page. Start again from the application."), redirectUri: row.redirect_uri };
    }
    const code = await createGrantWithCode(tx, {
      clientId: row.client_id,
      agentId: chosen.id,
      approvedBy: row.signed_in_agent_id,
      resource: row.resource,
      codeChallenge: row.code_challenge,
      redirectUri: row.redirect_uri,
    });
    await tx.query(sql.COMPLETE_REQUEST, [row.id_hash]);
    ctx.deps.logger.info({ client: row.client_id, agent: chosen.name, approvedBy: row.signed_in_agent_id }, "oauth grant approved");
    return { redirect: redirectWith(row.redirect_uri, { code, state: row.state, iss: ctx.issuer }) };
  }
}
