// When a recall finds nothing and a keyword in Chinese, Japanese or Korean
// holds several words ("記事のコメント": 記事, コメント), the answer says which of
// those words find facts on their own and suggests them as separate keywords:
// a team member who wrote the fact chose other words for part of it, and the
// agent cannot tell which part. One bounded recall per word (limit 1: the
// count comes with it), at most MAX_KEYWORDS words in all, only on an empty
// answer.
import type { Caller } from "../../auth/caller.js";
import type { Database } from "../../db/core/database.js";
import { MAX_KEYWORDS } from "../../limits.js";
import { keywordParts } from "../cjk-words.js";
import { type ReadOptions, type RecallInput, recallFacts } from "./recall.js";

export interface WordHint {
  /** The keyword that found nothing. */
  keyword: string;
  /** Each of its words, and how many facts it finds on its own (0: none). */
  words: Array<{ word: string; facts: number }>;
}

/** For each unquoted keyword of several CJK words, how many facts each word finds alone (see above). */
export async function wordHints(db: Database, caller: Caller, input: RecallInput, options: ReadOptions): Promise<WordHint[]> {
  const split = input.keywords
    .map((keyword) => keyword.trim())
    .filter((keyword) => !keyword.startsWith('"'))
    .map((keyword) => ({ keyword, words: keywordParts(keyword) ?? [] }))
    .filter((k) => k.words.length >= 2);
  const words = [...new Set(split.flatMap((k) => k.words))].slice(0, MAX_KEYWORDS);
  if (words.length === 0) return [];
  const counts = new Map<string, number>();
  await Promise.all(
    words.map(async (word) => {
      // By words alone: the hint is about the words the team chose.
      const found = await recallFacts(db, caller, { ...input, keywords: [word], limit: 1 }, { staleAfterDays: options.staleAfterDays });
      counts.set(word, found.total);
    }),
  );
  return split.map((k) => ({ keyword: k.keyword, words: k.words.filter((w) => counts.has(w)).map((word) => ({ word, facts: counts.get(word)! })) }));
}
