// Credentials that secretlint's recommended preset has no rule for (it covers
// AWS, GCP, RSA/DSA private keys, npm, basic auth and connection strings,
// Slack, SendGrid, Shopify, GitHub, OpenAI, Anthropic, Linear and 1Password),
// written as one secretlint rule so that every hit, the preset's and these,
// comes back the same way. Each pattern is the issuer's documented format.
//
// Cost: every pattern is linear in the text. A pattern that may start inside
// a run of its own body characters (`\beyJ[\w-]{8,}\.` over "-eyJ-eyJ-eyJ…")
// rescans that run from every start, which grows with the square of the
// length; so each one starts only where such a run starts (a lookbehind of its
// body's class) or has a bounded body. test/secrets/guard-cost.test.ts scans
// adversarial 100 KB texts with every rule.
import type { SecretLintRuleCreator, SecretLintRuleMessageTranslate } from "@secretlint/types";
import { OWN_SECRET_BODY_CHARS, OWN_SECRET_PREFIXES } from "./own-tokens.js";

const OWN_PREFIXES = OWN_SECRET_PREFIXES.map((p) => p.slice(0, -1)).join("|");

/** Patterns whose every match is a credential. */
const PATTERNS = {
  OWN_TOKEN: new RegExp(`(?<![A-Za-z0-9_-])(?:${OWN_PREFIXES})_[A-Za-z0-9_-]{${OWN_SECRET_BODY_CHARS}}(?![A-Za-z0-9_-])`, "g"),
  GITLAB_TOKEN: /(?<![A-Za-z0-9_-])(?:glpat|gldt|glrt|glcbt|glptt|glft|glimt|glagent|gloas)-[A-Za-z0-9_-]{20,}/g,
  STRIPE_KEY: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}/g,
  // header.payload.signature, the first two base64url JSON objects ("eyJ" is `{"`).
  JWT: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/g,
  // Storage and Service Bus connection strings carry the key itself; Entra ID client secrets have a "Q~" at position 4.
  AZURE_KEY: /(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{40,}|(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g,
  GOOGLE_API_KEY: /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g,
  HUGGINGFACE_TOKEN: /(?<![A-Za-z0-9_])hf_[A-Za-z]{34,40}(?![A-Za-z0-9_])/g,
} as const;

// `Authorization: Bearer …` (in a curl line or a client's configuration) and
// `Basic …` (user:password in base64). What follows "Bearer" is a credential
// when it looks like one of any format: mixing letters and digits (hex, base32,
// base64url…), not a placeholder or a word.
const BEARER = /\bBearer[ \t]+([A-Za-z0-9._~+/-]{20,500}=*)/gi;
const BASIC = /\bBasic[ \t]+([A-Za-z0-9+/]{8,500}={0,2})/g;

// `password = …`, `DB_PASSWORD: "…"`, `STRIPE_API_KEY=…`: the name ends in one
// of these words (after "_", "-", "." or nothing), and the value is a
// credential when it looks generated; a word or a placeholder ("<your
// password>", "${PASSWORD}", "changeme") is prose, not a secret.
const ASSIGNMENT =
  /(?:pass(?:word|wd)?|pwd|secret(?:[_-]?(?:access[_-]?)?key)?|client[_-]?secret|api[_-]?key|access[_-]?key|auth[_-]?token|access[_-]?token|token|private[_-]?key|sig)["']?[ \t]{0,8}[:=][ \t]{0,8}["']?([^\s"'`,;<>]{12,200})/gi;
const NAME_CHAR = /[A-Za-z0-9]/;
const PLACEHOLDER = /^(?:[$%{<[(]|(?:x+|\*+|\.+)$|changeme|example|password|secret|redacted|placeholder|your)/i;
const MIN_ENTROPY_BITS_PER_CHAR = 3.5;

// A PEM private key of any algorithm (EC and Ed25519 keys are shorter than
// the preset's RSA-shaped check): the header, then base64 within a few lines.
const PEM_HEADER = /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_BODY = /[A-Za-z0-9+/]{40}/;
const PEM_BODY_WITHIN_CHARS = 300;

function entropyBitsPerChar(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Letters and digits both, of a generated spread (a hex or a lower-case token has two classes, not three). */
const MIN_BEARER_ENTROPY_BITS_PER_CHAR = 3;
function looksLikeBearerValue(value: string): boolean {
  if (PLACEHOLDER.test(value)) return false;
  return /[A-Za-z]/.test(value) && /[0-9]/.test(value) && entropyBitsPerChar(value) >= MIN_BEARER_ENTROPY_BITS_PER_CHAR;
}

function looksGenerated(value: string): boolean {
  if (PLACEHOLDER.test(value)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((c) => c.test(value)).length;
  return classes >= 3 && entropyBitsPerChar(value) >= MIN_ENTROPY_BITS_PER_CHAR;
}

/** A Basic value is a credential when it decodes to printable "user:password". */
function isBasicCredential(value: string): boolean {
  const decoded = Buffer.from(value, "base64").toString("latin1");
  return /^[\x20-\x7e]+:[\x20-\x7e]+$/.test(decoded);
}

type MessageId = keyof typeof PATTERNS | "PASSWORD_ASSIGNMENT" | "AUTHORIZATION_HEADER" | "PRIVATE_KEY_ANY";
const messages: Record<MessageId, { en: (props: Record<string, never>) => string }> = {
  OWN_TOKEN: { en: () => "found a token of this service" },
  GITLAB_TOKEN: { en: () => "found a GitLab token" },
  STRIPE_KEY: { en: () => "found a Stripe key" },
  JWT: { en: () => "found a JSON Web Token" },
  AZURE_KEY: { en: () => "found an Azure key" },
  GOOGLE_API_KEY: { en: () => "found a Google API key" },
  HUGGINGFACE_TOKEN: { en: () => "found a Hugging Face token" },
  PASSWORD_ASSIGNMENT: { en: () => "found a password-like assignment with a generated value" },
  AUTHORIZATION_HEADER: { en: () => "found an Authorization header value" },
  PRIVATE_KEY_ANY: { en: () => "found a private key" },
};

const EXTRA_RULE_ID = "agent-memory/credentials-beyond-the-preset";

/** Each range of `content` these rules report, with its message id. */
function* extraHits(content: string): Generator<{ id: MessageId; start: number; end: number }> {
  for (const [id, pattern] of Object.entries(PATTERNS) as [keyof typeof PATTERNS, RegExp][]) {
    for (const m of content.matchAll(pattern)) yield { id, start: m.index, end: m.index + m[0].length };
  }
  for (const m of content.matchAll(ASSIGNMENT)) {
    // The word must start the name or one of its parts: DB_PASSWORD, not "mytoken".
    if (m.index > 0 && NAME_CHAR.test(content[m.index - 1]!)) continue;
    const value = m[1]!;
    if (!looksGenerated(value)) continue;
    const start = m.index + m[0].length - value.length;
    yield { id: "PASSWORD_ASSIGNMENT", start, end: start + value.length };
  }
  for (const m of content.matchAll(BEARER)) {
    const value = m[1]!;
    if (!looksLikeBearerValue(value)) continue;
    const start = m.index + m[0].length - value.length;
    yield { id: "AUTHORIZATION_HEADER", start, end: start + value.length };
  }
  for (const m of content.matchAll(BASIC)) {
    const value = m[1]!;
    if (!isBasicCredential(value)) continue;
    const start = m.index + m[0].length - value.length;
    yield { id: "AUTHORIZATION_HEADER", start, end: start + value.length };
  }
  for (const m of content.matchAll(PEM_HEADER)) {
    const end = m.index + m[0].length;
    if (PEM_BODY.test(content.slice(end, end + PEM_BODY_WITHIN_CHARS))) yield { id: "PRIVATE_KEY_ANY", start: m.index, end };
  }
}

export const extraCredentialRules: SecretLintRuleCreator = {
  messages,
  meta: { id: EXTRA_RULE_ID, recommended: true, type: "scanner", supportedContentTypes: ["text"], docs: { url: "docs/secrets.md" } },
  create(context) {
    const t = context.createTranslator(messages) as SecretLintRuleMessageTranslate<typeof messages>;
    return {
      file(source) {
        for (const hit of extraHits(source.content)) context.report({ message: t(hit.id, {}), range: [hit.start, hit.end] });
      },
    };
  },
};
