// WORKERS=N: the real CLI starts N serving processes on one port; both answer,
// /metrics adds them up, the banner comes once, a killed worker is replaced,
// SIGTERM stops them all. With
// the embedded database it refuses to start and says why.
import { readdirSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { onlyJson, runCli, startServe } from "../support/cli.js";
import { createEmptyPostgresDatabase } from "../support/databases.js";
import { connectClient } from "../support/service.js";

let pg: Awaited<ReturnType<typeof createEmptyPostgresDatabase>>;
beforeAll(async () => {
  pg = await createEmptyPostgresDatabase();
});

/** The pids of a process's children (from /proc: field 4 of stat is the parent). */
function childrenOf(pid: number): number[] {
  const kids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) kids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return kids;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** One GET on a connection of its own, so that the cluster hands connections out to every worker. */
function getOnNewConnection(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { Connection: "close" } }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

const metricValue = (text: string, line: RegExp) => text.split("\n").filter((l) => line.test(l)).map((l) => Number(l.split(" ").pop()));

describe("WORKERS", () => {
  it("WORKERS=2 with the embedded database is refused at start-up, saying why", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "am-workers-"));
    const r = await runCli(["serve"], { WORKERS: "2", AGENT_MEMORY_DATA_DIR: dataDir, PORT: "0" });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/WORKERS=2 needs DATABASE_URL: the embedded database \(PGlite\) lives inside one process/);
    expect(r.stdout).not.toMatch(/listening/);
  });

  it("WORKERS=2 with Postgres: two processes serve, /metrics adds them up, one announcement, a dead worker is replaced, SIGTERM stops all", async () => {
    const serve = startServe({ DATABASE_URL: pg.url, WORKERS: "2", FIRST_START_OWNER: "false", AUTH_FAILURES_PER_MINUTE: "0" }, ["--json"]);
    try {
      // The one JSON object the primary prints once every worker listens (log lines carry a "level").
      const announced = await new Promise<{ url: string }>((resolve, reject) => {
        const timer = setInterval(() => {
          const line = serve.stdout().split("\n").find((l) => l.startsWith("{") && !l.includes('"level"'));
          if (line) {
            clearInterval(timer);
            resolve(JSON.parse(line) as { url: string });
          }
        }, 50);
        serve.exited.then((code) => {
          clearInterval(timer);
          reject(new Error(`serve exited with ${code}: ${serve.stderr()} ${serve.stdout()}`));
        });
      });
      const base = announced.url.replace(/\/mcp$/, "");
      const workers = childrenOf(serve.child.pid!);
      expect(workers).toHaveLength(2);

      const token = onlyJson<{ token: string }>(await runCli(["agent", "add", "w", "--scopes", "shared", "--json"], { DATABASE_URL: pg.url })).token;
      const client = await connectClient(announced.url, token);
      for (let i = 0; i < 5; i++) expect((await client.callTool({ name: "whoami", arguments: {} })).isError).toBeFalsy();
      await client.close();
      for (let i = 0; i < 40; i++) expect((await getOnNewConnection(`${base}/healthz`)).status).toBe(200);

      const metrics = (await getOnNewConnection(`${base}/metrics`)).body;
      // One info line per worker, naming exactly the primary's two children.
      const pids = [...metrics.matchAll(/^agent_memory_worker_info\{worker="(\d)",pid="(\d+)"\} 1$/gm)].map((m) => Number(m[2]));
      expect(pids.sort()).toEqual([...workers].sort());
      // Both answered requests (the cluster spreads connections over them).
      const perWorker = metricValue(metrics, /^agent_memory_worker_http_requests_total\{worker="[12]"\}/);
      expect(perWorker).toHaveLength(2);
      for (const n of perWorker) expect(n).toBeGreaterThan(0);
      // Added up over the workers: every request counted once.
      expect(metricValue(metrics, /^agent_memory_http_requests_total\{route="\/healthz",status="200"\}/)).toEqual([40]);
      expect(metricValue(metrics, /^agent_memory_tool_calls_total\{tool="whoami",outcome="ok"\}/)).toEqual([5]);

      // Announced once: one JSON object, one "all workers listening".
      expect(serve.stdout().split("\n").filter((l) => l.startsWith("{") && !l.includes('"level"'))).toHaveLength(1);
      expect(serve.stdout().match(/all workers listening/g)).toHaveLength(1);

      // A worker that dies is replaced; the service keeps answering.
      process.kill(workers[0]!, "SIGKILL");
      let now: number[] = [];
      for (let i = 0; i < 300; i++) {
        now = childrenOf(serve.child.pid!);
        if (now.length === 2 && !now.includes(workers[0]!) && /"worker":1,.*worker stopped unexpectedly/.test(serve.stdout())) {
          const info = (await getOnNewConnection(`${base}/metrics`)).body;
          if ([...info.matchAll(/^agent_memory_worker_info\{/gm)].length === 2) break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(now).toHaveLength(2);
      expect(now).not.toContain(workers[0]);
      for (let i = 0; i < 10; i++) expect((await getOnNewConnection(`${base}/healthz`)).status).toBe(200);

      serve.child.kill("SIGTERM");
      expect(await serve.exited).toBe(0);
      for (const pid of [...workers, ...now]) expect(alive(pid), `worker ${pid} still running`).toBe(false);
      // The two workers running at the end stopped gracefully.
      expect(serve.stdout().match(/"msg":"stopped"/g)).toHaveLength(2);
    } finally {
      if (serve.child.exitCode === null) serve.child.kill("SIGKILL");
    }
  });
});
