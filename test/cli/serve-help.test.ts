// `serve --help` from the real CLI: the service is configured by environment
// variables, so the help names the ones a first day needs, with their defaults
// (read from the config parser), and where the rest are documented.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";

describe("agent-memory serve --help", () => {
  it("lists the first day's settings with their defaults and points to docs/configuration.md", async () => {
    const help = await runCli(["serve", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--json");
    for (const line of [
      /^ {2}PORT=8080 +port to listen on, e\.g\. PORT=3000 npm start$/m,
      /^ {2}HOST=127\.0\.0\.1 +interface to bind/m,
      /^ {2}DATABASE_URL= +Postgres .*unset: the embedded database$/m,
      /^ {2}AGENT_MEMORY_DATA_DIR=\.\/\.agent-memory +folder of the embedded database$/m,
      /^ {2}PUBLIC_URL= +the URL agents use, when behind a proxy/m,
      /^ {2}LOG_LEVEL=info LOG_FORMAT=auto +/m,
    ]) {
      expect(help.stdout).toMatch(line);
    }
    expect(help.stdout).toContain("Every setting: docs/configuration.md");
    const configurationPage = new URL("../../docs/configuration.md", import.meta.url);
    expect(existsSync(configurationPage)).toBe(true);
    // Every setting the help names is one the configuration page documents.
    const documented = readFileSync(configurationPage, "utf8");
    for (const name of help.stdout.match(/^ {2}([A-Z_]+)=/gm)!.map((m) => m.trim().slice(0, -1))) expect(documented).toContain(`| \`${name}\` |`);
  });
});

describe("help of a command with required options", () => {
  it("names them in the usage line and marks each (required)", async () => {
    const help = await runCli(["fact", "redact", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: agent-memory fact redact <ref> --reason <text> --as <human> \[options\]$/m);
    expect(help.stdout).toMatch(/--as <human> +the human agent redacting \(write access to the scope\)\s+\(required\)/);
    expect(help.stdout).toMatch(/--json +print one JSON object$/m);
  });
});
