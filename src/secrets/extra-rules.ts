// Credentials that secretlint's recommended preset has no rule for (it covers
// AWS, GCP, private keys, npm, basic auth and connection strings, Slack,
// SendGrid, Shopify, GitHub, OpenAI, Anthropic, Linear and 1Password), written
// as one secretlint rule so that every hit, the preset's and these, comes back
// the same way. Each pattern is the issuer's documented token format.
import type { SecretLintRuleCreator, SecretLintRuleMessageTranslate } from "@secretlint/types";

const PATTERNS = {
  GITLAB_TOKEN: /\b(?:glpat|gldt|glrt|glcbt|glptt|glft|glimt|glagent|gloas)-[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])/g,
  STRIPE_KEY: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}\b/g,
  // header.payload.signature, the first two base64url JSON objects ("eyJ" is `{"`).
  JWT: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/g,
  // Storage and Service Bus connection strings carry the key itself; Entra ID client secrets have a "Q~" at position 4.
  AZURE_KEY: /\b(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{40,}={0,2}|(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g,
} as const;

// `password = …`, `api_key: "…"`, `client_secret=…`: a value that is a word or
// a placeholder ("<your password>", "${PASSWORD}", "changeme") is prose, not a
// secret; one of 12+ characters that mixes character classes and has high
// Shannon entropy is treated as the credential itself.
const ASSIGNMENT =
  /\b(?:pass(?:word|wd)?|pwd|secret|client[_-]?secret|api[_-]?key|access[_-]?key|auth[_-]?token|access[_-]?token|token|private[_-]?key|sig)["']?\s*[:=]\s*["']?([^\s"'`,;<>]{12,200})/gi;
const PLACEHOLDER = /^(?:[$%{<[(]|(?:x+|\*+|\.+)$|changeme|example|password|secret|redacted|placeholder|your)/i;
const MIN_ENTROPY_BITS_PER_CHAR = 3.5;

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

function looksGenerated(value: string): boolean {
  if (PLACEHOLDER.test(value)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((c) => c.test(value)).length;
  return classes >= 3 && entropyBitsPerChar(value) >= MIN_ENTROPY_BITS_PER_CHAR;
}

type MessageId = keyof typeof PATTERNS | "PASSWORD_ASSIGNMENT";
const messages: Record<MessageId, { en: (props: Record<string, never>) => string }> = {
  GITLAB_TOKEN: { en: () => "found a GitLab token" },
  STRIPE_KEY: { en: () => "found a Stripe key" },
  JWT: { en: () => "found a JSON Web Token" },
  AZURE_KEY: { en: () => "found an Azure key" },
  PASSWORD_ASSIGNMENT: { en: () => "found a password-like assignment with a generated value" },
};

export const EXTRA_RULE_ID = "agent-memory/credentials-beyond-the-preset";

export const extraCredentialRules: SecretLintRuleCreator = {
  messages,
  meta: { id: EXTRA_RULE_ID, recommended: true, type: "scanner", supportedContentTypes: ["text"], docs: { url: "docs/secrets.md" } },
  create(context) {
    const t = context.createTranslator(messages) as SecretLintRuleMessageTranslate<typeof messages>;
    return {
      file(source) {
        for (const [id, pattern] of Object.entries(PATTERNS) as [keyof typeof PATTERNS, RegExp][]) {
          for (const m of source.content.matchAll(pattern)) context.report({ message: t(id, {}), range: [m.index, m.index + m[0].length] });
        }
        for (const m of source.content.matchAll(ASSIGNMENT)) {
          const value = m[1]!;
          if (!looksGenerated(value)) continue;
          const start = m.index + m[0].length - value.length;
          context.report({ message: t("PASSWORD_ASSIGNMENT", {}), range: [start, start + value.length] });
        }
      },
    };
  },
};
