// Recall by meaning, for real: a service pointed at a small OpenAI-compatible
// embeddings endpoint (test/support/embeddings-server.ts, where car and
// automobile, 締め切り and 期限, 마감 and 기한 mean the same), on the embedded
// database with pgvector and on this machine's Postgres without it.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { beforeAll, describe, expect, it } from "vitest";
import { callerOf, getAgent } from "../../src/auth/store.js";
import type { Database } from "../../src/db/core/database.js";
import { embeddingStatus, redactFactVersion } from "../../src/facts/index.js";
import type { RunningService } from "../../src/serve.js";
import { BACKENDS, createTestDatabase } from "../support/databases.js";
import { type EmbeddingsServer, startEmbeddingsServer } from "../support/embeddings-server.js";
import { addAgent, callOk, connectClient, startTestService, textOf } from "../support/service.js";

const MODEL = "test-embed";

interface Hit {
  name: string;
  scope: string;
  matchedBy?: string;
  similarity?: number;
  matches: unknown[];
}
interface Recall {
  hits: Hit[];
  total: number;
  meaningUnavailable?: string;
}

export function embeddingsEnv(server: EmbeddingsServer, extra: Record<string, string> = {}): Record<string, string> {
  return { EMBEDDINGS_URL: server.url, EMBEDDINGS_MODEL: MODEL, EMBEDDINGS_MIN_SIMILARITY: "0.5", ...extra };
}

/** Until the queue has embedded every fact that waits (it is woken by each store). */
async function embedded(db: Database): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if ((await embeddingStatus(db, MODEL)).waiting === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`facts still wait for a vector: ${JSON.stringify(await embeddingStatus(db, MODEL))}`);
}

describe.each(BACKENDS)("recall by meaning (%s)", (backend) => {
  let db: Database;
  let server: EmbeddingsServer;
  let service: RunningService;
  let writer: Client;
  let outsider: Client;
  const recall = (client: Client, keywords: string[], extra: Record<string, unknown> = {}) => callOk<Recall>(client, "memory_recall", { keywords, ...extra });

  beforeAll(async () => {
    db = (await createTestDatabase(backend)).db;
    server = await startEmbeddingsServer();
    service = await startTestService(db, embeddingsEnv(server));
    writer = await connectClient(service.mcpUrl, (await addAgent(db, "writer", { scopes: ["shared", "finance"] })).token);
    outsider = await connectClient(service.mcpUrl, (await addAgent(db, "outsider", { scopes: ["shared"] })).token);
    await addAgent(db, "auditor", { kind: "human", scopes: ["shared", "finance"] });
    const store = (name: string, description: string, body: string, scope = "shared") => callOk(writer, "memory_store", { name, scope, description, type: "project", body });
    await store("car-rental-policy", "Car rental policy", "Rent a car only through the travel desk.");
    await store("parking-rules", "Where automobiles park", "Every automobile parks in lot B, never at the loading dock.");
    await store("report-due", "月次報告の期限", "月次報告の期限は毎月5日です。遅れる場合はチームに連絡する。");
    await store("release-cutoff", "배포 기한", "배포 기한은 매주 목요일 오후 3시입니다.");
    await store("lunch-menu", "Cafeteria lunch menu", "Soup on Mondays, curry on Fridays.");
    await store("invoice-approvals", "Who approves invoices", "Every invoice over 500 EUR needs the finance lead's approval.", "finance");
    await embedded(db);
  });

  it("finds by meaning what the words miss, in English, Japanese and Korean", async () => {
    for (const [keyword, name] of [["vehicle", "parking-rules"], ["締め切り", "report-due"], ["마감", "release-cutoff"]] as const) {
      const words = await recall(writer, [keyword]);
      const hit = words.hits.find((h) => h.name === name);
      expect(hit, `${keyword} finds ${name}`).toMatchObject({ matchedBy: "meaning", matches: [] });
      expect(hit!.similarity).toBeGreaterThanOrEqual(0.5);
      expect(words.hits.some((h) => h.name === "lunch-menu"), "an unrelated fact is no neighbour").toBe(false);
    }
    const text = textOf(await writer.callTool({ name: "memory_recall", arguments: { keywords: ["vehicle"] } }));
    expect(text).toMatch(/by meaning alone \(similarity 0\.\d\d; none of the keywords is in it\)/);
  });

  it(`compares vectors ${backend === "pglite" ? "through pgvector's HNSW index" : "by an exact scan (no pgvector here)"}`, async () => {
    const indexes = (await db.query<{ indexname: string }>("select indexname from pg_indexes where tablename = 'fact_embeddings' and indexname like 'fact_embeddings_ann%'")).rows;
    expect(indexes.map((i) => i.indexname)).toEqual(backend === "pglite" ? [`fact_embeddings_ann_${server.dims}`] : []);
  });

  it("keeps a match by the words first, above a neighbour by meaning", async () => {
    const { hits } = await recall(writer, ["car"]);
    expect(hits.map((h) => [h.name, h.matchedBy])).toEqual([
      ["car-rental-policy", "both"],
      ["parking-rules", "meaning"],
    ]);
  });

  it("never brings a neighbour from a scope the caller cannot read", async () => {
    expect((await recall(writer, ["bill"])).hits.map((h) => h.name)).toEqual(["invoice-approvals"]);
    const outside = await recall(outsider, ["bill"]);
    expect(outside.hits.map((h) => h.scope)).not.toContain("finance");
    expect(outside.total).toBe(0);
  });

  it("finds a redacted fact by neither leg", async () => {
    await callOk(writer, "memory_store", { name: "clinic-hours", description: "Company physician hours", type: "reference", body: "The physician sees staff on Tuesdays." });
    await embedded(db);
    expect((await recall(writer, ["doctor"])).hits.map((h) => h.name)).toEqual(["clinic-hours"]);
    await redactFactVersion(db, callerOf(await getAgent(db, "auditor")), { scope: "shared", name: "clinic-hours", version: 1, reason: "wrong person" });
    await embedded(db);
    for (const keyword of ["doctor", "physician", "Tuesdays"]) expect((await recall(writer, [keyword])).hits.map((h) => h.name)).not.toContain("clinic-hours");
    expect((await db.query("select count(*)::int as n from fact_embeddings e join facts f on f.id = e.fact_id where f.name = 'clinic-hours'")).rows[0]).toEqual({ n: 0 });
  });

  it("embeds an update's new text, and never keeps the vector of the old one", async () => {
    await callOk(writer, "memory_store", { name: "lunch-menu", version: 1, description: "Cafeteria lunch menu", type: "project", body: "Soup on Mondays; the doctor visits the cafeteria on Fridays." });
    await embedded(db);
    expect((await recall(writer, ["physician"])).hits.map((h) => h.name)).toContain("lunch-menu");
  });

  it("never makes a store wait: while the endpoint fails the queue retries, and embeds once it is back", async () => {
    server.fail = true;
    try {
      await callOk(writer, "memory_store", { name: "fleet-vehicles", description: "Fleet list", type: "reference", body: "The fleet: two vans and a truck." });
      for (let i = 0; i < 400 && !/agent_memory_embedding_failures_total\{leg="queue"\} [1-9]/.test(await (await fetch(`${service.url}/metrics`)).text()); i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect((await embeddingStatus(db, MODEL)).waiting).toBe(1);
      expect((await recall(writer, ["automobile"])).hits.map((h) => h.name)).not.toContain("fleet-vehicles");
    } finally {
      server.fail = false;
    }
    await embedded(db);
    expect((await recall(writer, ["automobile"])).hits.map((h) => h.name)).toContain("fleet-vehicles");
  });

  it("answers by words within the budget when the endpoint hangs, and says so", async () => {
    const slow = await startTestService(db, embeddingsEnv(server, { EMBEDDINGS_RECALL_BUDGET_MS: "200" }));
    const client = await connectClient(slow.mcpUrl, (await addAgent(db, "hurried", { scopes: ["shared"] })).token);
    server.stall = true;
    try {
      const started = performance.now();
      const answer = await recall(client, ["car"]);
      // Bounded by the budget (200 ms), not by the endpoint (it never answers): an order of magnitude apart.
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(answer.hits.map((h) => [h.name, h.matchedBy])).toEqual([["car-rental-policy", "words"]]);
      expect(answer.meaningUnavailable).toBe("the embeddings endpoint did not answer within 200 ms");
      const text = textOf(await client.callTool({ name: "memory_recall", arguments: { keywords: ["car"] } }));
      expect(text).toMatch(/Matching by meaning was unavailable \(the embeddings endpoint did not answer within 200 ms\): these results match by words only/);
    } finally {
      server.stall = false;
    }
    const metrics = await (await fetch(`${slow.url}/metrics`)).text();
    expect(metrics).toMatch(/agent_memory_recall_semantic_seconds_count\{result="unavailable"\} [1-9]/);
    expect(metrics).toMatch(/agent_memory_embedding_failures_total\{leg="recall"\} [1-9]/);
  });

  it("says on a draft found by meaning alone which confirmed fact it copies", async () => {
    const reviewer = await connectClient(service.mcpUrl, (await addAgent(db, "reviewer", { kind: "human", scopes: ["shared"] })).token);
    await callOk(writer, "memory_store", { name: "fleet-service", description: "Service each automobile of the fleet in spring", type: "project", body: "The garage books the dates." });
    await callOk(reviewer, "memory_promote", { name: "fleet-service", to: "confirmed", reason: "Per the garage contract." });
    const copy = await callOk<{ similar?: Array<{ name: string }> }>(writer, "memory_store", { name: "fleet-car-service", description: "Service each car of the fleet in spring", type: "project", body: "The garage books the dates." });
    expect(copy.similar?.map((s) => s.name)).toEqual(["fleet-service"]);
    await embedded(db);
    const { hits } = await recall(writer, ["automobile"]);
    expect(hits.find((h) => h.name === "fleet-service")).toMatchObject({ matchedBy: "both" });
    expect(hits.find((h) => h.name === "fleet-car-service")).toMatchObject({ matchedBy: "meaning", copyOf: { scope: "shared", name: "fleet-service" } });
  });
});
