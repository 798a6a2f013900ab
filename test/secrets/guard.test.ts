// The secret guard over real MCP calls: every tool that writes text refuses a
// credential naming the field and the kind, never echoing it, and writes
// nothing; prose about tokens passes; refusals are counted in /metrics.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callError, callOk, connectClient, startInProcessService, type InProcessService } from "../support/service.js";
import { SAMPLES } from "./samples.js";

const GITHUB = SAMPLES.github;

describe.each(["postgres", "pglite"] as const)("secret guard over MCP (%s)", (kind) => {
  let tdb: TestDatabase;
  let service: InProcessService;
  let writer: Client;

  beforeAll(async () => {
    tdb = await createTestDatabase(kind);
    service = await startInProcessService(tdb.db);
    writer = await connectClient(service, (await addAgent(tdb.db, "writer", { scopes: ["shared"] })).token);
  });

  const fact = (over: Record<string, unknown> = {}) => ({ name: "ci-token", description: "Where the CI token lives", type: "reference", body: "In the vault at ci/github.", ...over });

  it("refuses a fact whose body holds a token, names field and kind, never echoes it, and writes nothing", async () => {
    const error = await callError(writer, "memory_store", fact({ body: `Use ${GITHUB} for the release job.` }));
    expect(error).toMatch(/^Refused: body holds what looks like a GitHub token \(ghp_…\)\. Store where to find the secret/);
    expect(error).not.toContain(GITHUB.slice(4));
    expect(error).toMatch(/Nothing was written/);
    expect(await callError(writer, "memory_get", { name: "ci-token" })).toMatch(/No fact named "ci-token"/);
  });

  it("lists every field that holds one in a single refusal", async () => {
    const error = await callError(writer, "memory_store", fact({ description: SAMPLES.aws, body: `${SAMPLES.pem}\nand ${SAMPLES.slack}` }));
    expect(error).toContain("description holds what looks like an AWS access key;");
    expect(error).toContain("body holds what looks like a private key (PEM) (-----BEGIN PRIVATE KEY-----…)");
    expect(error).toContain("body holds what looks like a Slack token or webhook URL (xoxb-…)");
  });

  it("quotes at most the issuer's prefix of a credential it refuses for another reason (an invalid name)", async () => {
    const error = await callError(writer, "memory_store", fact({ name: GITHUB }));
    expect(error).toMatch(/name "ghp_…" is not valid/);
    expect(error).not.toContain(GITHUB.slice(4, 20));
  });

  it("lets prose about tokens and keys through", async () => {
    const body =
      "GitHub tokens start with ghp_ and AWS access keys with AKIA; never paste either. Set password = <from the vault> in .env, " +
      "rotate the api_key every 90 days, and log in with `gh auth login`. The webhook is https://hooks.example.com/deploy?env=prod. " +
      "DATABASE_URL=postgres://app@db.internal:5432/app (the password comes from PGPASSWORD).";
    const stored = await callOk<{ outcome: string }>(writer, "memory_store", fact({ name: "token-handling", body }));
    expect(stored.outcome).toBe("created");
  });

  it("guards the graph: entity names and types, observations, relation types", async () => {
    expect(await callError(writer, "create_entities", { entities: [{ name: "ci", entityType: "service", observations: ["ok", `token ${SAMPLES.gitlab}`] }] })).toMatch(
      /^Refused: entities\[0\]\.observations\[1\] holds what looks like a GitLab token \(glpat-…\)/,
    );
    expect(await callError(writer, "create_entities", { entities: [{ name: SAMPLES.stripe, entityType: "key", observations: [] }] })).toMatch(/entities\[0\]\.name holds what looks like a Stripe secret key \(sk_live_…\)/);
    await callOk(writer, "create_entities", { entities: [{ name: "ci", entityType: "service", observations: [] }] });
    expect(await callError(writer, "add_observations", { observations: [{ entityName: "ci", contents: [`header: Bearer ${SAMPLES.jwt}`] }] })).toMatch(/observations\[0\]\.contents\[0\] holds what looks like a JSON Web Token \(eyJ…\)/);
    expect(await callError(writer, "create_relations", { relations: [{ from: "ci", to: "vault", relationType: `uses ${SAMPLES.anthropic}` }] })).toMatch(/relations\[0\]\.relationType holds what looks like an Anthropic API key/);
    const graph = await callOk<{ entities: { name: string; observations: string[] }[]; relations: unknown[] }>(writer, "open_nodes", { names: ["ci"] });
    expect(graph.entities).toEqual([expect.objectContaining({ name: "ci", observations: [] })]);
    expect(graph.relations).toEqual([]);
  });

  it("guards the ledger: evidence URLs with a password or a token in the query, and notes", async () => {
    await callOk(writer, "ledger_claim", { action: "deploy_prod", target: "api" });
    // A URL with a user name and password is refused by the ledger's own rule, before any scan, and not echoed.
    const userInfo = await callError(writer, "ledger_record", { action: "deploy_prod", target: "api", evidence: "https://deploy:S3cr3t-Pa55w0rd@ci.example.com/run/7" });
    expect(userInfo).toMatch(/^evidence must not contain a user name or password/);
    expect(userInfo).not.toContain("S3cr3t");
    expect(await callError(writer, "ledger_record", { action: "deploy_prod", target: "api", evidence: "https://ci.example.com/run/7?access_token=Zq8wX3kL9mN2pR5tV7yB4c" })).toMatch(
      /evidence holds what looks like a password or key assigned a generated value/,
    );
    expect(await callError(writer, "ledger_record", { action: "deploy_prod", target: "api", evidence: "https://ci.example.com/run/7", note: `used ${GITHUB}` })).toMatch(/note holds what looks like a GitHub token/);
    const check = await callOk<{ status: string }>(writer, "ledger_check", { action: "deploy_prod", target: "api" });
    expect(check.status).toBe("CLAIMED");
    await callOk(writer, "ledger_record", { action: "deploy_prod", target: "api", evidence: "https://ci.example.com/run/7?attempt=2" });
  });

  it("counts refusals by kind in /metrics, every kind present from the start", async () => {
    const text = await (await service.fetch(`${service.url}/metrics`)).text();
    expect(text).toMatch(/agent_memory_secrets_refused_total\{kind="github"\} [2-9]/);
    expect(text).toMatch(/agent_memory_secrets_refused_total\{kind="password"\} [1-9]/);
    expect(text).toMatch(/agent_memory_secrets_refused_total\{kind="azure"\} 0/);
  });
});

describe("SECRET_GUARD=off", () => {
  let tdb: TestDatabase;
  let service: InProcessService;
  let writer: Client;
  beforeAll(async () => {
    tdb = await createTestDatabase("pglite");
    service = await startInProcessService(tdb.db, { SECRET_GUARD: "off" });
    writer = await connectClient(service, (await addAgent(tdb.db, "writer", { scopes: ["shared"] })).token);
  });

  it("scans nothing", async () => {
    const stored = await callOk<{ outcome: string }>(writer, "memory_store", { name: "raw", description: "kept as written", type: "reference", body: GITHUB });
    expect(stored.outcome).toBe("created");
  });
});

