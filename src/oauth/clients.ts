// The registered clients, in Postgres so every replica knows them: clients from
// dynamic registration (RFC 7591) and clients identified by the URL of their
// metadata document (fetched on first use, refreshed after DOCUMENT_FRESH_SECONDS).
import type { OAuthClientInformationFull } from "../mcp-sdk/index.js";
import type { Database } from "../db/core/database.js";
import { DomainError } from "../errors.js";
import { type SecretGuard, stringsIn } from "../secrets/guard.js";
import { fetchClientMetadataDocument, isMetadataDocumentClientId } from "./metadata-document.js";
import { hashSecret } from "./secrets.js";
import type { AuthorizationServerProvider } from "./authorization-server.js";
import { oauthError } from "./protocol.js";
import * as sql from "./sql.js";

const invalidMetadata = (message: string) => oauthError("invalid_client_metadata", message);

const DOCUMENT_FRESH_SECONDS = 600;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

interface ClientRow {
  client_id: string;
  secret_hash: string | null;
  metadata: OAuthClientInformationFull;
  from_metadata_document: boolean;
  fresh: boolean;
}

/**
 * Schemes a browser or the system handles itself: no application receives an
 * authorization code through them (file: would hand it to whatever reads local
 * files or the page's own history). javascript:, data: and vbscript: the SDK's
 * schema refuses first; listed anyway, so this list is whole.
 */
const NON_CALLBACK_SCHEMES = new Set(["file:", "ftp:", "ws:", "wss:", "blob:", "about:", "data:", "filesystem:", "javascript:", "vbscript:", "view-source:", "mailto:", "tel:", "sms:"]);

const USE_INSTEAD = "Use https, http on localhost or 127.0.0.1, or your app's own scheme (e.g. com.example.app:/callback).";

/**
 * OAuth 2.1 redirect URIs: https, http only on loopback (native apps), or a
 * private-use scheme such as vscode:// (RFC 8252); never a scheme no app
 * receives codes through (NON_CALLBACK_SCHEMES), a fragment, or a user name or
 * password (the code would go with credentials that the URI leaks wherever it is
 * shown, logged or stored).
 */
function validateRedirectUris(uris: string[]): void {
  if (uris.length === 0) throw invalidMetadata("redirect_uris must list at least one URI.");
  for (const uri of uris) {
    const url = new URL(uri);
    if (url.username || url.password) {
      url.username = "";
      url.password = "";
      throw invalidMetadata(`redirect_uri ${url.href} (credentials removed) has a user name or password in it; a redirect URI carries none. Register it without "user:password@".`);
    }
    if (NON_CALLBACK_SCHEMES.has(url.protocol)) {
      throw invalidMetadata(`redirect_uri ${uri} uses ${url.protocol}, which cannot receive an authorization code safely. ${USE_INSTEAD}`);
    }
    if (url.hash) throw invalidMetadata(`redirect_uri ${uri} must not have a fragment.`);
    if (url.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname)) {
      throw invalidMetadata(`redirect_uri ${uri} must use https (plain http only for localhost or 127.0.0.1).`);
    }
  }
}

/** A client's metadata (its name, URIs, contacts: text anyone may register) passes the secret guard as every stored text does. */
async function checkMetadataText(secrets: SecretGuard, metadata: object): Promise<void> {
  try {
    await secrets.check(stringsIn(metadata));
  } catch (error) {
    if (error instanceof DomainError) throw invalidMetadata(error.message);
    throw error;
  }
}

export function createClientsStore(
  db: Database,
  options: { allowLoopbackMetadataDocuments: boolean; metadataDocumentTimeoutMs?: number | undefined; secrets: SecretGuard },
): Pick<AuthorizationServerProvider, "getClient" | "registerClient"> {
  return {
    async getClient(clientId) {
      const row = (await db.query<ClientRow>(sql.SELECT_CLIENT, [clientId, DOCUMENT_FRESH_SECONDS])).rows[0];
      if (row && (!row.from_metadata_document || row.fresh)) {
        // A confidential client's secret is kept as its hash: client authentication
        // hashes the one sent and compares the two (authorization-server.ts).
        return { ...row.metadata, client_id: row.client_id, ...(row.secret_hash ? { client_secret: row.secret_hash } : {}) };
      }
      if (!isMetadataDocumentClientId(clientId)) return undefined;
      const client = await fetchClientMetadataDocument(clientId, { allowLoopback: options.allowLoopbackMetadataDocuments, timeoutMs: options.metadataDocumentTimeoutMs });
      validateRedirectUris(client.redirect_uris);
      await checkMetadataText(options.secrets, client);
      await db.query(sql.UPSERT_DOCUMENT_CLIENT, [clientId, JSON.stringify(client)]);
      return client;
    },

    async registerClient(client) {
      validateRedirectUris(client.redirect_uris);
      const { client_secret: secret, ...metadata } = client;
      await checkMetadataText(options.secrets, metadata);
      await db.query(sql.INSERT_CLIENT, [client.client_id, secret ? hashSecret(secret) : null, JSON.stringify(metadata)]);
      // The secret goes back to the client once, in this answer; we keep only its hash.
      return client;
    },
  };
}
