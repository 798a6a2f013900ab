// The `.env` file of the working directory, read as docker compose reads it:
// KEY=value lines (quotes, comments and `export` as dotenv writes them, parsed by
// Node's own util.parseEnv), and a variable already set in the environment wins.
// So one file configures `npm start`, every CLI command and `docker compose up`.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseEnv } from "node:util";

export const ENV_FILE = ".env";

/**
 * Sets each variable of `<dir>/.env` that `env` does not have yet; returns the
 * names it set (none when there is no such file). A file that exists but cannot
 * be read is an error: its settings would silently be missing.
 */
export function applyEnvFile(env: NodeJS.ProcessEnv, dir: string = process.cwd()): string[] {
  let text: string;
  try {
    text = readFileSync(resolve(dir, ENV_FILE), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new Error(`${resolve(dir, ENV_FILE)} cannot be read (${(error as Error).message}); fix its permissions or remove it.`);
  }
  const set: string[] = [];
  for (const [key, value] of Object.entries(parseEnv(text))) {
    if (value === undefined || env[key] !== undefined) continue;
    env[key] = value;
    set.push(key);
  }
  return set;
}
