// Redaction as an auditor would check it: after a human redacts a fact
// version and a graph entity with the real CLI, a data-only pg_dump of the
// database holds none of the text, an export holds none of it, and memory_get
// shows the tombstone. Agents may not redact.
import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { onlyJson, runCli } from "../support/cli.js";
import { tempDirForFile } from "../support/file-teardown.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { addAgent, callOk, connectClient, startInProcessService, type InProcessService } from "../support/service.js";
import { SAMPLES } from "../secrets/samples.js";

const SECRETS = ["Zebraquokka7731", "Marmosetfalcon42", "Ocelottapir99", "Ibexnarwhal55", "Wombatheron"];

async function filesUnder(dir: string): Promise<string> {
  let all = "";
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) all += await readFile(join(entry.parentPath, entry.name), "utf8");
  return all;
}

describe("redaction (postgres)", () => {
  let tdb: TestDatabase;
  let service: InProcessService;
  let writer: Client;
  let dir: string;
  const env = () => ({ DATABASE_URL: tdb.url! });

  beforeAll(async () => {
    tdb = await createTestDatabase("postgres");
    service = await startInProcessService(tdb.db);
    writer = await connectClient(service, (await addAgent(tdb.db, "writer", { scopes: ["shared"] })).token);
    await addAgent(tdb.db, "alice", { kind: "human", scopes: ["shared"] });
    await addAgent(tdb.db, "bob", { kind: "human", scopes: ["other"] });
    dir = await tempDirForFile("am-redact-");

    await callOk(writer, "memory_store", { name: "vendor-contact", description: `Vendor contact ${SECRETS[0]}`, type: "reference", body: `Call ${SECRETS[0]} at the front desk.` });
    await callOk(writer, "memory_store", { name: "vendor-contact", version: 1, description: "Vendor contact", type: "reference", body: `Ask for ${SECRETS[1]} on the phone.` });
    // A reviewer's reason may quote the text: it goes with the redacted version.
    const reviewer = await addAgent(tdb.db, "carol", { kind: "human", scopes: ["shared"] });
    await callOk(await connectClient(service, reviewer.token), "memory_promote", { name: "vendor-contact", to: "confirmed", reason: `Checked: ${SECRETS[1]} is the right person.` });
    await callOk(writer, "create_entities", { entities: [{ name: `box-${SECRETS[2]}`, entityType: "host", observations: ["in rack 4", `hint ${SECRETS[3]}`] }] });
    await callOk(writer, "create_relations", { relations: [{ from: "rack-4", to: `box-${SECRETS[2]}`, relationType: "holds" }] });
    await callOk(writer, "create_entities", { entities: [{ name: "printer", entityType: "device", observations: ["floor 2", `owner ${SECRETS[4]}`] }] });
    await callOk(writer, "delete_observations", { deletions: [{ entityName: "printer", observations: [`owner ${SECRETS[4]}`] }] });
    await callOk(writer, "add_observations", { observations: [{ entityName: "printer", contents: [`owner ${SECRETS[4]}`] }] });
  });
  it("refuses agents, humans without write access, and a missing version", async () => {
    expect((await runCli(["fact", "redact", "shared/vendor-contact@1", "--reason", "x", "--as", "writer"], env())).stderr).toMatch(/writer is an agent/);
    expect((await runCli(["fact", "redact", "shared/vendor-contact@1", "--reason", "x", "--as", "bob"], env())).stderr).toMatch(/bob may not write scope "shared"/);
    expect((await runCli(["fact", "redact", "shared/vendor-contact@3", "--reason", "x", "--as", "alice"], env())).stderr).toMatch(/has versions 1 to 2/);
    expect((await runCli(["fact", "redact", "shared/vendor-contact", "--reason", "x", "--as", "alice"], env())).stderr).toMatch(/is not SCOPE\/NAME@VERSION/);
    // The tombstone's reason is kept for good: the secret guard reads it too.
    const leaked = await runCli(["fact", "redact", "shared/vendor-contact@1", "--reason", `the key was ${SAMPLES.github}`, "--as", "alice"], env());
    expect(leaked.stderr).toMatch(/Refused: reason holds what looks like a GitHub token \(ghp_…\)/);
    expect(leaked.stderr).not.toContain(SAMPLES.github.slice(4));
  });

  it("removes the text of every version, the entity and the observation from every table; a data-only dump holds none of it", async () => {
    for (const v of [1, 2]) {
      const r = await runCli(["fact", "redact", `shared/vendor-contact@${v}`, "--reason", "personal data of a vendor", "--as", "alice", "--json"], env());
      expect(r.code, r.stderr).toBe(0);
      expect(onlyJson(r)).toMatchObject({ scope: "shared", name: "vendor-contact", version: v, by: "alice", reason: "personal data of a vendor" });
    }
    const again = await runCli(["fact", "redact", "shared/vendor-contact@1", "--reason", "again", "--as", "alice"], env());
    expect(again.stderr).toMatch(/already redacted by alice/);

    const entity = await runCli(["graph", "redact", `shared/box-${SECRETS[2]}`, "--reason", "host names are confidential", "--as", "alice", "--json"], env());
    expect(entity.code, entity.stderr).toBe(0);
    expect(onlyJson(entity)).toMatchObject({ kind: "entity", removed: { observations: 2, relations: 1 } });
    const observation = await runCli(["graph", "redact", "shared/printer", "--observation", `owner ${SECRETS[4]}`, "--reason", "personal data", "--as", "alice", "--json"], env());
    expect(observation.code, observation.stderr).toBe(0);
    expect(await callOk<{ entities: { observations: string[] }[] }>(writer, "open_nodes", { names: ["printer"] })).toMatchObject({ entities: [{ observations: ["floor 2"] }] });

    const dump = await promisify(execFile)("pg_dump", ["--data-only", tdb.url!], { maxBuffer: 64 * 1024 * 1024 });
    for (const secret of SECRETS) {
      expect(dump.stdout).not.toContain(secret);
      expect(dump.stdout.toLowerCase()).not.toContain(secret.toLowerCase());
    }
    expect(dump.stdout).toContain("personal data of a vendor");
    const reasons = await tdb.db.query<{ reason: string | null; status_reason: string | null }>(
      "select e.reason, f.status_reason from fact_events e join facts f on f.id = e.fact_id where f.name = 'vendor-contact' and e.kind = 'confirmed'",
    );
    expect(reasons.rows).toEqual([{ reason: "[redacted]", status_reason: "[redacted]" }]);
  });

  it("memory_get shows the tombstones, recall finds none of the text, and an export holds none of it", async () => {
    const got = await callOk<{ fact: { description: string; body: string; versions: { body: string }[]; redactions: { version: number; by: string; reason: string }[] } }>(writer, "memory_get", { name: "vendor-contact" });
    expect(got.fact).toMatchObject({ description: "[redacted]", body: "[redacted]" });
    expect(got.fact.versions.map((v) => v.body)).toEqual(["[redacted]", "[redacted]"]);
    expect(got.fact.redactions).toEqual([
      expect.objectContaining({ version: 1, by: "alice", reason: "personal data of a vendor" }),
      expect.objectContaining({ version: 2, by: "alice", reason: "personal data of a vendor" }),
    ]);
    expect((await callOk<{ total: number }>(writer, "memory_recall", { keywords: [SECRETS[1]!] })).total).toBe(0);

    const exported = await runCli(["export", join(dir, "tree")], env());
    expect(exported.code, exported.stderr).toBe(0);
    const tree = await filesUnder(join(dir, "tree"));
    for (const secret of SECRETS) expect(tree).not.toContain(secret);
    expect(tree).toContain("redacted by: alice");

    // The tombstones come back with an import into another database.
    const copy = await createTestDatabase("postgres");
    try {
      for (const name of ["writer", "alice", "carol"]) await addAgent(copy.db, name, { kind: name === "writer" ? "agent" : "human", scopes: ["shared"] });
      const imported = await runCli(["import", join(dir, "tree"), "--json"], { DATABASE_URL: copy.url! });
      expect(imported.code, imported.stderr).toBe(0);
      const rows = await copy.db.query<{ version: number; reason: string }>("select version, reason from fact_redactions order by version");
      expect(rows.rows).toEqual([{ version: 1, reason: "personal data of a vendor" }, { version: 2, reason: "personal data of a vendor" }]);
    } finally {
      await copy.drop();
    }
  });
});
