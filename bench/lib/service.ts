// The service under test, as a separate process against its own Postgres
// database (created here and dropped at the end), with its memory watched.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createDatabase as createDb, dropDatabase } from "../../test/support/admin-db.js";

/** This checkout's built CLI: the service under test, and the commands the bench runs as a team would. */
export const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

export interface BenchService {
  mcpUrl: string;
  databaseUrl: string;
  pid: number;
  /** Highest resident set size seen so far, in MiB (kernel high-water mark). */
  peakRssMiB(): number;
  rssMiB(): number;
  stop(): Promise<void>;
}

function procStatusMiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** A fresh database `name` on the server of `baseUrl` (dropped first if a failed run left it). */
export async function createDatabase(baseUrl: string, name: string): Promise<{ url: string; drop(): Promise<void> }> {
  await dropDatabase(name, baseUrl);
  const url = await createDb(name, { serverUrl: baseUrl });
  return { url, drop: () => dropDatabase(name, baseUrl) };
}

interface ServiceProcess {
  /** Another build's CLI (bench/floor-ab.ts compares builds); default this checkout's dist. */
  cli?: string;
  /** Node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
}

export async function startBenchService(databaseUrl: string, env: Record<string, string> = {}, proc: ServiceProcess = {}): Promise<BenchService> {
  const child: ChildProcess = spawn(process.execPath, [...(proc.nodeArgs ?? []), proc.cli ?? CLI, "serve", "--json"], {
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, PORT: "0", LOG_LEVEL: "warn", FIRST_START_OWNER: "false", AUTH_FAILURES_PER_MINUTE: "0", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const mcpUrl = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /"url":"([^"]+)"/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`service exited with ${code}: ${out}`)));
  });
  const pid = child.pid!;
  return {
    mcpUrl,
    databaseUrl,
    pid,
    peakRssMiB: () => procStatusMiB(pid, "VmHWM"),
    rssMiB: () => procStatusMiB(pid, "VmRSS"),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
