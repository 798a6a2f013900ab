// Every path that stores text passes the secret guard, by construction: the
// test enumerates the tools (tools/list) and the console's forms (the router's
// POST routes) instead of naming the ones known today, sends credentials in
// the shapes the guard must know (this service's own tokens, Authorization
// headers, NAME_PASSWORD=… assignments, EC and Ed25519 keys, tokens hidden by
// invisible or full-width characters, and text that only normalisation turns
// into a token), and then finds none of them anywhere in the database.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Router } from "express";
import { beforeAll, describe, expect, it } from "vitest";
import { consoleRouter } from "../../src/console/router.js";
import type { RunningService } from "../../src/serve.js";
import { textOf } from "../support/mcp.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, startTestService } from "../support/service.js";
import { postForm, signIn, type SignedIn } from "../console/support.js";

const random = (n: number) => randomBytes(n).toString("base64url").replace(/[-_]/g, "x").slice(0, n);
const ownToken = `amk_${random(43)}`;
const refreshToken = `amr_${random(43)}`;
const githubBody = `A1${random(34)}`;
const ecKey = generateKeyPairSync("ec", { namedCurve: "P-256", privateKeyEncoding: { type: "sec1", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } }).privateKey;
const edKey = generateKeyPairSync("ed25519", { privateKeyEncoding: { type: "pkcs8", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } }).privateKey;
const pemBody = (pem: string) => pem.split("\n")[1]!.slice(0, 24);

/** A credential as an agent or a person would paste it, and a piece of it that any stored form would contain. */
const SECRETS: Array<{ what: string; text: string; marker: string }> = [
  { what: "this service's token in the console's connect line", text: `claude mcp add --transport http agent-memory http://127.0.0.1:8080/mcp --header "Authorization: Bearer ${ownToken}"`, marker: ownToken.slice(4, 30) },
  { what: "a refresh token", text: `refresh with ${refreshToken}`, marker: refreshToken.slice(4, 30) },
  { what: "a Basic header", text: `curl -H "Authorization: Basic ${Buffer.from(`deploy:${random(16)}`).toString("base64")}" https://ci.example.com`, marker: "" },
  // Fixed values: an assignment counts when its value looks generated (entropy), which a random draw may miss.
  { what: "a DB_PASSWORD assignment", text: "DB_PASSWORD=Xk29!fjQm3pLz8Rw", marker: "" },
  { what: "POSTGRES_PASSWORD in YAML", text: 'POSTGRES_PASSWORD: "Tq7#vLm2Zp9xKe4W"', marker: "" },
  { what: "an EC private key", text: ecKey, marker: pemBody(ecKey) },
  { what: "an Ed25519 private key", text: edKey, marker: pemBody(edKey) },
  { what: "a GitHub token split by a zero-width space", text: `ghp_${githubBody.slice(0, 10)}\u200b${githubBody.slice(10)}`, marker: githubBody.slice(10, 30) },
  { what: "a GitHub token in full-width letters", text: `ｇｈｐ＿${githubBody}`, marker: githubBody.slice(2, 24) },
  { what: "a Google API key", text: `key=AIza${random(35)}`, marker: "" },
  { what: "a Hugging Face token", text: `HF hf_${random(34).replace(/[0-9]/g, "q")}`, marker: "" },
];
for (const s of SECRETS) if (s.marker === "") s.marker = /[A-Za-z0-9+/]{12,}/.exec(s.text.split(/[:= ]/).at(-1)!)?.[0] ?? s.text;

let next = 0;
const secret = () => SECRETS[next++ % SECRETS.length]!.text;

/** Valid arguments of every tool that may write; each string in them is replaced by a credential in turn. */
const WRITING_TOOLS: Record<string, Record<string, unknown>> = {
  memory_store: { name: "release-steps", description: "How a release goes", type: "project", body: "Tag, build, publish.", scope: "shared", supersedes: "old-steps" },
  memory_promote: { name: "a-draft", to: "deprecated", reason: "Wrong.", scope: "shared" },
  create_entities: { entities: [{ name: "ci", entityType: "service", observations: ["runs nightly"] }], scope: "shared" },
  create_relations: { relations: [{ from: "ci", to: "vault", relationType: "reads" }], scope: "shared" },
  add_observations: { observations: [{ entityName: "base", contents: ["one more"] }], scope: "shared" },
  delete_entities: { entityNames: ["gone"], scope: "shared" },
  delete_observations: { deletions: [{ entityName: "base", observations: ["kept"] }], scope: "shared" },
  delete_relations: { relations: [{ from: "base", to: "x", relationType: "y" }], scope: "shared" },
  ledger_claim: { action: "deploy_prod", target: "api-1" },
  ledger_record: { action: "deploy_prod", target: "api-2", evidence: "https://ci.example.com/run/1", note: "done" },
  ledger_release: { action: "deploy_prod", target: "api-3", reason: "not today" },
};

/** Every [path, value] of the strings in `value`, and a setter for each. */
function stringSlots(value: unknown, set: (v: unknown) => void = () => undefined): Array<{ path: string; set: (s: string) => void }> {
  if (typeof value === "string") return [{ path: "", set }];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringSlots(v, (n) => (value[i] = n)).map((s) => ({ ...s, path: `[${i}]${s.path}` })));
  if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    return Object.keys(o).flatMap((k) => stringSlots(o[k], (n) => (o[k] = n)).map((s) => ({ ...s, path: `.${k}${s.path}` })));
  }
  return [];
}

/** The console's POST routes, and the form each is sent with (a credential in every free-text field). */
const CONSOLE_FORMS: Record<string, (ctx: { seq: number }) => { path: string; fields: Record<string, string> }> = {
  "/sign-in": () => ({ path: "/console/sign-in", fields: { token: secret() } }),
  "/sign-out": () => ({ path: "/console/sign-out", fields: { note: secret() } }),
  "/review": () => ({ path: "/console/review", fields: { name: "a-draft", scope: "shared", version: "1", to: "deprecated", reason: secret() } }),
  "/facts/:scope/:name/promote": () => ({ path: "/console/facts/shared/a-draft/promote", fields: { version: "1", to: "deprecated", reason: secret() } }),
  "/facts/:scope/:name/redact": () => ({ path: "/console/facts/shared/a-draft/redact", fields: { version: "1", reason: secret() } }),
  "/graph/redact": () => ({ path: "/console/graph/redact", fields: { scope: "shared", name: "base", what: "entity", reason: secret() } }),
  "/ledger/void": ({ seq }) => ({ path: "/console/ledger/void", fields: { record: JSON.stringify([seq, "publish_post", "post-1"]), reason: secret() } }),
  "/agents": () => ({ path: "/console/agents", fields: { name: secret(), kind: "agent", scopes: secret(), readScopes: secret() } }),
  "/agents/:name/:action": () => ({ path: "/console/agents/writer/scopes", fields: { scopes: secret(), readScopes: secret() } }),
  "/tokens/:id/revoke": () => ({ path: "/console/tokens/999999/revoke", fields: { reason: secret() } }),
};

function postRoutes(router: Router): string[] {
  const paths = router.stack.flatMap((layer) => (layer.route && (layer.route as unknown as { methods: Record<string, boolean> }).methods.post ? [String(layer.route.path)] : []));
  // The agent actions are one handler each behind /agents/:name/<action>.
  return [...new Set(paths.map((p) => (/^\/agents\/:name\/[a-z-]+$/.test(p) ? "/agents/:name/:action" : p)))].sort();
}

describe("every path that stores text passes the secret guard (postgres)", () => {
  let tdb: TestDatabase;
  let service: RunningService;
  let writer: Client;
  let person: SignedIn;
  let seq = 0;

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    service = await startTestService(tdb.db);
    writer = await connectClient(service.mcpUrl, (await addAgent(tdb.db, "writer", { scopes: ["shared"] })).token);
    person = await signIn(service.url, (await addAgent(tdb.db, "alice", { kind: "human", scopes: ["*"] })).token);
    await callOk(writer, "memory_store", { name: "a-draft", description: "A draft", type: "project", body: "Draft body." });
    await callOk(writer, "create_entities", { entities: [{ name: "base", entityType: "thing", observations: ["kept"] }] });
    await callOk(writer, "ledger_claim", { action: "publish_post", target: "post-1" });
    seq = (await callOk<{ record: { seq: number } }>(writer, "ledger_record", { action: "publish_post", target: "post-1", evidence: "https://blog.example.com/post-1" })).record.seq;
  });

  it("knows every tool that may write, and none of them stores a credential in any string argument", async () => {
    const tools = (await writer.listTools()).tools;
    const writing = tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name).sort();
    expect(writing).toEqual(Object.keys(WRITING_TOOLS).sort());
    for (const tool of writing) {
      const destructive = tools.find((t) => t.name === tool)!.annotations?.destructiveHint === true;
      const slots = stringSlots(structuredClone(WRITING_TOOLS[tool]!)).length;
      for (let i = 0; i < slots; i++) {
        const args = structuredClone(WRITING_TOOLS[tool]!);
        const slot = stringSlots(args)[i]!;
        slot.set(secret());
        const result = (await writer.callTool({ name: tool, arguments: args })) as CallToolResult;
        // A delete of something that is not there is silent (as in the reference); everything else is refused.
        if (!destructive) expect(result.isError, `${tool}${slot.path}: ${textOf(result)}`).toBe(true);
      }
    }
  });

  it("refuses the ledger's evidence and target in the form stored: a token split by a tab, or spelled with the Kelvin sign", async () => {
    const token = `ghp_${githubBody}`;
    await callOk(writer, "ledger_claim", { action: "deploy_prod", target: "api-9" });
    const tabbed = (await writer.callTool({ name: "ledger_record", arguments: { action: "deploy_prod", target: "api-9", evidence: `https://ci.example.com/run?t=${token.slice(0, 2)}\t${token.slice(2)}` } })) as CallToolResult;
    expect(textOf(tabbed)).toMatch(/^Refused: evidence holds what looks like a GitHub token \(ghp_…\)/);
    const kelvin = `ghp_${githubBody.replace(/[A-Z]/, "\u212A")}`;
    const claimed = (await writer.callTool({ name: "ledger_claim", arguments: { action: "deploy_prod", target: kelvin } })) as CallToolResult;
    expect(textOf(claimed)).toMatch(/^Refused: target holds what looks like a GitHub token/);
  });

  it("knows every console form, and none of them stores a credential a person types", async () => {
    const router = consoleRouter(service.deps);
    expect(postRoutes(router)).toEqual(Object.keys(CONSOLE_FORMS).sort());
    for (const [route, form] of Object.entries(CONSOLE_FORMS)) {
      if (route === "/sign-in" || route === "/sign-out") continue; // They store no text (sign-out would end the session used below).
      const { path, fields } = form({ seq });
      const res = await postForm(service.url, person, path, fields);
      expect(res.status, `${route}: ${res.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
    }
  });

  it("leaves no trace of any credential in any table", async () => {
    const tables = (await tdb.db.query<{ name: string }>("select format('%I.%I', table_schema, table_name) as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'")).rows;
    const found: string[] = [];
    for (const { marker, what } of SECRETS) {
      for (const { name } of tables) {
        const n = (await tdb.db.query<{ n: number }>(`select count(*)::int as n from ${name} t where t::text like '%' || $1 || '%'`, [marker])).rows[0]!.n;
        if (n > 0) found.push(`${what} in ${name}`);
      }
    }
    expect(found).toEqual([]);
  });
});
