// Argument schemas shared by the prompts. MCP prompt arguments are strings;
// each schema checks one with the same rule the matching tool applies, so a bad
// argument is refused at prompts/get with a message that says what to fix
// (the SDK answers InvalidParams "Invalid arguments for prompt <name>: …").
import * as z from "zod/v4";
import { FACT_TYPES } from "../facts/index.js";
import { SCOPE_PATTERN } from "../scope-name.js";
import { CONTROL_CHARS } from "../text.js";

/** A single line of 1..max characters. */
export const lineArg = (what: string, max: number) =>
  z
    .string()
    .trim()
    .min(1, `${what} is empty: give a few words.`)
    .max(max, `${what} is longer than ${max} characters: give a few words.`)
    .refine((s) => !CONTROL_CHARS.test(s), `${what} must be a single line (no line breaks or control characters).`);

/** Free text of 1..max characters (several lines allowed). */
export const textArg = (what: string, max: number) =>
  z
    .string()
    .trim()
    .min(1, `${what} is empty: say what you learned in a sentence or two.`)
    .max(max, `${what} is longer than ${max} characters: keep one fact per prompt.`);

export const scopeArg = z
  .string()
  .trim()
  .regex(SCOPE_PATTERN, 'scope is not valid: a scope is 1-64 lowercase letters, digits, "_" or "-" (e.g. shared, blog). whoami lists yours.');

export const typeArg = z.enum(FACT_TYPES, {
  error: `type must be one of ${FACT_TYPES.join(", ")} (feedback: a correction someone gave; project: a decision or rule; reference: where something is).`,
});

/** Comma-separated keywords, at most 10, each a single line. */
export const keywordListArg = z
  .string()
  .transform((raw) =>
    raw
      .split(/[,、，]/)
      .map((k) => k.trim())
      .filter((k) => k.length > 0),
  )
  .refine((list) => list.length >= 1 && list.length <= 10, "keywords: give 1-10 keywords separated by commas (e.g. deploy, migration, デプロイ).")
  .refine((list) => list.every((k) => k.length <= 200 && !CONTROL_CHARS.test(k)), "keywords: each keyword is a single line of at most 200 characters.");
