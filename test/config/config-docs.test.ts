// The configuration is written down in two places besides src/config/index.ts:
// .env.example and docs/configuration.md. Both must name every variable the
// config module reads, with the default it applies, so neither can drift.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { envDefaults } from "../../src/config/index.js";

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const defaults = envDefaults();
// Read by docker-compose.yml, not by the service.
const COMPOSE_ONLY = new Set(["POSTGRES_PASSWORD", "AGENT_MEMORY_DB_PASSWORD"]);

/** KEY=value lines of .env.example. */
function exampleValues(): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of read(".env.example").split("\n")) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) values.set(m[1]!, m[2]!);
  }
  return values;
}

/** The Default cell of each `| \`KEY\` | default | meaning |` row of docs/configuration.md. */
function documentedDefaults(): Map<string, string> {
  const cells = new Map<string, string>();
  for (const line of read("docs/configuration.md").split("\n")) {
    const m = /^\| `([A-Z][A-Z0-9_]*)` \| ([^|]*) \|/.exec(line);
    if (m) cells.set(m[1]!, m[2]!.trim());
  }
  return cells;
}

describe("configuration documents", () => {
  it("reads at least the variables everybody sets", () => {
    expect(Object.keys(defaults)).toEqual(expect.arrayContaining(["HOST", "PORT", "DATABASE_URL", "LOG_LEVEL"]));
  });

  it(".env.example sets every variable to its default, and nothing the service does not read", () => {
    const example = exampleValues();
    for (const [key, value] of Object.entries(defaults)) {
      expect(example.has(key), `${key} is missing from .env.example`).toBe(true);
      expect(example.get(key), `${key} in .env.example`).toBe(value);
    }
    for (const key of example.keys()) {
      expect(key in defaults || COMPOSE_ONLY.has(key), `${key} in .env.example is not read by src/config/index.ts`).toBe(true);
    }
  });

  it("docs/configuration.md has a row for every variable with the same default", () => {
    const documented = documentedDefaults();
    for (const [key, value] of Object.entries(defaults)) {
      const cell = documented.get(key);
      expect(cell, `${key} is missing from docs/configuration.md`).toBeDefined();
      if (value === "") {
        // No default: "–" or words saying what happens, never a value in backticks.
        expect(cell!.startsWith("`"), `${key} has no default, docs/configuration.md says ${cell}`).toBe(false);
      } else {
        expect(cell!.startsWith(`\`${value}\``), `${key} defaults to ${value}, docs/configuration.md says ${cell}`).toBe(true);
      }
    }
    for (const key of documented.keys()) {
      expect(key in defaults || COMPOSE_ONLY.has(key), `${key} in docs/configuration.md is not read by src/config/index.ts`).toBe(true);
    }
  });
});
