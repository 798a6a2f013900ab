// The embeddings endpoint: OpenAI's `POST {url}/embeddings` with
// `{model, input: [...]}`, which Ollama, vLLM, Text Embeddings Inference,
// LM Studio and OpenAI all answer. Every vector comes back scaled to length 1,
// so that the database compares them by their dot product (cosine similarity).
import * as z from "zod/v4";
import { EMBEDDINGS_LIMITS } from "../../limits.js";

export interface EndpointSettings {
  url: string;
  model: string;
  apiKey: string | undefined;
}

const Answer = z.object({
  data: z.array(z.object({ embedding: z.array(z.number()), index: z.number().int().optional() })),
});

/** The endpoint answered, but not with what was asked (a wrong URL, another API, a model that is not an embedding model). */
export class EndpointError extends Error {
  override name = "EndpointError";
}

/** The endpoint as an error names it: without a user name or password the URL may carry. */
function shown(url: string): string {
  const u = new URL(url);
  u.username = "";
  u.password = "";
  return u.href.replace(/\/$/, "");
}

/** One vector per text, in order, each of length 1; the signal bounds the whole call. */
export async function embedTexts(settings: EndpointSettings, texts: readonly string[], signal: AbortSignal): Promise<number[][]> {
  const response = await fetch(`${settings.url}/embeddings`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(settings.apiKey ? { Authorization: `Bearer ${settings.apiKey}` } : {}) },
    body: JSON.stringify({ model: settings.model, input: texts }),
    signal,
  });
  if (!response.ok) {
    // The start of the endpoint's own explanation, never the request (it holds the key in a header only, but facts' text in its body).
    const said = (await response.text().catch(() => "")).slice(0, 200).replace(/\s+/g, " ");
    throw new EndpointError(`${shown(settings.url)}/embeddings answered ${response.status}${said ? `: ${said}` : ""}`);
  }
  const parsed = Answer.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success || parsed.data.data.length !== texts.length) {
    throw new EndpointError(`${shown(settings.url)}/embeddings did not answer with one embedding per input (is it an OpenAI-compatible embeddings endpoint, and ${settings.model} an embedding model?)`);
  }
  const ordered = parsed.data.data.every((d) => d.index !== undefined) ? [...parsed.data.data].sort((a, b) => a.index! - b.index!) : parsed.data.data;
  const dims = ordered[0]?.embedding.length ?? 0;
  if (dims < 1 || dims > EMBEDDINGS_LIMITS.maxDims || ordered.some((d) => d.embedding.length !== dims)) {
    throw new EndpointError(`${shown(settings.url)}/embeddings answered vectors of ${dims} numbers, or of different lengths: one length from 1 to ${EMBEDDINGS_LIMITS.maxDims} is expected`);
  }
  return ordered.map((d) => unitLength(d.embedding));
}

function unitLength(v: number[]): number[] {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  return norm === 0 ? v : v.map((x) => x / norm);
}
