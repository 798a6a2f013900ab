// The reference knowledge-graph server (@modelcontextprotocol/server-memory), as
// its users run it: a stdio process on a JSONL file.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const REFERENCE = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-memory/dist/index.js", import.meta.url));

interface ReferenceFile {
  path: string;
  /**
   * Writes the graph as the reference's own save does (one JSON line per entity,
   * then one per relation, keys in its order), without going through its tools.
   */
  write(entities: Array<{ name: string; entityType: string; observations: string[] }>, relations: Array<{ from: string; to: string; relationType: string }>): void;
  /** Starts one more server process on the same file (as a second agent would). */
  connect(): Promise<Client>;
  entityCount(): number;
  bytes(): number;
  cleanup(): void;
}

export function referenceFile(): ReferenceFile {
  const dir = mkdtempSync(join(tmpdir(), "am-bench-ref-"));
  const path = join(dir, "memory.jsonl");
  const clients: Client[] = [];
  return {
    path,
    write(entities, relations) {
      const lines = [
        ...entities.map((e) => JSON.stringify({ type: "entity", name: e.name, entityType: e.entityType, observations: e.observations })),
        ...relations.map((r) => JSON.stringify({ type: "relation", from: r.from, to: r.to, relationType: r.relationType })),
      ];
      writeFileSync(path, lines.join("\n"));
    },
    async connect() {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [REFERENCE],
        env: { PATH: process.env.PATH ?? "", MEMORY_FILE_PATH: path },
        stderr: "ignore",
      });
      const client = new Client({ name: "bench", version: "1.0.0" });
      await client.connect(transport);
      await client.listTools();
      clients.push(client);
      return client;
    },
    entityCount() {
      try {
        return readFileSync(path, "utf8")
          .split("\n")
          .filter((l) => l.includes('"type":"entity"')).length;
      } catch {
        return 0;
      }
    },
    bytes() {
      try {
        return statSync(path).size;
      } catch {
        return 0;
      }
    },
    cleanup() {
      for (const c of clients) void c.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
