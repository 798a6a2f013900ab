// The configuration is written down in two places besides src/config/index.ts:
// .env.example and docs/configuration.md. Both must name every variable the
// config module reads, with the default it applies, so neither can drift. Both
// ways: every variable another page tells an operator to set, and every one the
// code reads outside the config schemas, has its row in docs/configuration.md.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
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

/** Read by the OpenTelemetry SDK itself (docs/tracing.md), not by the service: named in configuration.md's prose. */
const READ_BY_OPENTELEMETRY = new Set([
  "OTEL_TRACES_SAMPLER_ARG",
  "OTEL_EXPORTER_OTLP_HEADERS",
  "OTEL_EXPORTER_OTLP_TIMEOUT",
  "OTEL_BSP_SCHEDULE_DELAY",
  "OTEL_BSP_MAX_QUEUE_SIZE",
  "OTEL_RESOURCE_ATTRIBUTES",
]);

/**
 * NAME=value in the docs that are not the service's settings: the shell variables of a
 * recipe or a script, what the secret guard refuses, a client's own environment, the
 * test suite's and the benchmark's switches, other programs' variables.
 */
const NOT_SETTINGS = new Set([
  // docs/replicas.md's recipe and docs/snapshots.md's nightly job
  "BIN", "PRIMARY_HOST", "PRIMARY_PORT", "PRIMARY_DATA", "STANDBY_HOST", "STANDBY_PORT", "STANDBY_DATA", "REPLICATION_PASSWORD", "PGPASSWORD", "MEMORY_REPO",
  // examples of assignments the secret guard refuses (docs/secrets.md)
  "DB_PASSWORD", "SECRET_KEY", "STRIPE_API_KEY", "GH_TOKEN",
  // psql's, Docker's and Node's; the reference server's file; a client's token
  "ON_ERROR_STOP", "NODE_ENV", "MEMORY_FILE_PATH", "AGENT_MEMORY_TOKEN", "AGENT_MEMORY_AUTH",
  // the tests' and the benchmark's own switches (docs/testing.md, bench/README.md)
  "KEEP_TEST_DB", "UPDATE_SCREENSHOTS", "SHOW_ROWS_READ", "FUZZ_RUNS", "ISOLATION_RUNS", "AGENT_MEMORY_BENCH_CLI",
]);

/** Every docs page and the README, as the docs test reads them. */
const docPages = ["README.md", ...readdirSync(new URL("../../docs/", import.meta.url), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md")).map((f) => join("docs", f))];

/** Names the docs set as variables: NAME=… anywhere (prose, code, a compose file's environment). */
function namesSetInDocs(): Map<string, string> {
  const found = new Map<string, string>();
  for (const page of docPages) {
    for (const m of read(page).matchAll(/(?<![A-Za-z0-9_$])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=/g)) {
      if (!found.has(m[1]!)) found.set(m[1]!, page);
    }
  }
  return found;
}

/** Variables the service's code reads outside the config schemas (`env.NAME`, `process.env.NAME`, `env["NAME"]`). */
function namesReadInSource(): Map<string, string> {
  const found = new Map<string, string>();
  const root = new URL("../../src/", import.meta.url);
  for (const file of readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => /\.tsx?$/.test(f))) {
    const text = readFileSync(new URL(file, root), "utf8");
    for (const m of text.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]+)|\["([A-Z][A-Z0-9_]+)"\])/g)) found.set(m[1] ?? m[2]!, `src/${file}`);
  }
  return found;
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

  it("every variable the docs tell an operator to set is in docs/configuration.md", () => {
    const configuration = read("docs/configuration.md");
    const documented = documentedDefaults();
    const set = namesSetInDocs();
    expect(set.size).toBeGreaterThan(15);
    for (const [name, page] of set) {
      if (NOT_SETTINGS.has(name)) continue;
      if (READ_BY_OPENTELEMETRY.has(name)) {
        expect(configuration, `${name} (set in ${page}) is read by OpenTelemetry; docs/configuration.md should name it`).toContain(`\`${name}\``);
        continue;
      }
      expect(documented.has(name) || COMPOSE_ONLY.has(name), `${name} is set in ${page} but has no row in docs/configuration.md`).toBe(true);
    }
  });

  it("every variable the code reads is documented in docs/configuration.md", () => {
    const documented = documentedDefaults();
    for (const key of Object.keys(defaults)) expect(documented.has(key), `${key} is read by the config schemas`).toBe(true);
    for (const [name, file] of namesReadInSource()) {
      expect(documented.has(name), `${name} is read by ${file} but has no row in docs/configuration.md`).toBe(true);
    }
  });
});
