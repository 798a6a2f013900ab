// Recall by meaning (docs/recall.md): an OpenAI-compatible embeddings endpoint
// the team already runs (Ollama, vLLM, Text Embeddings Inference, LM Studio,
// OpenAI). Unset, recall finds words only and nothing of it is loaded.
import * as z from "zod/v4";
import { intFrom } from "./parse.js";

export const embeddingsEnv = z.object({
  // The endpoint's base URL: the service posts to {EMBEDDINGS_URL}/embeddings. Empty: recall by words only.
  EMBEDDINGS_URL: z.string().trim().optional().default(""),
  // The model the endpoint embeds with; a new one re-embeds every fact (vectors of two models are never compared).
  EMBEDDINGS_MODEL: z.string().trim().optional().default(""),
  // Sent as "Authorization: Bearer …" when set; never logged.
  EMBEDDINGS_API_KEY: z.string().trim().optional().default(""),
  // The longest a recall waits for its keywords' embedding; past it, recall answers by words and says so.
  EMBEDDINGS_RECALL_BUDGET_MS: intFrom("EMBEDDINGS_RECALL_BUDGET_MS", 1000, 50, 60_000),
  // How alike (cosine, 0-1) a fact must be to the keywords to be found by meaning alone; models differ in scale.
  EMBEDDINGS_MIN_SIMILARITY: z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === "") return 0.5;
      const n = Number(raw);
      if (!Number.isFinite(n) || n < 0 || n > 1) {
        ctx.addIssue({ code: "custom", message: `EMBEDDINGS_MIN_SIMILARITY must be a number from 0 to 1 (cosine similarity), got "${raw}"` });
        return z.NEVER;
      }
      return n;
    }),
});

export interface EmbeddingsConfig {
  /** Undefined: EMBEDDINGS_URL is unset and recall finds words only. */
  embeddings:
    | {
        url: string;
        model: string;
        apiKey: string | undefined;
        recallBudgetMs: number;
        minSimilarity: number;
      }
    | undefined;
}

/** EMBEDDINGS_URL needs a model, and is an http(s) URL. */
export function checkEmbeddings(e: { EMBEDDINGS_URL: string; EMBEDDINGS_MODEL: string }, ctx: z.RefinementCtx): void {
  if (e.EMBEDDINGS_URL === "") {
    if (e.EMBEDDINGS_MODEL !== "") ctx.addIssue({ code: "custom", message: "EMBEDDINGS_MODEL is set but EMBEDDINGS_URL is not: set the endpoint's base URL (e.g. http://localhost:11434/v1), or unset both" });
    return;
  }
  let url: URL | undefined;
  try {
    url = new URL(e.EMBEDDINGS_URL);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    ctx.addIssue({ code: "custom", message: `EMBEDDINGS_URL must be an http(s) base URL such as http://localhost:11434/v1, got "${e.EMBEDDINGS_URL}"` });
  }
  if (e.EMBEDDINGS_MODEL === "") ctx.addIssue({ code: "custom", message: "EMBEDDINGS_URL is set but EMBEDDINGS_MODEL is not: name the model to embed with (e.g. nomic-embed-text)" });
}

export function embeddingsConfig(e: z.output<typeof embeddingsEnv>): EmbeddingsConfig {
  if (e.EMBEDDINGS_URL === "") return { embeddings: undefined };
  return {
    embeddings: {
      url: e.EMBEDDINGS_URL.replace(/\/+$/, ""),
      model: e.EMBEDDINGS_MODEL,
      apiKey: e.EMBEDDINGS_API_KEY === "" ? undefined : e.EMBEDDINGS_API_KEY,
      recallBudgetMs: e.EMBEDDINGS_RECALL_BUDGET_MS,
      minSimilarity: e.EMBEDDINGS_MIN_SIMILARITY,
    },
  };
}
