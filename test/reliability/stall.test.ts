// Work one caller can cause must not stall everyone else (second security
// audit). On the embedded database, the service as a process, while an attack
// runs: /healthz is polled and another agent calls whoami, and each answer
// must come within the liveness bounds below, throughout.
// - A console page drawing the diff of two versions that share nothing: the
//   line diff ran on the event loop without bound (2,000 lines: 2.3 s).
// - An entity grown without bound, then deleted: the delete ran into the
//   statement timeout, holding the database's only connection, on every try.
// - A burst of 500 calls from one host (ten agents): connections past the
//   per-address bound were destroyed on accept, and 245 calls were lost.
// Bounds of liveness, not latencies: each attack stalled the service for
// seconds before its fix.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { openPglite } from "../../src/db/embedded/pglite.js";
import { signIn } from "../console/support.js";
import { startServe, type ServeProcess } from "../support/cli.js";
import { tempDirForFile } from "../support/file-teardown.js";
import { TEST_TIMEOUTS } from "../support/databases.js";
import { addAgent, type TestAgent } from "../support/service.js";
import { callTool, callToolOk, type Outcome } from "./support.js";

const HEALTHZ_MAX_MS = 500;
const CALL_MAX_MS = 1000;

let dataDir: string;
let serve: ServeProcess;
let mcpUrl: string;
let base: string;
let attacker: TestAgent;
let bystander: TestAgent;
let reviewer: TestAgent;
let team: TestAgent[];

beforeAll(async () => {
  dataDir = await tempDirForFile("am-stall-");
  // The migrated template on disk: the service's own folder, without initdb's seconds.
  const db = await openPglite({ ...TEST_TIMEOUTS, dataDir, template: inject("pgliteTemplate") });
  attacker = await addAgent(db, "attacker", { scopes: ["shared", "junk"] });
  bystander = await addAgent(db, "bystander");
  reviewer = await addAgent(db, "reviewer", { kind: "human" });
  team = [];
  for (let i = 0; i < 10; i++) team.push(await addAgent(db, `worker-${i}`, { scopes: ["shared", "burst"] }));
  await db.close();
  // The service's own defaults: no test-only connection or rate settings.
  serve = startServe({ AGENT_MEMORY_DATA_DIR: dataDir, FIRST_START_OWNER: "false", LOG_LEVEL: "warn" });
  mcpUrl = await serve.ready;
  base = mcpUrl.replace(/\/mcp$/, "");
}, 120_000);

interface Liveness {
  healthz: number[];
  calls: number[];
  failures: string[];
}

const PROBE = fileURLToPath(new URL("../support/liveness-probe.mjs", import.meta.url));

/** Runs `attack` while a probe process polls /healthz and a bystander's whoami; what the probe saw. */
async function whileRunning<T>(attack: () => Promise<T>): Promise<{ result: T; liveness: Liveness }> {
  const probe = spawn(process.execPath, [PROBE, base, bystander.token], { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  const ready = new Promise<void>((resolve) =>
    probe.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.startsWith("ready\n")) resolve();
    }),
  );
  const exited = new Promise((resolve) => probe.once("exit", resolve));
  // The probe is warmed up and answered before the attack starts.
  await Promise.race([ready, exited]);
  try {
    const result = await attack();
    return { result, liveness: await stopProbe() };
  } catch (error) {
    await stopProbe();
    throw error;
  }
  async function stopProbe(): Promise<Liveness> {
    probe.stdin.end();
    await exited;
    return JSON.parse(out.slice("ready\n".length)) as Liveness;
  }
}

function expectLive(liveness: Liveness) {
  expect(liveness.failures).toEqual([]);
  expect(liveness.healthz.length).toBeGreaterThan(0);
  expect(liveness.calls.length).toBeGreaterThan(0);
  expect(Math.max(...liveness.healthz), `slowest /healthz (ms) of ${JSON.stringify(liveness.healthz)}`).toBeLessThanOrEqual(HEALTHZ_MAX_MS);
  expect(Math.max(...liveness.calls), `slowest whoami of another agent (ms) of ${JSON.stringify(liveness.calls)}`).toBeLessThanOrEqual(CALL_MAX_MS);
}

describe("one caller cannot stall the embedded service", () => {
  it("console pages diffing versions that share nothing stay live, and show the versions undiffed", async () => {
    const one = "a\n".repeat(2000);
    const two = "b\n".repeat(2000);
    const first = await callToolOk<{ fact: { version: number } }>(mcpUrl, attacker.token, "memory_store", {
      name: "wall-of-lines",
      description: "Two thousand lines",
      type: "reference",
      body: one,
    });
    await callToolOk(mcpUrl, attacker.token, "memory_store", { name: "wall-of-lines", description: "Two thousand lines", type: "reference", body: two, version: first.fact.version });
    const session = await signIn(base, reviewer.token);
    const { result: pages, liveness } = await whileRunning(async () => {
      const pages: string[] = [];
      for (let i = 0; i < 3; i++) {
        for (const path of ["/console", "/console/facts/shared/wall-of-lines"]) {
          const res = await request(base).get(path).set("Cookie", session.cookie);
          expect(res.status).toBe(200);
          pages.push(res.text);
        }
      }
      return pages;
    });
    expectLive(liveness);
    for (const page of pages) expect(page).toContain("Too different to compare line by line");
  }, 120_000);

  it("an entity grown as far as it may go, then deleted, keeps the service live", async () => {
    const { result, liveness } = await whileRunning(async () => {
      await callToolOk(mcpUrl, attacker.token, "create_entities", { scope: "junk", entities: [{ name: "Blob", entityType: "t", observations: [] }] });
      const outcomes: Outcome[] = [];
      // The audit's attack: 35 calls of 10,000 observations, then 1,000 relations a call to names that do not exist.
      for (let call = 0; call < 35; call++) {
        const contents = Array.from({ length: 10_000 }, (_, i) => `note ${call}-${i}`);
        outcomes.push(await callTool(mcpUrl, attacker.token, "add_observations", { scope: "junk", observations: [{ entityName: "Blob", contents }] }));
      }
      for (let call = 0; call < 60; call++) {
        const relations = Array.from({ length: 1000 }, (_, i) => ({ from: "Blob", to: `ghost ${call}-${i}`, relationType: "haunts" }));
        outcomes.push(await callTool(mcpUrl, attacker.token, "create_relations", { scope: "junk", relations }));
      }
      const deleted = await callTool(mcpUrl, attacker.token, "delete_entities", { scope: "junk", entityNames: ["Blob"] });
      return { outcomes, deleted };
    });
    expectLive(liveness);
    // Every call past a bound was refused with the limit named.
    for (const o of result.outcomes) {
      if (o.kind === "refused") expect(o.text).toMatch(/at most \d+/);
      else expect(o.kind).toBe("ok");
    }
    expect(result.deleted.kind).toBe("ok");
  }, 300_000);

  it("a burst of 500 calls from ten agents on one host is served whole, and the service stays live", async () => {
    const { result, liveness } = await whileRunning(() =>
      Promise.all(
        team.flatMap((agent, a) =>
          Array.from({ length: 50 }, (_, i) =>
            callTool(mcpUrl, agent.token, "memory_store", {
              scope: "burst",
              name: `burst-${a}-${i}`,
              description: `Burst fact ${i} of agent ${a}`,
              type: "project",
              body: `Stored during a burst of calls from one host (${a}, ${i}).`,
            }),
          ),
        ),
      ),
    );
    const kinds = result.map((o) => (o.kind === "http" ? `http ${o.status}` : o.kind === "no-answer" ? `no answer: ${o.error}` : o.kind));
    expect(kinds.filter((k) => k !== "ok")).toEqual([]);
    expectLive(liveness);
  }, 300_000);
});
