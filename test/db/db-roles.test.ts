// The compose file's database roles, applied to a real Postgres exactly as the
// init script applies them (docker/postgres-init/sql/roles.sql via psql): the
// migrations run as the schema's owner, the service runs as a role that owns
// nothing, and that role can do every tool's work but cannot touch the
// ledger's append-only triggers or the schema.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/core/database.js";
import { migrate } from "../../src/db/schema/migrate.js";
import { openPostgres } from "../../src/db/postgres/postgres.js";
import type { RunningService } from "../../src/serve.js";
import { adminUrl } from "../support/pg-urls.js";
import { createEmptyPostgresDatabase, TEST_TIMEOUTS } from "../support/databases.js";
import { addAgent, callOk, connectClient, startTestService } from "../support/service.js";

const ROLES_SQL = fileURLToPath(new URL("../../docker/postgres-init/sql/roles.sql", import.meta.url));
const suffix = randomBytes(3).toString("hex");
const owner = `am_owner_${suffix}`;
const app = `am_app_${suffix}`;

let empty: Awaited<ReturnType<typeof createEmptyPostgresDatabase>>;
let appDb: Database;
let service: RunningService;

const withOptions = (url: string, user: string | null, role: string | null) => {
  const u = new URL(url);
  if (user) u.username = user;
  if (role) u.searchParams.set("options", `-c role=${role}`);
  return u.toString();
};
const open = (url: string) => openPostgres({ connectionString: url, poolMax: 2, connectTimeoutMs: 5000, ...TEST_TIMEOUTS });

beforeAll(async () => {
  empty = await createEmptyPostgresDatabase();
  const admin = new URL(adminUrl());
  await promisify(execFile)("psql", [
    "-v", "ON_ERROR_STOP=1", "-h", admin.hostname, "-p", admin.port || "5432", "-U", admin.username || "postgres", "-d", empty.name,
    "-v", `owner_role=${owner}`, "-v", `app_role=${app}`, "-v", "app_password=not-used-with-trust-auth", "-f", ROLES_SQL,
  ]);
  const asOwner = open(withOptions(empty.url, null, owner));
  try {
    await migrate(asOwner);
  } finally {
    await asOwner.close();
  }
  appDb = open(withOptions(empty.url, app, null));
  service = await startTestService(appDb);
});
afterAll(async () => {
  const admin = open(adminUrl());
  await admin.query(`drop role if exists ${app}`).catch(() => undefined);
  await admin.query(`drop role if exists ${owner}`).catch(() => undefined);
  await admin.close();
});

describe("compose database roles", () => {
  it("the service's role runs every kind of tool call", async () => {
    const agent = await addAgent(appDb, "writer");
    const client = await connectClient(service.mcpUrl, agent.token);
    try {
      await callOk(client, "memory_store", { name: "roles-work", description: "d", type: "project", body: "b" });
      expect(await callOk(client, "memory_recall", { keywords: ["roles"] })).toMatchObject({ hits: [expect.objectContaining({ name: "roles-work" })] });
      await callOk(client, "ledger_claim", { action: "deploy", target: "v1" });
      await callOk(client, "ledger_record", { action: "deploy", target: "v1", evidence: "https://ci.example.com/1" });
      await callOk(client, "create_entities", { entities: [{ name: "svc", entityType: "service", observations: ["runs"] }] });
      expect(await callOk(client, "search_nodes", { query: "svc" })).toMatchObject({ entities: [expect.objectContaining({ name: "svc" })] });
    } finally {
      await client.close();
    }
  });

  it("owns nothing: it cannot drop or disable the ledger's triggers, truncate, or change the schema", async () => {
    const owners = await appDb.query<{ n: number }>(
      "select count(*)::int as n from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and pg_get_userbyid(c.relowner) = current_user",
    );
    expect(owners.rows[0]!.n).toBe(0);
    for (const statement of [
      "drop trigger ledger_events_append_only on ledger_events",
      "alter table ledger_events disable trigger all",
      "truncate ledger_events",
      "delete from ledger_events",
      "create table intruder (x int)",
      "set session_replication_role = replica",
    ]) {
      await expect(appDb.query(statement), statement).rejects.toThrow(/permission denied|must be owner|append-only|not allowed/);
    }
  });
});
