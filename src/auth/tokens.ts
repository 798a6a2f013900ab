// Token secrets: 32 random bytes, base64url, behind a recognisable prefix (so
// secret scanners and humans can spot a leaked one). Stored only as sha256: the
// secret is high-entropy, so a fast hash is enough and lookup by hash needs no
// timing-sensitive comparison.
import { createHash, randomBytes } from "node:crypto";
import { AGENT_TOKEN_PREFIX as TOKEN_PREFIX, OWN_SECRET_BODY_CHARS } from "../secrets/own-tokens.js";

const TOKEN_PATTERN = new RegExp(`^${TOKEN_PREFIX}[A-Za-z0-9_-]{${OWN_SECRET_BODY_CHARS}}$`);

export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString("base64url");
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export function looksLikeToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

export function tokenHint(token: string): string {
  return `${token.slice(0, TOKEN_PREFIX.length + 4)}…`;
}
