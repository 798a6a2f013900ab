// `npx agent-memory …` in this repository (the README's way to the CLI): npx
// installs the checkout into its cache, which runs `prepare`, the build. The
// build is incremental (tsconfig.build.json): with nothing changed it rewrites
// nothing in dist/, where a running server loads its code from, and takes a few
// seconds instead of a whole compilation (~20 s on a first npx).
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { SERVICE_VERSION } from "../../src/version.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

describe("npx agent-memory in the repository", () => {
  it("runs the CLI and leaves the built files as they are", async () => {
    const built = statSync(`${root}dist/cli/main.js`).mtimeMs;
    // An empty npm cache: the first npx of a fresh clone, which installs (and prepares) the checkout.
    const cache = mkdtempSync(join(tmpdir(), "am-npx-cache-"));
    try {
      const { stdout } = await promisify(execFile)("npx", ["--yes", "--", "agent-memory", "--version"], { cwd: root, env: { ...process.env, npm_config_cache: cache } });
      expect(stdout.trim()).toBe(SERVICE_VERSION);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
    expect(statSync(`${root}dist/cli/main.js`).mtimeMs).toBe(built);
  });
});
