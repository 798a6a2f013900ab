// Helpers for the OAuth tests: a service with OAuth on a known port (PUBLIC_URL
// must be known before listening), raw protocol steps (register, PKCE, the
// consent forms over plain HTTP, token requests) for the refusal cases.
import { createHash, randomBytes } from "node:crypto";
import { createServer as createNetServer } from "node:net";
import { Writable } from "node:stream";
import type { Database } from "../../src/db/core/database.js";
import { createLogger } from "../../src/logger.js";
import { startService, type RunningService } from "../../src/serve.js";
import { closeWhenFileEnds } from "../support/file-teardown.js";
import { testConfig } from "../support/service.js";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

export interface OAuthService extends RunningService {
  /** The public origin (PUBLIC_URL). */
  base: string;
  /** This replica's own address (differs from base when PUBLIC_URL names another replica). */
  direct: string;
  oauthUrl: string;
  logLines: string[];
}

interface ServiceOptions {
  /** Fetch client ID metadata documents from loopback addresses (served by the test itself). */
  allowLoopbackMetadataDocuments?: boolean;
  /** A short bound for a metadata document to arrive, instead of waiting out the service's. */
  metadataDocumentTimeoutMs?: number;
}

/** A service with OAUTH_MODE=builtin (unless overridden) on 127.0.0.1; its log lines are kept. */
export async function startOAuthService(db: Database, env: Record<string, string> = {}, options: ServiceOptions = {}): Promise<OAuthService> {
  // PUBLIC_URL must name the port before the service listens, so the port is
  // probed first; another test file can take it between the probe and the
  // bind, and then the next free port is tried.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOAuthServiceOn(await freePort(), db, env, options);
    } catch (error) {
      if (attempt >= 5 || !(error instanceof Error) || (error.cause as NodeJS.ErrnoException | undefined)?.code !== "EADDRINUSE") throw error;
    }
  }
}

async function startOAuthServiceOn(port: number, db: Database, env: Record<string, string>, options: ServiceOptions): Promise<OAuthService> {
  const base = `http://127.0.0.1:${port}`;
  const config = testConfig({
    PORT: String(port),
    PUBLIC_URL: base,
    OAUTH_MODE: "builtin",
    OAUTH_RATE_LIMIT_PER_MINUTE: "10000",
    LOG_LEVEL: "debug",
    ...env,
  });
  config.oauth.allowLoopbackMetadataDocuments = options.allowLoopbackMetadataDocuments ?? false;
  config.oauth.metadataDocumentTimeoutMs = options.metadataDocumentTimeoutMs;
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  const service = await startService(config, { logger: createLogger(config.logLevel, sink), print: () => undefined, db });
  // Stopped when the test file ends (test/support/file-teardown.ts), or earlier by hand.
  service.stop = closeWhenFileEnds(service.stop);
  return Object.assign(service, { base: config.publicUrl!, direct: base, oauthUrl: `${config.publicUrl}/oauth/mcp`, logLines });
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
}

export async function registerClient(base: string, metadata: Record<string, unknown>): Promise<RegisteredClient> {
  const response = await fetch(`${base}/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(metadata) });
  if (response.status !== 201) throw new Error(`register: ${response.status} ${await response.text()}`);
  return (await response.json()) as RegisteredClient;
}

export const CALLBACK = "http://127.0.0.1:9/callback";

export function authorizeUrl(base: string, params: Record<string, string>): string {
  const url = new URL("/authorize", base);
  url.search = new URLSearchParams({ response_type: "code", code_challenge_method: "S256", redirect_uri: CALLBACK, ...params }).toString();
  return url.href;
}

/** Reads the hidden request id of a consent page. */
function requestIdOf(html: string): string {
  const m = /name="request" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no request id in page:\n${html}`);
  return m[1]!;
}

interface ConsentAnswer {
  status: number;
  location: string | null;
  html: string;
}

/**
 * The consent step over plain HTTP (the browser test does it in Chromium):
 * open /authorize, sign in with a human's token, choose an agent, answer.
 */
export async function consentWithForms(
  authorize: string,
  options: { token: string; agent?: string; decision?: "approve" | "deny"; dropCookie?: boolean },
): Promise<ConsentAnswer> {
  const first = await fetch(authorize, { redirect: "manual" });
  const firstHtml = await first.text();
  if (first.status !== 200) return { status: first.status, location: first.headers.get("location"), html: firstHtml };
  const cookie = options.dropCookie ? "" : (first.headers.get("set-cookie") ?? "").split(";")[0]!;
  const requestId = requestIdOf(firstHtml);
  const consent = new URL("/oauth/consent", authorize).href;
  const post = (fields: Record<string, string>) =>
    fetch(consent, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie }, body: new URLSearchParams(fields).toString() });
  const signIn = await post({ request: requestId, step: "signin", token: options.token });
  const signInHtml = await signIn.text();
  if (signIn.status !== 200) return { status: signIn.status, location: null, html: signInHtml };
  // Without a choice: the one offered (checked), or else the person's own, listed first.
  const agent = options.agent ?? /name="agent" value="([^"]+)" checked/.exec(signInHtml)?.[1] ?? /name="agent" value="([^"]+)"/.exec(signInHtml)?.[1] ?? "";
  const decide = await post({ request: requestId, step: "decide", decision: options.decision ?? "approve", agent });
  return { status: decide.status, location: decide.headers.get("location"), html: await decide.text() };
}

export function codeFrom(answer: ConsentAnswer): string {
  if (answer.status !== 302 || !answer.location) throw new Error(`expected a redirect, got ${answer.status}: ${answer.html}`);
  const code = new URL(answer.location).searchParams.get("code");
  if (!code) throw new Error(`no code in ${answer.location}`);
  return code;
}

export async function tokenRequest(base: string, fields: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Register a public client, consent as `token` (choosing `agent`), exchange the code: the whole flow without a browser. */
export async function obtainTokens(service: OAuthService, token: string, agent?: string) {
  const client = await registerClient(service.base, { redirect_uris: [CALLBACK], client_name: "Test client", token_endpoint_auth_method: "none" });
  const { verifier, challenge } = pkcePair();
  const code = codeFrom(await consentWithForms(authorizeUrl(service.base, { client_id: client.client_id, code_challenge: challenge, resource: service.oauthUrl }), { token, agent }));
  const exchanged = await tokenRequest(service.base, { grant_type: "authorization_code", client_id: client.client_id, code, code_verifier: verifier, redirect_uri: CALLBACK, resource: service.oauthUrl });
  if (exchanged.status !== 200) throw new Error(`token: ${JSON.stringify(exchanged.body)}`);
  return { client, code, verifier, accessToken: exchanged.body.access_token as string, refreshToken: exchanged.body.refresh_token as string };
}

/** POSTs an MCP initialize with a bearer token; answers the status and WWW-Authenticate. */
export async function probeMcp(url: string, token?: string): Promise<{ status: number; wwwAuthenticate: string | null; body: string }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { Accept: "application/json, text/event-stream", "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "probe", version: "1" } } }),
  });
  return { status: response.status, wwwAuthenticate: response.headers.get("www-authenticate"), body: await response.text() };
}
