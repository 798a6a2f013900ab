// Client ID metadata documents: a client whose client_id is an https URL
// publishes its metadata there, and we fetch it instead of asking it to
// register. Fetching a URL a stranger chose is a server-side request forgery
// risk, so: https only, the resolved address must be public (checked inside the
// socket's own DNS lookup, so a rebinding answer cannot slip in between check
// and connect), no redirects, a small size limit and a short timeout.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { BlockList, isIP } from "node:net";
import { type OAuthClientInformationFull, OAuthClientMetadataSchema, OAuthErrorCode } from "../mcp-sdk/index.js";
import { oauthError } from "./protocol.js";

export const METADATA_DOCUMENT_MAX_BYTES = 5 * 1024;
const METADATA_DOCUMENT_TIMEOUT_MS = 5000;

interface FetchOptions {
  /** TEST ONLY: accept http and loopback addresses (127.0.0.0/8, ::1). */
  allowLoopback: boolean;
  maxBytes?: number;
  timeoutMs?: number | undefined;
}

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) PRIVATE.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8], ["64:ff9b::", 96], ["2001:db8::", 32]] as const) {
  PRIVATE.addSubnet(net, prefix, "ipv6");
}
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

export function isMetadataDocumentClientId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

function blockedAddress(address: string, allowLoopback: boolean): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const type = isIP(ip) === 6 ? "ipv6" : "ipv4";
  if (allowLoopback && LOOPBACK.check(ip, type)) return false;
  return PRIVATE.check(ip, type);
}

const refuse = (url: string, why: string) => oauthError(OAuthErrorCode.InvalidClient, `The client metadata document ${url} was refused: ${why}.`);

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export async function fetchClientMetadataDocument(clientId: string, options: FetchOptions): Promise<OAuthClientInformationFull> {
  const maxBytes = options.maxBytes ?? METADATA_DOCUMENT_MAX_BYTES;
  const timeoutMs = options.timeoutMs ?? METADATA_DOCUMENT_TIMEOUT_MS;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw oauthError(OAuthErrorCode.InvalidClient, "client_id is not a registered client id nor a valid URL.");
  }
  if (url.protocol !== "https:" && !(options.allowLoopback && url.protocol === "http:")) throw refuse(clientId, "the URL must use https");
  if (url.pathname === "/" || url.hash || url.username || url.password) {
    throw refuse(clientId, "the URL must have a path and no fragment or credentials");
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) && blockedAddress(host, options.allowLoopback)) throw refuse(clientId, "it points at a private, loopback or reserved address");

  // Runs inside the socket's connect: the address checked is the address used.
  const checkedLookup = (hostname: string, lookupOptions: { all?: boolean }, callback: LookupCallback) => {
    dnsLookup(hostname, { all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      if (list.length === 0 || list.some((a) => blockedAddress(a.address, options.allowLoopback))) {
        return callback(Object.assign(new Error("private address"), { code: "EPRIVATE" }), []);
      }
      if (lookupOptions.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };

  const body = await new Promise<string>((resolve, reject) => {
    const client = url.protocol === "https:" ? https : http;
    const request = client.get(url, { lookup: checkedLookup as never, headers: { accept: "application/json" } }, (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        response.destroy();
        return reject(refuse(clientId, "it answered with a redirect, and redirects are not followed"));
      }
      if (status !== 200) {
        response.destroy();
        return reject(refuse(clientId, `it answered HTTP ${status}`));
      }
      const declared = Number(response.headers["content-length"] ?? "0");
      if (declared > maxBytes) {
        response.destroy();
        return reject(refuse(clientId, `it is larger than ${maxBytes} bytes`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          response.destroy();
          reject(refuse(clientId, `it is larger than ${maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      response.on("error", () => reject(refuse(clientId, "the connection failed")));
    });
    const deadline = setTimeout(() => {
      request.destroy();
      reject(refuse(clientId, `it did not arrive within ${timeoutMs} ms`));
    }, timeoutMs);
    request.on("close", () => clearTimeout(deadline));
    request.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(deadline);
      reject(refuse(clientId, error.code === "EPRIVATE" ? "it points at a private, loopback or reserved address" : "it could not be fetched"));
    });
  });
  return parseDocument(clientId, body);
}

function parseDocument(clientId: string, body: string): OAuthClientInformationFull {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw refuse(clientId, "it is not JSON");
  }
  const parsed = OAuthClientMetadataSchema.safeParse(json);
  if (!parsed.success) throw refuse(clientId, `its metadata is invalid (${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")})`);
  if ((json as { client_id?: unknown }).client_id !== clientId) throw refuse(clientId, "its client_id must equal the document's URL");
  const method = parsed.data.token_endpoint_auth_method ?? "none";
  // A document is public: it cannot carry a shared secret.
  if (method !== "none") throw refuse(clientId, `token_endpoint_auth_method "${method}" is not supported for metadata documents (use "none")`);
  return { ...parsed.data, token_endpoint_auth_method: "none", client_id: clientId };
}
