// The secret guard: every text the service stores is scanned for credentials
// before anything is written, whoever writes it (agents, people in the
// console, the CLI, imports). The stores call it (facts, reviews, the ledger,
// the graph, redactions), after their own cheap checks and on the text as it
// will be stored, so no surface can store text around it. A hit is refused
// naming the field and the kind of credential, never echoing it: the refusal
// goes back to the caller, into logs and possibly into a transcript.
//
// The scanner is secretlint's recommended preset (maintained, one rule per
// issuer) plus extra-rules.ts for the issuers it lacks. All the texts of one
// call are scanned in one pass, joined, and each hit is mapped back to its field.
import { lintSource } from "@secretlint/core";
import { secretLintProfiler } from "@secretlint/profiler";
import { creator as recommended } from "@secretlint/secretlint-rule-preset-recommend";
import type { SecretLintCoreConfig } from "@secretlint/types";
import { type DomainError, invalid } from "../errors.js";
import { extraCredentialRules } from "./extra-rules.js";
import { isAllowed, kindOf, type SecretKind, visiblePrefix } from "./kinds.js";

export type SecretGuardMode = "refuse" | "off";
export const SECRET_GUARD_MODES = ["refuse", "off"] as const;

/** A text as written: the field it came in (`body`, `entities[0].observations[2]`) and its value. */
export type FieldText = readonly [field: string, text: string];

interface SecretHit {
  field: string;
  kind: SecretKind;
  /** The issuer's public prefix of the value (ghp_, AKIA, sk-ant-…), never more of it. */
  prefix: string | undefined;
}

export interface SecretGuard {
  /** Throws `invalid` naming every field that holds a credential (nothing is written); counts each refused hit by kind. */
  check(texts: Iterable<FieldText>): Promise<void>;
  /**
   * check() of each item (an import's files or lines), in one scan: the
   * refusal check() would throw for each, or null. The scanner's cost is
   * mostly per call: 500 graph lines scanned together cost what 25 cost one by one.
   */
  checkEach(items: ReadonlyArray<Iterable<FieldText>>): Promise<Array<DomainError | null>>;
  /**
   * `text` with every credential in it cut to its issuer's prefix ("ghp_…"):
   * for refusals that quote what was sent (an invalid name, a wrong value).
   */
  mask(text: string): Promise<string>;
}

// secretlint's core marks the global performance timeline twice per rule per
// scan for its profiler, which keeps every mark: in a service that scans every
// write, memory and CPU grow without bound (secretlint#1633; fixed upstream by
// an off switch, secretLintProfiler.setEnabled, in releases that need Node 22).
// The guard never reads a profile, so marking is turned off.
secretLintProfiler.mark = () => undefined;

const config: SecretLintCoreConfig = {
  rules: [
    // As the preset has it, AWS access key ids and account ids alone are not
    // reported: they are identifiers (printed in ARNs and logs); the secret access key is.
    { id: recommended.meta.id, rule: recommended },
    { id: extraCredentialRules.meta.id, rule: extraCredentialRules },
  ],
};

// Between two fields: a blank line, so that no pattern spans fields.
const SEPARATOR = "\n\n";

// Invisible characters (zero-width spaces and joiners, soft hyphens, BOMs)
// inside a token hide it from every pattern while a reader, or a copy and
// paste, still gets the token; NFKC folds full-width and other compatibility
// forms (ｇｈｐ＿…) and NFC's singletons (the Kelvin sign for K) to the letters
// the patterns know. The stored text is not changed: this is only the form scanned.
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;

/** The form of a text that the rules read. */
function scannedForm(text: string): string {
  return text.normalize("NFKC").replace(INVISIBLE, "");
}

/** No credential of any issuer is shorter. */
const MIN_SECRET_CHARS = 8;

interface RawHit {
  start: number;
  end: number;
  value: string;
  kind: SecretKind;
}

/** Every hit of every rule in `content` (already in its scanned form), the allow-listed ones left out. */
async function scan(content: string): Promise<RawHit[]> {
  const result = await lintSource({ source: { filePath: "text", content, contentType: "text" }, options: { config, noPhysicFilePath: true, maskSecrets: true } });
  const hits: RawHit[] = [];
  for (const message of result.messages) {
    const [start, end] = message.range;
    const value = content.slice(start, end);
    if (isAllowed(value)) continue;
    hits.push({ start, end, value, kind: kindOf(message.messageId) });
  }
  return hits;
}

/** Every credential in the texts, at most one hit per field and kind, in field order. */
export async function findSecrets(texts: Iterable<FieldText>): Promise<SecretHit[]> {
  return (await findSecretsEach([texts]))[0]!;
}

/**
 * findSecrets of each item (one file or line of an import, each its own
 * fields), in one scan of them all: the fields are joined as one call's are,
 * so that each hit is mapped back to its field, and so to its item.
 */
async function findSecretsEach(items: ReadonlyArray<Iterable<FieldText>>): Promise<SecretHit[][]> {
  const fields: { item: number; field: string; start: number; end: number }[] = [];
  let content = "";
  items.forEach((texts, item) => {
    for (const [field, raw] of texts) {
      if (raw.length < MIN_SECRET_CHARS) continue;
      const text = scannedForm(raw);
      if (text.length < MIN_SECRET_CHARS) continue;
      if (content) content += SEPARATOR;
      fields.push({ item, field, start: content.length, end: content.length + text.length });
      content += text;
    }
  });
  const found = items.map(() => [] as SecretHit[]);
  if (!content) return found;
  const seen = new Set<string>();
  for (const hit of await scan(content)) {
    // The field the hit starts in (a hit in a separator belongs to the item before it, as "input").
    const at = fields.findLast((f) => f.start <= hit.start) ?? fields[0]!;
    const field = hit.start < at.end ? at.field : "input";
    const key = `${at.item}\u0000${field}\u0000${hit.kind.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    found[at.item]!.push({ field, kind: hit.kind, prefix: visiblePrefix(hit.value) });
  }
  return found.map((hits, item) => {
    if (hits.length < 2) return hits;
    const order = fields.filter((f) => f.item === item).map((f) => f.field);
    return hits.sort((a, b) => order.indexOf(a.field) - order.indexOf(b.field));
  });
}

/** `text` in its scanned form with each credential replaced by its visible prefix and "…"; `text` itself when it holds none. */
async function maskSecrets(text: string): Promise<string> {
  if (text.length < MIN_SECRET_CHARS) return text;
  const content = scannedForm(text);
  const hits = (await scan(content)).sort((a, b) => a.start - b.start);
  if (hits.length === 0) return text;
  let masked = "";
  let at = 0;
  for (const hit of hits) {
    if (hit.start < at) continue;
    masked += `${content.slice(at, hit.start)}${visiblePrefix(hit.value) ?? ""}…`;
    at = hit.end;
  }
  return masked + content.slice(at);
}

/** The refusal: each field and kind, the issuer's prefix at most, and what to store instead. */
function secretRefusal(hits: SecretHit[]): string {
  const each = hits.map((h) => `${h.field} holds what looks like ${h.kind.label}${h.prefix ? ` (${h.prefix}…)` : ""}`);
  return (
    `Refused: ${each.join("; ")}. Store where to find the secret (a vault path, the name of an environment variable), not the secret itself. ` +
    `Nothing was written. If this is not a credential, reword it (e.g. shorten the value) or ask an operator.`
  );
}

export function createSecretGuard(mode: SecretGuardMode, countRefused: (kind: string) => void = () => undefined): SecretGuard {
  const checkEach = async (items: ReadonlyArray<Iterable<FieldText>>): Promise<Array<DomainError | null>> => {
    if (mode === "off") return items.map(() => null);
    return (await findSecretsEach(items)).map((hits) => {
      if (hits.length === 0) return null;
      for (const h of hits) countRefused(h.kind.id);
      return invalid(secretRefusal(hits), { secrets: hits.map((h) => ({ field: h.field, kind: h.kind.id })) });
    });
  };
  return {
    async check(texts) {
      const [refusal] = await checkEach([texts]);
      if (refusal) throw refusal;
    },
    checkEach,
    mask: (text) => (mode === "off" ? Promise.resolve(text) : maskSecrets(text)),
  };
}

/**
 * The guard of every store that is given none: refusing, counting nothing.
 * Services pass their own (SECRET_GUARD, with the refusals counted in /metrics).
 */
export const REFUSING_GUARD: SecretGuard = createSecretGuard("refuse");

/** Every string anywhere in `value`, with its path (`entities[2].observations[0]`). */
export function* stringsIn(value: unknown, path = ""): Generator<FieldText> {
  if (typeof value === "string") yield [path || "input", value];
  else if (Array.isArray(value)) for (let i = 0; i < value.length; i++) yield* stringsIn(value[i], `${path}[${i}]`);
  else if (value !== null && typeof value === "object") for (const [key, v] of Object.entries(value)) yield* stringsIn(v, path ? `${path}.${key}` : key);
}
