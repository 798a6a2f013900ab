// A small OpenAI-compatible embeddings endpoint (`POST /embeddings`) for the
// tests and the benchmark: deterministic vectors in which a few groups of
// words mean the same (car, automobile, 自動車…), so that recall by meaning
// can be checked for real over HTTP without a model. A text's vector is the
// sum of one pseudo-random direction per concept it holds: a group's words
// share a direction (weighing three times as much: what a text is about),
// every other word (and each CJK character outside the groups) has its own.
// It can be made slow (stall) or refuse (fail).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { closeWhenFileEnds } from "./file-teardown.js";

/** Words that mean the same, across English, Japanese and Korean. */
export const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ["car", "automobile", "vehicle", "自動車", "자동차", "차량"],
  ["deadline", "due date", "締め切り", "締切", "期限", "마감", "기한"],
  ["invoice", "bill", "請求書", "청구서"],
  ["physician", "doctor", "医師", "의사"],
];

const STOP_WORDS = new Set(["the", "and", "for", "are", "with", "every", "this", "that", "from", "into", "must", "our", "was", "has", "have", "its", "not", "all", "any", "can", "you", "your", "what", "when", "before", "after"]);
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export interface EmbeddingsServer {
  /** The base URL, as EMBEDDINGS_URL takes it. */
  url: string;
  dims: number;
  /** Requests answered so far, and the texts embedded. */
  requests: number;
  texts: number;
  /** While true, requests are held unanswered (a slow or hung endpoint); set false to answer them. */
  stall: boolean;
  /** While true, requests get a 503. */
  fail: boolean;
  close(): Promise<void>;
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** A deterministic direction for a concept: mulberry32 from the concept's hash. */
function direction(concept: string, dims: number): number[] {
  let seed = hash(concept);
  const v: number[] = [];
  for (let i = 0; i < dims; i++) {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    v.push(((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5);
  }
  return v;
}

/** The concepts of a text: each group word it holds (its group), then its other words and CJK characters. */
export function concepts(text: string): string[] {
  let rest = text.toLowerCase();
  const found: string[] = [];
  SYNONYM_GROUPS.forEach((group, g) => {
    for (const word of group) {
      const pattern = CJK.test(word) ? new RegExp(word, "gu") : new RegExp(`\\b${word}s?\\b`, "gu");
      rest = rest.replace(pattern, () => {
        found.push(`group:${g}`);
        return " ";
      });
    }
  });
  for (const word of rest.split(/[^\p{L}\p{N}]+/u)) {
    if (word === "") continue;
    if (CJK.test(word)) for (const ch of word) found.push(`char:${ch}`);
    else if (word.length >= 3 && !STOP_WORDS.has(word)) found.push(`word:${word}`);
  }
  return found;
}

export function embed(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  const all = concepts(text);
  for (const c of all.length > 0 ? all : ["empty"]) {
    const d = direction(c, dims);
    const weight = c.startsWith("group:") ? 3 : 1;
    for (let i = 0; i < dims; i++) v[i]! += weight * d[i]!;
  }
  return v;
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startEmbeddingsServer(options: { dims?: number; closeWithFile?: boolean } = {}): Promise<EmbeddingsServer> {
  const dims = options.dims ?? 256;
  const held = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    void (async () => {
      const text = await body(req);
      if (req.method !== "POST" || req.url !== "/embeddings") return void res.writeHead(404).end("not found");
      if (state.fail) return void res.writeHead(503, { "Content-Type": "text/plain" }).end("the model is loading");
      if (state.stall) {
        held.add(res);
        return;
      }
      const { model, input } = JSON.parse(text) as { model: string; input: string[] };
      state.requests++;
      state.texts += input.length;
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ object: "list", model, data: input.map((t, index) => ({ object: "embedding", index, embedding: embed(t, dims) })) }));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const close = async () => {
    for (const res of held) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const state: EmbeddingsServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    dims,
    requests: 0,
    texts: 0,
    stall: false,
    fail: false,
    close: options.closeWithFile === false ? close : closeWhenFileEnds(close),
  };
  return state;
}
