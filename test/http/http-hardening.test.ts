// The HTTP edge against clients that misbehave on purpose: proxy headers from
// peers that are not proxies, trickled bodies after a refusal, requests that
// never finish, more connections than allowed. Real sockets against a real
// server where connection handling is the point; supertest for the rest.
import { Agent, request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, createTestApp, MCP_HEADERS, startTestService, type TestAgent, toolCallBody } from "../support/service.js";

let tdb: TestDatabase;
let agent: TestAgent;

beforeAll(async () => {
  tdb = await createTestDatabase("postgres");
  agent = await addAgent(tdb.db, "writer");
});

const badToken = `amk_${"q".repeat(43)}`;

describe("TRUST_PROXY", () => {
  const guess = (app: Parameters<typeof request>[0], forwardedFor: string) =>
    request(app).post("/mcp").set(MCP_HEADERS).set("Authorization", `Bearer ${badToken}`).set("X-Forwarded-For", forwardedFor).send(toolCallBody("whoami"));

  it("X-Forwarded-For from a peer that is not a listed proxy does not change the address the limiter counts", async () => {
    // The test client is 127.0.0.1, not in 10.0.0.0/8: its header is ignored.
    const { app } = await createTestApp(tdb.db, { AUTH_FAILURES_PER_MINUTE: "3", TRUST_PROXY: "10.0.0.0/8" });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await guess(app, `203.0.113.${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });

  it("the same header from a listed proxy is believed (each client address counted on its own)", async () => {
    const { app } = await createTestApp(tdb.db, { AUTH_FAILURES_PER_MINUTE: "3", TRUST_PROXY: "loopback" });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await guess(app, `203.0.113.${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
  });
});

/** A raw connection that records everything it receives and when it was closed. */
function openSocket(port: number, localAddress?: string): Promise<{ socket: Socket; received: () => string; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", ...(localAddress ? { localAddress } : {}) });
    let data = "";
    const started = Date.now();
    socket.on("data", (d: Buffer) => (data += d.toString()));
    socket.on("error", () => undefined);
    const closed = new Promise<number>((r) => socket.once("close", () => r(Date.now() - started)));
    socket.once("connect", () => resolve({ socket, received: () => data, closed }));
    socket.once("error", reject);
  });
}

const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<"still open">((r) => setTimeout(() => r("still open"), ms))]);

describe("slow and refused connections", () => {
  it("a body trickled after a bad token is cut: the 401 carries Connection: close and the socket is closed", async () => {
    const service = await startTestService(tdb.openPool(2));
    const port = Number(new URL(service.url).port);
    const { socket, received, closed } = await openSocket(port);
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${badToken}\r\n` +
        `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{"jsonrpc":`,
    );
    const trickle = setInterval(() => socket.writable && socket.write(" "), 100);
    try {
      expect(await within(closed, 3000)).not.toBe("still open");
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
    expect(received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(received()).toMatch(/\r\nConnection: close\r\n/i);
  });

  it("a request whose headers never finish is dropped after HTTP_REQUEST_TIMEOUT_MS", async () => {
    const service = await startTestService(tdb.openPool(2), { HTTP_REQUEST_TIMEOUT_MS: "1000" });
    const { socket, closed } = await openSocket(Number(new URL(service.url).port));
    socket.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const trickle = setInterval(() => socket.writable && socket.write("X-Slow: 1\r\n"), 200);
    try {
      expect(await within(closed, 4000)).not.toBe("still open");
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });

  /** Sends one request on a raw connection and waits for the server to close it. */
  const askAndWait = async (c: Awaited<ReturnType<typeof openSocket>>, path = "/healthz") => {
    c.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await within(c.closed, 5000);
    return c.received();
  };

  it("a connection past HTTP_MAX_CONNECTIONS is answered 503 with Retry-After and closed; the ones within keep working", async () => {
    const service = await startTestService(tdb.openPool(2), { HTTP_MAX_CONNECTIONS: "2" });
    const port = Number(new URL(service.url).port);
    const first = await openSocket(port);
    const second = await openSocket(port);
    await new Promise((r) => setTimeout(r, 100));
    const third = await openSocket(port);
    const answer = await askAndWait(third);
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toMatch(/\r\nRetry-After: 1\r\n/i);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer).toContain("Too many open connections from this address or to this service; this request was not run.");
    expect(await within(first.closed, 200)).toBe("still open");
    first.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    await first.closed;
    expect(first.received()).toMatch(/^HTTP\/1\.1 200/);
    second.socket.destroy();
    await second.closed;
    await new Promise((r) => setTimeout(r, 100));
    const ok = await fetch(`${service.url}/healthz`);
    expect(ok.status).toBe(200);
  });

  it("a connection past a bound that sends nothing is closed after REFUSED_REQUEST_WAIT_MS; past twice the bound, at once", async () => {
    // The wait shortened from its 5 s: what is tested is that it ends.
    const service = await startTestService(tdb.openPool(2), { HTTP_MAX_CONNECTIONS: "2" }, (c) => (c.http.refusedRequestWaitMs = 1000));
    const held: Awaited<ReturnType<typeof openSocket>>[] = [];
    try {
      const port = Number(new URL(service.url).port);
      for (let i = 0; i < 4; i++) held.push(await openSocket(port));
      await new Promise((r) => setTimeout(r, 100));
      // Beyond the hard ceiling (twice HTTP_MAX_CONNECTIONS) Node closes on accept, the last resort of a flood.
      const fifth = await openSocket(port);
      expect(await within(fifth.closed, 2000)).not.toBe("still open");
      expect(fifth.received()).toBe("");
      // The two past the bound that never sent a request are closed unanswered after the wait.
      expect(await within(held[2]!.closed, 4000)).not.toBe("still open");
      expect(await within(held[3]!.closed, 1000)).not.toBe("still open");
      expect(await within(held[0]!.closed, 50)).toBe("still open");
    } finally {
      for (const h of held) h.socket.destroy();
    }
  });

  it("one address is served on at most HTTP_MAX_CONNECTIONS_PER_ADDRESS connections, more are answered 503; another address still gets in", async () => {
    const service = await startTestService(tdb.openPool(2), { HTTP_MAX_CONNECTIONS_PER_ADDRESS: "3" });
    const held: Awaited<ReturnType<typeof openSocket>>[] = [];
    try {
      const port = Number(new URL(service.url).port);
      for (let i = 0; i < 3; i++) held.push(await openSocket(port));
      await new Promise((r) => setTimeout(r, 100));
      const fourth = await openSocket(port);
      expect(await askAndWait(fourth)).toMatch(/^HTTP\/1\.1 503 [^]*Retry-After: 1/i);
      for (const h of held) expect(await within(h.closed, 50)).toBe("still open");
      // Another client (127.0.0.2 is this machine too) is not affected.
      const other = await openSocket(port, "127.0.0.2");
      other.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
      await other.closed;
      expect(other.received()).toMatch(/^HTTP\/1\.1 200/);
      // Closing one frees its slot.
      held.shift()!.socket.destroy();
      await new Promise((r) => setTimeout(r, 100));
      const again = await openSocket(port);
      held.push(again);
      again.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
      await again.closed;
      expect(again.received()).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      for (const h of held) h.socket.destroy();
    }
  });

  it("near HTTP_MAX_CONNECTIONS, idle kept-alive connections are closed to make room; busy and new ones are not", async () => {
    const service = await startTestService(tdb.openPool(2), { HTTP_MAX_CONNECTIONS: "10", HTTP_MAX_CONNECTIONS_PER_ADDRESS: "10" });
    const held: Awaited<ReturnType<typeof openSocket>>[] = [];
    try {
      const port = Number(new URL(service.url).port);
      // Seven clients make one request each and keep the connection open (idle).
      for (let i = 0; i < 7; i++) {
        const c = await openSocket(port);
        c.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        while (!c.received().includes("\r\n\r\n")) await new Promise((r) => setTimeout(r, 10));
        held.push(c);
      }
      // One connected but has not sent its request yet: not idle.
      const fresh = await openSocket(port);
      held.push(fresh);
      await new Promise((r) => setTimeout(r, 100));
      for (const h of held) expect(await within(h.closed, 20)).toBe("still open");
      // The ninth (90% of 10) closes the seven idle ones, not the fresh one nor itself.
      const ninth = await openSocket(port);
      held.push(ninth);
      for (const h of held.slice(0, 7)) expect(await within(h.closed, 2000)).not.toBe("still open");
      expect(await within(fresh.closed, 100)).toBe("still open");
      for (const c of [fresh, ninth]) c.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
      await Promise.all([fresh.closed, ninth.closed]);
      expect(fresh.received()).toMatch(/^HTTP\/1\.1 200/);
      expect(ninth.received()).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      for (const h of held) h.socket.destroy();
    }
  });

  it("401, 413 and 429 answers close the connection even when the client asks to keep it alive; a 200 keeps it", async () => {
    const service = await startTestService(tdb.openPool(2), { AUTH_FAILURES_PER_MINUTE: "1", MAX_BODY_BYTES: "1024" });
    const agentPool = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = (token: string, body: string) =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const req = httpRequest(
          `${service.url}/mcp`,
          { method: "POST", agent: agentPool, headers: { ...MCP_HEADERS, Authorization: `Bearer ${token}`, "Content-Length": Buffer.byteLength(body) } },
          (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    try {
      const whoami = JSON.stringify(toolCallBody("whoami"));
      expect(await post(agent.token, whoami)).toEqual({ status: 200, connection: "keep-alive" });
      expect(await post(agent.token, JSON.stringify(toolCallBody("whoami", { pad: "x".repeat(2000) })))).toEqual({ status: 413, connection: "close" });
      expect(await post(badToken, whoami)).toEqual({ status: 401, connection: "close" });
      expect(await post(badToken, whoami)).toEqual({ status: 429, connection: "close" });
    } finally {
      agentPool.destroy();
    }
  });
});

describe("a stopping service", () => {
  it("closes the connections that carry no request, kept alive or never used, instead of waiting SHUTDOWN_TIMEOUT_MS for them", async () => {
    // Ten minutes' grace: a stop that waits for these connections outlasts the test.
    const service = await startTestService(tdb.openPool(2), { SHUTDOWN_TIMEOUT_MS: "600000" });
    const port = Number(new URL(service.url).port);
    const keptAlive = await openSocket(port);
    keptAlive.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    while (!keptAlive.received().includes("\r\n\r\n")) await new Promise((r) => setTimeout(r, 10));
    // Connected, nothing sent (as a client's aborted call or a browser's preconnect leaves it).
    const neverUsed = await openSocket(port);
    try {
      expect(await within(service.stop().then(() => "stopped"), 30_000)).toBe("stopped");
      expect(await within(Promise.all([keptAlive.closed, neverUsed.closed]), 1000)).not.toBe("still open");
      expect(neverUsed.received()).toBe("");
    } finally {
      keptAlive.socket.destroy();
      neverUsed.socket.destroy();
    }
  });
});
