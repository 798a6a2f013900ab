// Where the owner's first token goes: into the banner only for a person at a
// terminal; otherwise into a 0600 file whose path (never the token) is shown
// and logged.
import { lstatSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { banner as bannerText } from "../../src/start/banner.js";
import { loadConfig } from "../../src/config/index.js";
import { createLogger } from "../../src/logger.js";
import { startService } from "../../src/serve.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { testConfig } from "../support/service.js";
import { createAgent } from "../../src/auth/store.js";
import { addCaller, fact, store } from "../facts/helpers.js";

let tdb: TestDatabase | undefined;
let dir: string | undefined;
afterEach(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  tdb = undefined;
  dir = undefined;
});

// The service runs on the test database either way; DATABASE_URL in the config
// makes the banner speak of Postgres, its absence of the embedded database.
async function firstStart(interactive: boolean, plant: (dir: string) => void = () => undefined, env: Record<string, string> = {}, before: (db: TestDatabase) => Promise<void> = async () => undefined) {
  tdb = await createTestDatabase("postgres");
  await before(tdb);
  dir = mkdtempSync(join(tmpdir(), "am-first-token-"));
  plant(dir);
  const config = testConfig({ FIRST_START_OWNER: "true", LOG_LEVEL: "info", AGENT_MEMORY_DATA_DIR: dir, ...env });
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString("utf8"));
      done();
    },
  });
  const printed: string[] = [];
  const service = await startService(config, { logger: createLogger(config.logLevel, sink), print: (t) => printed.push(t), db: tdb.openPool(2), interactive });
  await service.stop();
  return { service, banner: printed.join("\n"), log: logLines.join(""), file: join(dir, "owner-token") };
}

describe("who is the owner", () => {
  it("is created also when agents were added before the first start (the docs' order), as long as no human can sign in", async () => {
    const { service, banner } = await firstStart(true, undefined, {}, async (t) => {
      await createAgent(t.db, { name: "blog-writer", kind: "agent", writeScopes: ["shared", "blog"] });
    });
    expect(service.firstToken).toMatch(/^amk_/);
    expect(banner).toContain('First start: created agent "owner" (human, all scopes)');
  });

  it("is not created where memory is stored already; the banner says how to add a person instead", async () => {
    const { service, banner } = await firstStart(true, undefined, {}, async (t) => {
      const writer = await addCaller(t.db, "blog-writer", { scopes: ["shared"] });
      await store(t.db, writer, fact("written-before"));
    });
    expect(service.firstToken).toBeUndefined();
    expect(banner).toContain("Nobody can sign in to the console yet (no human agent): npx agent-memory agent add NAME --kind human --scopes '*'");
  });
});

describe("the owner's first token", () => {
  it("is shown in the banner to a person at a terminal, and never logged", async () => {
    const { service, banner, log, file } = await firstStart(true);
    expect(service.firstToken).toMatch(/^amk_/);
    expect(banner).toContain(`  ${service.firstToken}`);
    expect(log).not.toContain(service.firstToken);
    expect(() => statSync(file)).toThrow();
  });

  it("on the embedded database, the banner leads to the console for adding agents and offers no CLI command", async () => {
    const { banner } = await firstStart(true);
    const consoleUrl = /web console: (http:\/\/\S+\/console) \(add agents and their tokens, review drafts\)/.exec(banner)?.[1];
    expect(consoleUrl).toBeDefined();
    const next = banner.slice(banner.indexOf("shown only now:"));
    // The first thing after the token is where to add agents: the console, beside the running service.
    expect(next.split("\n").filter(Boolean)[2]).toBe(`Add your agents: sign in with that token at ${consoleUrl}/agents`);
    expect(banner.indexOf("/agents")).toBeLessThan(banner.indexOf("claude mcp add"));
    // Then the CLI, which runs beside the service on either database (cli-live.test.ts).
    expect(banner.indexOf("/agents")).toBeLessThan(banner.indexOf("Or from a shell: npx agent-memory agent add blog-writer --scopes shared,blog"));
  });

  it("on Postgres, the banner says the same", async () => {
    const { banner } = await firstStart(true, undefined, { DATABASE_URL: "postgres://postgres@127.0.0.1:5432/unused" });
    expect(banner).toContain("Add your agents: sign in with that token at");
    expect(banner).toContain("Or from a shell: npx agent-memory agent add blog-writer --scopes shared,blog");
  });

  it("otherwise goes to a 0600 file; banner and log name the file, never the token", async () => {
    const { service, banner, log, file } = await firstStart(false);
    expect(service.firstTokenFile).toBe(file);
    expect(readFileSync(file, "utf8").trim()).toBe(service.firstToken);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(banner).toContain(file);
    expect(banner).toContain("docker compose exec agent-memory agent-memory token issue owner");
    expect(log).toContain(file);
    expect(banner + log).not.toMatch(/amk_/);
  });

  it("says how to issue another token where the service runs: from the host into a container, or with npx beside it", () => {
    const config = loadConfig({});
    const inside = bannerText("http://127.0.0.1:8080/mcp", config, "amk_x", "/data/owner-token", { inContainer: true });
    expect(inside).toContain("docker compose exec agent-memory agent-memory token issue owner");
    const outside = bannerText("http://127.0.0.1:8080/mcp", config, "amk_x", "/srv/am/owner-token", { inContainer: false });
    expect(outside).toContain("Or issue another: npx agent-memory token issue owner");
    expect(outside).not.toContain("docker");
  });

  it("never goes through links planted in its folder beforehand (security audit)", async () => {
    const outside = mkdtempSync(join(tmpdir(), "am-first-token-outside-"));
    try {
      const bait = join(outside, "bait");
      writeFileSync(bait, "untouched\n");
      // At the name the partial file used to have (predictable: the pid), and at the token file itself.
      const { service, file } = await firstStart(false, (d) => {
        symlinkSync(bait, join(d, `owner-token.${process.pid}.partial`));
        symlinkSync(bait, join(d, "owner-token"));
      });
      expect(readFileSync(bait, "utf8")).toBe("untouched\n");
      expect(lstatSync(file).isSymbolicLink()).toBe(false);
      expect(readFileSync(file, "utf8").trim()).toBe(service.firstToken);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
