// Client ID metadata documents: a client identified by the https URL of its
// metadata. Fetching a URL a stranger chose must not become a way to probe our
// network or hang our workers: too large, slow, redirecting and private
// addresses are refused with invalid_client, and nothing is stored.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { METADATA_DOCUMENT_MAX_BYTES } from "../../src/oauth/metadata-document.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, connectClient, callOk, type TestAgent } from "../support/service.js";
import { authorizeUrl, CALLBACK, codeFrom, consentWithForms, pkcePair, startOAuthService, tokenRequest, type OAuthService } from "./support.js";

let tdb: TestDatabase;
let service: OAuthService;
let strict: OAuthService;
let docs: Server;
let docsBase: string;
let alice: TestAgent;

const document = (clientId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ client_id: clientId, client_name: "Metadata Doc Client", redirect_uris: [CALLBACK], token_endpoint_auth_method: "none", ...extra });

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  docs = createServer((req, res) => {
    const url = `${docsBase}${req.url}`;
    if (req.url === "/good.json") return res.end(document(url));
    if (req.url === "/big.json") return res.end(document(url, { software_statement: "x".repeat(METADATA_DOCUMENT_MAX_BYTES) }));
    if (req.url === "/redirect.json") {
      res.writeHead(302, { location: `${docsBase}/good.json` });
      return res.end();
    }
    if (req.url === "/slow.json") return void setTimeout(() => res.end(document(url)), 8000);
    if (req.url === "/other-id.json") return res.end(document("https://elsewhere.example/client.json"));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => docs.listen(0, "127.0.0.1", resolve));
  docsBase = `http://127.0.0.1:${(docs.address() as AddressInfo).port}`;
  // The loopback override is test-only: it lets this test serve documents locally.
  service = await startOAuthService(tdb.openPool(3), {}, { allowLoopbackMetadataDocuments: true, metadataDocumentTimeoutMs: 300 });
  strict = await startOAuthService(tdb.openPool(3));
  alice = await addAgent(tdb.db, "alice", { kind: "human" });
});

afterAll(async () => {
  docs?.closeAllConnections();
  docs?.close();
});

async function authorizeWith(target: OAuthService, clientId: string) {
  const response = await fetch(authorizeUrl(target.base, { client_id: clientId, code_challenge: pkcePair().challenge }), { redirect: "manual" });
  return { status: response.status, body: await response.text() };
}

const storedClients = async () => (await tdb.db.query<{ client_id: string }>("select client_id from oauth_clients")).rows.map((r) => r.client_id);

describe("client ID metadata documents", () => {
  it("a good document: the consent page names the client and the flow completes", async () => {
    const clientId = `${docsBase}/good.json`;
    const { verifier, challenge } = pkcePair();
    const answer = await consentWithForms(authorizeUrl(service.base, { client_id: clientId, code_challenge: challenge }), { token: alice.token });
    const code = codeFrom(answer);
    const tokens = await tokenRequest(service.base, { grant_type: "authorization_code", client_id: clientId, code, code_verifier: verifier });
    expect(tokens.status).toBe(200);
    const client = await connectClient(service.oauthUrl, tokens.body.access_token as string);
    expect((await callOk<{ name: string }>(client, "whoami")).name).toBe("alice");
    await client.close();
    const page = await authorizeWith(service, clientId);
    expect(page.body).toContain("Metadata Doc Client");
  });

  it("refuses a document larger than the limit", async () => {
    const answer = await authorizeWith(service, `${docsBase}/big.json`);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ error: "invalid_client", error_description: `The client metadata document ${docsBase}/big.json was refused: it is larger than ${METADATA_DOCUMENT_MAX_BYTES} bytes.` });
  });

  it("refuses a slow document after the timeout", async () => {
    const answer = await authorizeWith(service, `${docsBase}/slow.json`);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error_description).toMatch(/did not arrive within 300 ms/);
  });

  it("refuses a redirect instead of following it", async () => {
    const answer = await authorizeWith(service, `${docsBase}/redirect.json`);
    expect(JSON.parse(answer.body)).toMatchObject({ error: "invalid_client", error_description: expect.stringContaining("redirects are not followed") });
  });

  it("refuses a document whose client_id is not its own URL", async () => {
    const answer = await authorizeWith(service, `${docsBase}/other-id.json`);
    expect(JSON.parse(answer.body).error_description).toContain("client_id must equal the document's URL");
  });

  it("without the test-only override: refuses private and loopback addresses, by literal and by DNS", async () => {
    const port = new URL(docsBase).port;
    for (const [clientId, why] of [
      [`https://127.0.0.1:${port}/good.json`, "private, loopback or reserved address"],
      [`https://localhost:${port}/good.json`, "private, loopback or reserved address"],
      [`https://10.1.2.3/client.json`, "private, loopback or reserved address"],
      [`https://[::1]:${port}/good.json`, "private, loopback or reserved address"],
      [`http://example.com/client.json`, "must use https"],
    ] as const) {
      const answer = await authorizeWith(strict, clientId);
      expect(answer.status, clientId).toBe(400);
      expect(JSON.parse(answer.body), clientId).toMatchObject({ error: "invalid_client", error_description: expect.stringContaining(why) });
    }
    const stored = await storedClients();
    for (const refused of ["big", "slow", "redirect", "other-id"]) expect(stored).not.toContain(`${docsBase}/${refused}.json`);
    expect(stored.filter((id) => id.startsWith("https://"))).toEqual([]);
  });
});
