// The working directory's .env, read by the real CLI as docker compose reads it:
// its variables apply, a variable already set in the environment wins, and a bad
// value in it is reported like one in the environment.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyEnvFile } from "../../src/config/env-file.js";

const main = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const run = promisify(execFile);
let dir: string;

/** The environment of this process without any setting the CLI would read. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  return { ...env, ...extra };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "am-env-file-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("applyEnvFile", () => {
  it("sets what the environment lacks, keeps what it has, and parses quotes, comments and export", () => {
    writeFileSync(join(dir, ".env"), '# a comment\nPORT=9090\nexport HOST=0.0.0.0\nPUBLIC_URL="https://memory.example.com"\nLOG_LEVEL=debug # trailing\n');
    const env: NodeJS.ProcessEnv = { PORT: "8181" };
    expect(applyEnvFile(env, dir).sort()).toEqual(["HOST", "LOG_LEVEL", "PUBLIC_URL"]);
    expect(env).toEqual({ PORT: "8181", HOST: "0.0.0.0", PUBLIC_URL: "https://memory.example.com", LOG_LEVEL: "debug" });
  });

  it("does nothing without a .env", () => {
    const env: NodeJS.ProcessEnv = {};
    expect(applyEnvFile(env, dir)).toEqual([]);
    expect(env).toEqual({});
  });
});

describe("the CLI reads ./.env", () => {
  it("uses the data folder .env names, unless the environment names another", async () => {
    writeFileSync(join(dir, ".env"), "AGENT_MEMORY_DATA_DIR=./from-env-file\n");
    await run("node", [main, "agent", "list", "--json"], { cwd: dir, env: cleanEnv() });
    expect(existsSync(join(dir, "from-env-file"))).toBe(true);
    await run("node", [main, "agent", "list", "--json"], { cwd: dir, env: cleanEnv({ AGENT_MEMORY_DATA_DIR: "./from-environment" }) });
    expect(existsSync(join(dir, "from-environment"))).toBe(true);
  }, 60_000);

  it("names a bad value in .env as it names one in the environment", async () => {
    writeFileSync(join(dir, ".env"), "PORT=eighty\n");
    const failed = await run("node", [main, "agent", "list"], { cwd: dir, env: cleanEnv() }).then(
      () => undefined,
      (error: { stderr: string; code: number }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain("PORT");
  }, 60_000);
});
