// Throwaway Postgres clusters for the replica and failover tests: a primary and
// a streaming standby of it, made with the Debian Postgres 15 binaries as the
// `postgres` OS user in a temp folder, on free ports, with their sockets in
// that folder. The server on 5432 is never touched. Each file makes one pair
// and tears it down in afterAll (stop() is safe to call twice).
import { execFile } from "node:child_process";
import { appendFile, chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);
const BIN = "/usr/lib/postgresql/15/bin";
export const CLUSTER_DATABASE = "agent_memory";

/** Runs a Postgres binary: as the `postgres` user when the tests run as root (initdb and postgres refuse root), else as the current user. */
async function asPostgres(command: string, args: string[]): Promise<string> {
  const [file, argv] = process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", join(BIN, command), ...args]] : [join(BIN, command), args];
  const { stdout } = await run(file, argv, { timeout: 60_000 });
  return stdout;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Node {
  port: number;
  dataDir: string;
  /** A URL to the test database on this node (one host). */
  url: string;
  /** One statement on this node's test database (or `database`), on a fresh connection. */
  query<R = Record<string, unknown>>(sql: string, params?: unknown[], database?: string): Promise<R[]>;
  start(): Promise<void>;
  /** pg_ctl stop; `immediate` is a crash as far as the data is concerned. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /**
   * SIGSTOP to the postmaster and every process of the cluster: a host that
   * stops answering without refusing anything (its kernel still accepts
   * connections; nobody reads them). thaw() is SIGCONT.
   */
  freeze(): Promise<void>;
  thaw(): Promise<void>;
  running(): boolean;
}

export interface Pair {
  root: string;
  primary: Node;
  standby: Node;
  /** libpq's multi-host form over both nodes (`target_session_attrs=read-write`). */
  multiHostUrl: string;
  /** Makes the standby synchronous: a commit waits until the standby has it. */
  makeSynchronous(): Promise<void>;
  /** pg_ctl promote on the standby, waiting until it takes writes. */
  promote(): Promise<void>;
  destroy(): Promise<void>;
}

function node(root: string, name: string, port: number): Node {
  const dataDir = join(root, name);
  let isRunning = false;
  const url = `postgres://postgres@127.0.0.1:${port}/${CLUSTER_DATABASE}`;
  return {
    port,
    dataDir,
    url,
    async query<R>(sql: string, params?: unknown[], database = CLUSTER_DATABASE) {
      const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", database, connectionTimeoutMillis: 5000 });
      client.on("error", () => undefined);
      await client.connect();
      try {
        return (await client.query(sql, params)).rows as R[];
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    async start() {
      await asPostgres("pg_ctl", ["-D", dataDir, "-l", join(root, `${name}.log`), "-o", `-p ${port} -k ${root} -c listen_addresses=127.0.0.1`, "-w", "start"]);
      isRunning = true;
    },
    async stop(mode = "fast") {
      if (!isRunning) return;
      isRunning = false;
      await asPostgres("pg_ctl", ["-D", dataDir, "-m", mode, "-w", "stop"]).catch(() => undefined);
    },
    async freeze() {
      await signalCluster(dataDir, "STOP");
    },
    async thaw() {
      await signalCluster(dataDir, "CONT");
    },
    running: () => isRunning,
  };
}

/** Sends `signal` to a cluster's postmaster (postmaster.pid's first line) and to every child of it. */
async function signalCluster(dataDir: string, signal: "STOP" | "CONT"): Promise<void> {
  const postmaster = (await readFile(join(dataDir, "postmaster.pid"), "utf8")).split("\n")[0]!.trim();
  const children = (await run("pgrep", ["-P", postmaster]).catch(() => ({ stdout: "" }))).stdout.split(/\s+/).filter(Boolean);
  // The postmaster first when stopping (it forks no new backend meanwhile), last when continuing.
  const pids = signal === "STOP" ? [postmaster, ...children] : [...children, postmaster];
  await run("kill", [`-${signal}`, ...pids]);
}

/** A primary with a streaming standby (asynchronous until makeSynchronous()). */
export async function createPair(): Promise<Pair> {
  const root = await mkdtemp(join(tmpdir(), "am-cluster-"));
  await chmod(root, 0o777);
  const primary = node(root, "primary", await freePort());
  const standby = node(root, "standby", await freePort());
  const pair: Pair = {
    root,
    primary,
    standby,
    multiHostUrl: `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/${CLUSTER_DATABASE}?target_session_attrs=read-write`,
    async makeSynchronous() {
      await primary.query("alter system set synchronous_standby_names = '*'", [], "postgres");
      await primary.query("select pg_reload_conf()", [], "postgres");
      await until(async () => (await primary.query<{ n: number }>("select count(*)::int as n from pg_stat_replication where sync_state = 'sync'"))[0]!.n === 1);
    },
    async promote() {
      await asPostgres("pg_ctl", ["-D", standby.dataDir, "-w", "promote"]);
      await until(async () => !(await standby.query<{ r: boolean }>("select pg_is_in_recovery() as r"))[0]!.r);
    },
    async destroy() {
      await Promise.all([standby.stop("immediate"), primary.stop("immediate")]);
      await rm(root, { recursive: true, force: true });
    },
  };
  try {
    await asPostgres("initdb", ["-D", primary.dataDir, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
    await appendFile(join(primary.dataDir, "pg_hba.conf"), "host replication all 127.0.0.1/32 trust\n");
    // Test clusters: no fsync (the OS does not crash under them; `stop -m immediate` still loses unflushed WAL buffers as a crash would).
    await appendFile(join(primary.dataDir, "postgresql.conf"), "fsync = off\nmax_connections = 60\nshared_buffers = 16MB\nwal_receiver_status_interval = 1s\n");
    await primary.start();
    await primary.query(`create database ${CLUSTER_DATABASE}`, [], "postgres");
    await asPostgres("pg_basebackup", ["-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres", "-D", standby.dataDir, "-R", "-X", "stream", "-c", "fast"]);
    await standby.start();
    await until(async () => (await primary.query<{ n: number }>("select count(*)::int as n from pg_stat_replication where state = 'streaming'"))[0]!.n === 1);
  } catch (error) {
    await pair.destroy();
    throw error;
  }
  return pair;
}

/** Polls `check` until it is true, or fails after `deadlineMs`. */
async function until(check: () => Promise<boolean>, deadlineMs = 20_000, what = "condition"): Promise<void> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    let last: unknown;
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    if (Date.now() > end) throw new Error(`${what} not reached within ${deadlineMs} ms${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
