// A Streamable HTTP server transport for what this service does: stateless, one
// POST in, one JSON answer out. The SDK's StreamableHTTPServerTransport turns
// every Node request into a web Request and the answer back into a Node
// response through @hono/node-server; profiling showed that conversion as the
// largest item of a whoami call after the socket writes (bench/README.md,
// "Where one call's time goes"). This one answers on the Node response directly.
//
// It repeats every check the SDK transport makes on a POST (in the same order,
// with the same statuses, codes and messages): Accept, Content-Type, the body
// (413 over 4 MiB, invalid JSON, batch size, JSON-RPC shape), a second
// initialize, MCP-Protocol-Version, 202 for notifications only.
// test/foundation/mcp-transport.test.ts sends the same requests through both
// and requires the same answers. Sessions, SSE and server-to-client requests
// are not part of it: stateless mode has none (GET and DELETE get 405 in
// mcp-route.ts, before any transport).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import { DEFAULT_MAX_REQUEST_BODY_SIZE, MAX_BATCH_SIZE, requestBodyTooLargeMessage } from "@modelcontextprotocol/sdk/server/requestBody.js";
import {
  isInitializeRequest,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { sendDatabaseUnavailable } from "./json-rpc.js";

type AuthedRequest = IncomingMessage & { auth?: AuthInfo; originalUrl?: string };

const NOT_ACCEPTABLE = "Not Acceptable: Client must accept both application/json and text/event-stream";
const UNSUPPORTED_MEDIA = "Unsupported Media Type: Content-Type must be application/json";

export class JsonResponseTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  sessionId = undefined;

  /** The HTTP answer is written: nothing of this request is still running. */
  answered = false;
  private started = false;
  private closed = false;
  private handled = false;
  /** Requests of this POST still without an answer, and the answers so far (in request order). */
  private readonly answers = new Map<RequestId, JSONRPCMessage | undefined>();
  private finish: (() => void) | undefined;

  constructor(
    private readonly req: AuthedRequest,
    private readonly res: ServerResponse,
    /** Why the database could not serve this request, if it could not (then the answer is 503: sendDatabaseUnavailable). */
    private readonly databaseUnavailable: () => string | undefined = () => undefined,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error("Transport already started");
    this.started = true;
  }

  /** Handles the POST; resolves once the answer is written (or the transport closed). */
  async handlePost(parsedBody: unknown): Promise<void> {
    if (this.closed) return this.error(404, -32001, "Session not found");
    if (this.handled) throw new Error("Stateless transport cannot be reused across requests. Create a new transport per request.");
    this.handled = true;
    const { req } = this;
    try {
      // Accept is a list, so a substring check is what the SDK does too.
      const accept = req.headers.accept;
      if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) return this.refuse(406, -32000, NOT_ACCEPTABLE);
      if (!isJsonContentType(req.headers["content-type"])) return this.refuse(415, -32000, UNSUPPORTED_MEDIA);

      let raw = parsedBody;
      if (raw === undefined) {
        // Only when express.json() did not parse it (a Content-Type it does not know but the SDK calls JSON).
        const body = await readBody(req, DEFAULT_MAX_REQUEST_BODY_SIZE);
        if (body === "too large") return this.refuse(413, -32000, requestBodyTooLargeMessage(DEFAULT_MAX_REQUEST_BODY_SIZE));
        try {
          raw = JSON.parse(body);
        } catch {
          return this.refuse(400, -32700, "Parse error: Invalid JSON");
        }
      }
      if (Array.isArray(raw) && raw.length > MAX_BATCH_SIZE) {
        return this.refuse(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
      }
      let messages: JSONRPCMessage[];
      try {
        messages = Array.isArray(raw) ? raw.map((m) => JSONRPCMessageSchema.parse(m)) : [JSONRPCMessageSchema.parse(raw)];
      } catch {
        return this.refuse(400, -32700, "Parse error: Invalid JSON-RPC message");
      }
      if (this.closed) return this.error(404, -32001, "Session not found");
      // The method test first: the zod check builds an error for every message that is not an initialize.
      if (messages.some((m) => "method" in m && m.method === "initialize" && isInitializeRequest(m))) {
        if (messages.length > 1) return this.refuse(400, -32600, "Invalid Request: Only one initialization request is allowed");
      } else {
        const version = req.headers["mcp-protocol-version"];
        if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version))) {
          const message = `Bad Request: Unsupported protocol version: ${String(version)} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`;
          return this.refuse(400, -32000, message);
        }
      }
      const extra: MessageExtraInfo = { authInfo: req.auth, requestInfo: requestInfo(req) };
      const requests = messages.filter(isJSONRPCRequest);
      if (requests.length === 0) {
        for (const message of messages) this.onmessage?.(message, extra);
        this.writeAnswer(202, undefined);
        return;
      }
      const written = new Promise<void>((resolve) => (this.finish = resolve));
      for (const request of requests) this.answers.set(request.id, undefined);
      for (const message of messages) this.onmessage?.(message, extra);
      return written;
    } catch (error) {
      this.onerror?.(error as Error);
      return this.error(400, -32700, "Parse error", String(error));
    }
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    // What is sent is the server's own message (the SDK's Protocol built it; a
    // tool's result was validated against its schema), so its shape says what it
    // is: the SDK transport's zod check of the whole answer would only repeat that.
    const isAnswer = "result" in message || "error" in message;
    const id = isAnswer ? (message as { id?: RequestId }).id : options?.relatedRequestId;
    // Notifications about a request (progress, logs) have nowhere to go in a
    // JSON answer, and there is no standalone stream: dropped, as the SDK does.
    if (id === undefined) {
      if (isAnswer) throw new Error("Cannot send a response on a standalone SSE stream unless resuming a previous client request");
      return;
    }
    if (!this.answers.has(id)) throw new Error(`No connection established for request ID: ${String(id)}`);
    if (!isAnswer) return;
    this.answers.set(id, message);
    const all = [...this.answers.values()];
    if (all.some((a) => a === undefined)) return;
    this.answers.clear();
    const unavailable = this.databaseUnavailable();
    if (unavailable !== undefined) {
      sendDatabaseUnavailable(this.res, unavailable, id);
      this.answered = true;
      this.finish?.();
      return;
    }
    this.writeAnswer(200, JSON.stringify(all.length === 1 ? all[0] : all));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.answers.clear();
    this.finish?.();
    this.onclose?.();
  }

  private writeAnswer(status: number, body: string | undefined): void {
    const { res } = this;
    if (!res.headersSent && !res.destroyed) {
      if (body === undefined) res.writeHead(status).end();
      else res.writeHead(status, { "Content-Type": "application/json" }).end(body);
    }
    this.answered = true;
    this.finish?.();
  }

  private refuse(status: number, code: number, message: string): void {
    this.onerror?.(new Error(message));
    this.error(status, code, message);
  }

  private error(status: number, code: number, message: string, data?: string): void {
    this.writeAnswer(status, JSON.stringify({ jsonrpc: "2.0", error: data === undefined ? { code, message } : { code, message, data }, id: null }));
  }
}

/** What the SDK hands tools as extra.requestInfo: the headers and the full URL. */
function requestInfo(req: AuthedRequest): MessageExtraInfo["requestInfo"] {
  let url: URL | undefined;
  return {
    headers: req.headers,
    // Built only if something reads it (nothing in this service does).
    get url() {
      return (url ??= new URL(req.originalUrl ?? req.url ?? "/", `http://${req.headers.host ?? "localhost"}`));
    },
  };
}

/** The raw body as text, or "too large" past `maxBytes` (the SDK's limit for bodies it reads itself). */
async function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  if (Number(req.headers["content-length"]) > maxBytes) return "too large";
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > maxBytes) return "too large";
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
