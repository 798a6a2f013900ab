// A `fetch` that serves each request through the app's own HTTP handling in this
// process, without a socket: the request's bytes cross an in-memory connection
// (node:stream duplexPair) into a Node HTTP server that never listens, which
// hands it to the Express app as a real connection would. Authentication,
// routing, the MCP endpoint and the error pages all run as in production; what
// is left out is the port (and what the service puts around it: connection
// limits, shutdown). Tests whose subject is a tool's behaviour use it; tests
// of the transport itself keep a real socket (startTestService).
import { createServer, request, type RequestListener } from "node:http";
import { duplexPair, Readable, type Duplex } from "node:stream";

export interface InProcessFetch {
  fetch: typeof fetch;
  /** Ends every connection still open (a client's standing event stream). */
  close(): void;
}

export function inProcessFetch(app: RequestListener): InProcessFetch {
  const server = createServer(app);
  const open = new Set<Duplex>();

  const fetchInProcess = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const body = req.body ? Buffer.from(await req.arrayBuffer()) : undefined;
    const [clientSide, serverSide] = duplexPair();
    open.add(serverSide);
    serverSide.once("close", () => open.delete(serverSide));
    // The service's per-address bounds read the socket's address, as they would a loopback client's.
    Object.defineProperty(serverSide, "remoteAddress", { value: "127.0.0.1" });
    server.emit("connection", serverSide);

    const headers: Record<string, string> = {};
    req.headers.forEach((value, name) => (headers[name] = value));
    if (body) headers["content-length"] = String(body.length);
    return new Promise<Response>((resolve, reject) => {
      const outgoing = request(req.url, {
        method: req.method,
        headers,
        createConnection: () => clientSide as never,
        signal: req.signal,
      });
      outgoing.once("error", (error) => {
        serverSide.destroy();
        reject(error);
      });
      outgoing.once("response", (incoming) => {
        const responseHeaders = new Headers();
        for (let i = 0; i < incoming.rawHeaders.length; i += 2) responseHeaders.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
        const status = incoming.statusCode ?? 500;
        const empty = req.method === "HEAD" || status === 204 || status === 304;
        if (empty) incoming.resume();
        incoming.once("close", () => serverSide.destroy());
        resolve(new Response(empty ? null : (Readable.toWeb(incoming) as ReadableStream), { status, statusText: incoming.statusMessage ?? "", headers: responseHeaders }));
      });
      outgoing.end(body);
    });
  };

  return {
    fetch: fetchInProcess as typeof fetch,
    close: () => {
      for (const socket of open) socket.destroy();
    },
  };
}
