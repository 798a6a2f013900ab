// docs/replicas.md's recipe for a primary and a streaming standby, run as
// written: the block is taken from the page and run by bash as the `postgres`
// OS user, with its own folders, free ports and passwords, both nodes on
// 127.0.0.1. What its step 4 prints must show the standby streaming and
// counting for commits (ANY 1: "quorum"). The server on 5432 is never touched.
import { execFile } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";

const run = promisify(execFile);
const BIN = "/usr/lib/postgresql/15/bin";
const RECIPE_MARK = "<!-- recipe: primary and standby -->";

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

let root: string | undefined;
const asPostgres = (file: string, args: string[], env: Record<string, string> = {}) =>
  process.getuid?.() === 0
    ? run("runuser", ["-u", "postgres", "--", "env", ...Object.entries(env).map(([k, v]) => `${k}=${v}`), file, ...args], { timeout: 120_000 })
    : run(file, args, { timeout: 120_000, env: { ...process.env, ...env } });

afterAll(async () => {
  if (!root) return;
  for (const node of ["primary", "standby"]) await asPostgres(join(BIN, "pg_ctl"), ["-D", join(root, node), "-m", "immediate", "-w", "stop"]).catch(() => undefined);
  await rm(root, { recursive: true, force: true });
});

it("docs/replicas.md's recipe makes a primary and a synchronous standby that streams", async () => {
  const page = await readFile(new URL("../../docs/replicas.md", import.meta.url), "utf8");
  const after = page.slice(page.indexOf(RECIPE_MARK) + RECIPE_MARK.length);
  const recipe = /```sh\n([\s\S]*?)```/.exec(after)![1]!;
  root = await mkdtemp(join(tmpdir(), "am-recipe-"));
  await chmod(root, 0o777);
  const script = join(root, "recipe.sh");
  await writeFile(script, `set -euo pipefail\n${recipe}`, { mode: 0o755 });
  const env = {
    BIN,
    PRIMARY_HOST: "127.0.0.1",
    PRIMARY_PORT: String(await freePort()),
    PRIMARY_DATA: join(root, "primary"),
    STANDBY_HOST: "127.0.0.1",
    STANDBY_PORT: String(await freePort()),
    STANDBY_DATA: join(root, "standby"),
    POSTGRES_PASSWORD: "recipe-superuser-password",
    REPLICATION_PASSWORD: "recipe-replication-password",
  };
  const { stdout } = await asPostgres("/bin/bash", [script], env);
  // Step 4 may run before the primary has seen the reload: the same query until it says quorum.
  const check = async () =>
    (
      await asPostgres(join(BIN, "psql"), ["-X", "-A", "-t", "-h", "127.0.0.1", "-p", env.PRIMARY_PORT, "-U", "postgres", "-d", "postgres", "-c", "select application_name, state, sync_state from pg_stat_replication"], {
        PGPASSWORD: env.POSTGRES_PASSWORD,
      })
    ).stdout.trim();
  let shown = stdout.trim();
  for (let i = 0; i < 100 && shown !== "standby1|streaming|quorum"; i++) {
    await new Promise((r) => setTimeout(r, 100));
    shown = await check();
  }
  expect(shown).toBe("standby1|streaming|quorum");
});
